import { render, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi, makeStatus } from './fake-api';
import { rowFor } from './rows';

// The Servers page row and the status bar, rendered from statuses as the backend serves them.
let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

afterEach(() => {
  vi.useRealTimers();
});

const VLLM = "ModuleNotFoundError: No module named 'vllm'";

describe('status display on the Servers page', () => {
  it.each([
    ['en', 'online · step 7'],
    ['zh-CN', '在线 · 第 7 步'],
  ] as const)('writes the connection and step with a space on both sides of the dot (%s)', async (language, expected) => {
    api.settingsValue.language = language;
    const container = api.makeContainer();
    api.containers = [container];
    api.statusList = [makeStatus(container.id, { engineStatus: 'ENGINE.ROLLING', globalStep: 7 })];
    render(App);
    const row = await rowFor(container.id);
    const line = within(row).getByTestId('swarm-engine-line');
    await waitFor(() => expect(line.textContent).toBe(expected));
  });

  it('explains a failed boot in the row and in the status bar', async () => {
    const container = api.makeContainer();
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);
    await waitFor(() => expect(api.listenerCount('fleet:state-changed')).toBe(1));

    api.emit(
      'swarm:status',
      makeStatus(container.id, {
        engineStatus: 'ENGINE.OFFLINE',
        engineProblem: { kind: 'boot-failed', since: new Date().toISOString(), log: { lines: [VLLM], explains: true } },
      }),
    );
    const problem = await within(row).findByTestId('swarm-engine-problem');
    expect(problem.dataset.kind).toBe('boot-failed');
    expect(problem.textContent).toContain('The training engine stopped while booting');
    expect(within(problem).getByTestId('swarm-engine-problem-log').textContent).toBe(VLLM);
    expect(within(row).queryByTestId('swarm-engine-hint')).toBeNull();
    expect(within(row).getByTestId('swarm-engine-line').textContent).toBe('online');
    expect(screen.getByTestId('statusbar-swarm').textContent).toBe('AgentJet swarm server: Engine failed to boot · 127.0.0.1:10086 · 1 server: engine failed to boot');
  });

  it('counts BOOTING time up while the page is open, and the container uptime too', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-12-03T08:00:00.000Z'), toFake: ['Date', 'setInterval', 'clearInterval'] });
    const container = api.makeContainer({ startedAt: new Date(Date.now() - 3000).toISOString(), statusText: 'Up Less than a second' });
    api.containers = [container];
    api.statusList = [makeStatus(container.id, { engineStatus: 'ENGINE.BOOTING', bootingSince: new Date(Date.now() - 10_000).toISOString() })];
    render(App);
    const row = await rowFor(container.id);
    const line = within(row).getByTestId('swarm-engine-line');
    await waitFor(() => expect(line.textContent).toBe('online · booting for 10 s'));
    expect(within(row).getByTestId('swarm-container-text').textContent).toBe('Up 3 seconds');

    vi.advanceTimersByTime(5000);
    await tick();
    expect(line.textContent).toBe('online · booting for 15 s');
    expect(within(row).getByTestId('swarm-container-text').textContent).toBe('Up 8 seconds');
  });

  it('after a reload, an exited container still says why it ended (statuses served by swarm:statuses)', async () => {
    const container = api.makeContainer({ state: 'exited', exitCode: 0, finishedAt: new Date().toISOString(), statusText: 'Exited (0) 1 second ago' });
    api.containers = [container];
    api.statusList = [
      makeStatus(container.id, {
        connection: 'stopped',
        engineStatus: null,
        exit: { kind: 'unexpected-stop', code: 0, finishedAt: container.finishedAt, log: { lines: ['Press Ctrl+C to stop.'], explains: false } },
      }),
    ];
    render(App);
    const row = await rowFor(container.id);
    const exit = await within(row).findByTestId('swarm-exit');
    expect(exit.textContent).toContain('Stopped unexpectedly (exit code 0)');
    expect(exit.textContent).not.toContain('Press Ctrl+C'); // the banner explains nothing
    expect(within(row).queryByTestId('swarm-engine-status')).toBeNull();
    expect(within(row).queryByTestId('swarm-engine-hint')).toBeNull();
    expect(row.textContent).not.toContain('not watched');
  });
});
