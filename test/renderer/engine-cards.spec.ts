import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EngineHealth } from '../../electron/shared/schemas';
import type { ServerProfile } from '../../electron/shared/schemas-servers';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi, makeServerView } from './fake-api';
import { showServer } from './rows';

// Engine cards name their engine (Docker or Podman), its mode (rootful or rootless) and version:
// from what the engine answered (health.product), falling back to what it was added as.

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

function health(engineId: string, overrides: Partial<EngineHealth> = {}): EngineHealth {
  return { id: engineId, reachable: true, version: '27.5.1', apiVersion: '1.47', product: 'docker', rootless: false, error: null, ...overrides };
}

const PODMAN_ROOTLESS = { product: 'podman', rootless: true, version: '4.3.1', apiVersion: '1.41' } as const;
const PODMAN_ROOTFUL = { product: 'podman', rootless: false, version: '4.3.1', apiVersion: '1.41' } as const;

/** Answers engines:health per engine id, like the backend does. */
function answerHealth(byEngine: Record<string, Partial<EngineHealth>>): void {
  api.answer('engines:health', (request) => {
    const engineId = request?.engineId ?? 'missing';
    return health(engineId, byEngine[engineId] ?? {});
  });
}

/** A connected SSH server and its engine, as engines:list and servers:list show them. */
function addServer(docker: ServerProfile['docker']): void {
  const view = makeServerView({ id: 'box', label: 'box', docker }, { state: 'up' });
  api.serverViews = [view];
  api.engineList.push({ id: view.engineId, kind: 'ssh-docker', label: 'box', endpoint: 'ssh://alice@gpu.example.org:22' });
}

async function cardOf(title: string): Promise<HTMLElement> {
  const heading = await screen.findByRole('heading', { name: title });
  return heading.closest('[data-testid="engine-card"]') as HTMLElement;
}

/** The hint under the shown start form's GPU checkbox. */
function gpuHint(): string {
  const box = screen.getByTestId('swarm-gpus-checkbox');
  return document.getElementById(box.getAttribute('aria-describedby') ?? '')?.textContent ?? '';
}

async function versionOf(card: HTMLElement): Promise<string> {
  return (await within(card).findByTestId('engine-version')).textContent ?? '';
}

describe('engine cards: product, mode and version', () => {
  it.each([
    [{ rootless: false }, 'Docker 27.5.1 · rootful · API 1.47'],
    [{ rootless: true }, 'Docker 27.5.1 · rootless · API 1.47'],
    // An engine that does not say (older backend): no mode rather than a guess.
    [{ rootless: null, product: null }, 'Docker 27.5.1 · API 1.47'],
  ] as const)('local Docker %o → %s', async (overrides, line) => {
    answerHealth({ local: overrides });
    render(App);
    const card = await cardOf('Docker engine (this computer)');
    expect(await versionOf(card)).toBe(line);
    expect(within(card).queryByTestId('engine-detected')).toBeNull();
  });

  it('gives a local Podman engine (kind podman) a card like Local Docker’s, next to it', async () => {
    api.engineList.push({ id: 'local-podman', kind: 'podman', label: 'Local Podman', endpoint: 'unix:///run/podman/podman.sock' });
    answerHealth({ 'local-podman': PODMAN_ROOTFUL });
    render(App);
    // Each engine is a row of the Servers page's list; the detail shows one at a time (issue 32).
    const docker = await cardOf('Docker engine (this computer)');
    expect(await versionOf(docker)).toBe('Docker 27.5.1 · rootful · API 1.47');
    const hints = [gpuHint()];
    await showServer('engine:local-podman');
    const podman = await cardOf('Podman engine (this computer)');
    expect(await versionOf(podman)).toBe('Podman 4.3.1 · rootful · API 1.41');
    expect(podman.textContent).toContain('unix:///run/podman/podman.sock');
    // Each has its own state region, named after its card; its own start form and containers.
    expect(within(podman).getByRole('status', { name: 'State of Podman engine (this computer)' }).textContent).toContain('Reachable');
    expect(screen.getByRole('region', { name: 'Swarm profiles · Podman engine (this computer)' })).toBeTruthy();
    await waitFor(() => expect(api.requestsOn('swarm:list')).toContainEqual({ engineId: 'local-podman' }));
    expect(api.requestsOn('engines:health')).toContainEqual({ engineId: 'local-podman' });
    // Its start form words the GPU need for Podman (a CDI spec), Docker's for Docker (the toolkit).
    hints.push(gpuHint());
    expect(hints).toHaveLength(2);
    expect(hints[0]).toContain('NVIDIA Container Toolkit');
    expect(hints[1]).toContain('nvidia-ctk cdi generate');
  });

  it.each([
    [PODMAN_ROOTLESS, 'Podman 4.3.1 · rootless · API 1.41'],
    [PODMAN_ROOTFUL, 'Podman 4.3.1 · rootful · API 1.41'],
  ] as const)('an SSH server added as Podman: %o → %s, no detection note', async (answered, line) => {
    addServer({ engine: 'podman', transport: 'user-socket', socketPath: '/run/podman/podman.sock' });
    answerHealth({ 'ssh-box': answered });
    render(App);
    const card = await cardOf('Podman engine on box');
    expect(await versionOf(card)).toBe(line);
    expect(within(card).getByRole('status', { name: 'State of Podman engine on box' })).toBeTruthy();
    expect(within(card).queryByTestId('engine-detected')).toBeNull();
  });

  it('shows a server added as Docker that answers as Podman as Podman, with a short note', async () => {
    addServer({ engine: 'docker', transport: 'socket', socketPath: '/var/run/docker.sock' });
    answerHealth({ 'ssh-box': PODMAN_ROOTFUL });
    render(App);
    const card = await cardOf('Podman engine on box');
    expect(await versionOf(card)).toBe('Podman 4.3.1 · rootful · API 1.41');
    expect(within(card).getByTestId('engine-detected').textContent?.trim()).toBe('Detected: this server runs Podman (it was added as Docker).');
    expect(card.dataset.product).toBe('podman');
  });

  it('says Podman from the configured engine while it is not known, and keeps what it learnt when the engine goes away', async () => {
    addServer({ engine: 'podman', transport: 'socket', socketPath: '/run/podman/podman.sock' });
    api.answer('engines:health', (request) =>
      request?.engineId === 'ssh-box'
        ? health('ssh-box', { reachable: false, version: null, apiVersion: null, product: null, rootless: null, error: { code: 'ENGINE_UNREACHABLE', message: 'Podman socket /run/podman/podman.sock not found' } })
        : health('local'),
    );
    render(App);
    const card = await cardOf('Podman engine on box');
    await within(card).findByTestId('error-banner');
    expect(within(card).queryByTestId('engine-version')).toBeNull();

    // Added as Docker, learnt Podman, then unreachable: still Podman (not relabelled as the Docker it was added as).
    api.serverViews[0]!.profile.docker = { engine: 'docker', transport: 'socket', socketPath: '/var/run/docker.sock' };
    answerHealth({ 'ssh-box': PODMAN_ROOTLESS });
    api.emit('servers:changed', structuredClone(api.serverViews));
    await fireEvent.click(within(card).getByRole('button', { name: 'Check again' }));
    await waitFor(async () => expect(await versionOf(card)).toBe('Podman 4.3.1 · rootless · API 1.41'));
    answerHealth({ 'ssh-box': { reachable: false, version: null, apiVersion: null, product: null, rootless: null, error: { code: 'ENGINE_UNREACHABLE', message: 'connection lost' } } });
    await fireEvent.click(within(card).getByRole('button', { name: 'Check again' }));
    await within(card).findByTestId('error-banner');
    expect(within(card).getByRole('heading').textContent).toBe('Podman engine on box');
    expect(within(card).getByTestId('engine-detected').textContent).toContain('runs Podman');
  });

  it('words the card in Simplified Chinese', async () => {
    api.settingsValue.language = 'zh-CN';
    addServer({ engine: 'docker', transport: 'socket', socketPath: '/var/run/docker.sock' });
    answerHealth({ 'ssh-box': PODMAN_ROOTLESS });
    render(App);
    const card = await cardOf('box 上的 Podman 引擎');
    await waitFor(async () => expect(await versionOf(card)).toBe('Podman 4.3.1 · 无根（rootless） · API 1.41'));
    expect(within(card).getByTestId('engine-detected').textContent?.trim()).toBe('检测结果：这台服务器运行的是 Podman（添加时选的是 Docker）。');
    await showServer('engine:local');
    expect(await versionOf(await cardOf('Docker 引擎（本机）'))).toBe('Docker 27.5.1 · 有根（rootful） · API 1.47');
  });
});
