import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import { FakeApi, makeServerView, makeStatus } from './fake-api';
import { showServer } from './rows';

// Issue 32: the Servers page is a list of where servers run (engines, the dry run, SSH servers),
// each with the backend's one server state, and the detail of the chosen one; the shell has a skip
// link and a one-stop navigation that hands focus to the new page's heading.

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  api.engineList.push({ id: 'dry-run', kind: 'dry-run', label: 'This computer (dry run)', endpoint: 'in-app swarm server on 127.0.0.1' });
  setApiForTests(api);
  setLocale('en');
});

function rowIds(): string[] {
  return screen.getAllByTestId('server-row').map((row) => row.dataset.row ?? '');
}

describe('Servers page list and detail', () => {
  it('lists the engine, the dry run and each SSH server, each with its server state, and shows one in the detail', async () => {
    const running = api.makeContainer({ state: 'running' });
    api.containers = [running];
    api.statusList = [makeStatus(running.id, { engineStatus: 'ENGINE.ROLLING' })];
    api.serverViews = [makeServerView({ id: 'gpu-box', label: 'gpu-box' }, { state: 'up' })];
    api.engineList.push({ id: 'ssh-gpu-box', kind: 'ssh-docker', label: 'gpu-box', endpoint: 'ssh://alice@gpu.example.org:22' });
    render(App);
    await waitFor(() => expect(rowIds()).toEqual(['engine:local', 'dry-run', 'ssh:gpu-box']));
    const [local, dryRun, ssh] = screen.getAllByTestId('server-row');
    // The running server's badge, worded from its ServerState as on every other surface.
    await waitFor(() => expect(within(local!).getByTestId('server-row-phase').dataset.phase).toBe('training'));
    expect(within(dryRun!).getByTestId('server-row-states').textContent).toContain('No swarm server');
    expect(within(ssh!).getByTestId('server-row-link').textContent).toBe('Connected');
    expect(within(ssh!).getByTestId('server-row-states').textContent).toContain('No swarm server');
    // The row with a running server is shown first; only its cards are on the page.
    await waitFor(() => expect(screen.getByTestId('server-detail').dataset.row).toBe('engine:local'));
    expect(local!.getAttribute('aria-current')).toBe('true');
    expect(screen.getAllByTestId('engine-card')).toHaveLength(1);
    expect(screen.queryByTestId('dryrun-card')).toBeNull();
    expect(screen.queryByTestId('server-card')).toBeNull();
  });

  it('shows the chosen row, moves focus to its heading, and keeps the choice across a page switch', async () => {
    render(App);
    await waitFor(() => expect(rowIds()).toEqual(['engine:local', 'dry-run']));
    const detail = await showServer('dry-run');
    await waitFor(() => expect(document.activeElement).toBe(within(detail).getByRole('heading', { level: 2, name: 'This computer (dry run, no GPU)' })));
    expect(screen.getAllByTestId('server-row')[1]!.getAttribute('aria-current')).toBe('true');
    expect(screen.queryByTestId('engine-card')).toBeNull();

    await fireEvent.click(screen.getByTestId('nav-jobs'));
    await fireEvent.click(screen.getByTestId('nav-servers'));
    await waitFor(() => expect(screen.getByTestId('server-detail').dataset.row).toBe('dry-run'));
    await screen.findByTestId('dryrun-card');
  });

  it('opens an SSH server first when no server runs, and shows a server just added', async () => {
    api.serverViews = [makeServerView({ id: 'old-box', label: 'old-box' }, { state: 'disconnected' })];
    api.engineList.push({ id: 'ssh-old-box', kind: 'ssh-docker', label: 'old-box', endpoint: 'ssh://alice@gpu.example.org:22' });
    render(App);
    await waitFor(() => expect(screen.getByTestId('server-detail').dataset.row).toBe('ssh:old-box'));
    expect(within(screen.getByTestId('server-detail')).getByTestId('server-card').dataset.serverId).toBe('old-box');

    await fireEvent.click(screen.getByTestId('server-add'));
    const dialog = await screen.findByTestId('server-dialog');
    await fireEvent.input(within(dialog).getByTestId('server-form-label'), { target: { value: 'new-box' } });
    await fireEvent.input(within(dialog).getByTestId('server-form-host'), { target: { value: 'new.example.org' } });
    await fireEvent.input(within(dialog).getByTestId('server-form-username'), { target: { value: 'bob' } });
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    await waitFor(() => expect(screen.getByTestId('server-detail').dataset.row).toBe('ssh:new-box'));
    expect(rowIds()).toEqual(['engine:local', 'dry-run', 'ssh:old-box', 'ssh:new-box']);
  });
});

describe('skip link and navigation focus', () => {
  it('has "Skip to content" as the first focusable element; it takes focus to the page heading', async () => {
    render(App);
    const focusable = document.querySelectorAll<HTMLElement>('button:not([tabindex="-1"]), a[href], input, select, textarea, [tabindex="0"]');
    expect(focusable[0]).toBe(screen.getByTestId('skip-link'));
    expect(screen.getByTestId('skip-link').textContent).toBe('Skip to content');
    await fireEvent.click(screen.getByTestId('skip-link'));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1 })));
  });

  it('is one Tab stop (arrows move inside it); a click moves focus to the new page heading', async () => {
    render(App);
    const nav = within(screen.getByRole('navigation'));
    const buttons = nav.getAllByRole('button');
    expect(buttons.filter((b) => b.tabIndex === 0).map((b) => b.dataset.testid)).toEqual(['nav-servers']);
    buttons.find((b) => b.dataset.testid === 'nav-servers')!.focus();
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(buttons[buttons.findIndex((b) => b.dataset.testid === 'nav-servers') + 1]);
    await fireEvent.click(screen.getByTestId('nav-settings'));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1 })));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Settings');
    expect(screen.getByTestId('nav-settings').tabIndex).toBe(0);
  });

  it('words the skip link and the list in Simplified Chinese', async () => {
    api.settingsValue.language = 'zh-CN';
    render(App);
    await waitFor(() => expect(screen.getByTestId('skip-link').textContent).toBe('跳到正文'));
    await waitFor(() => expect(screen.getByRole('list', { name: '你的 swarm 服务器运行在哪里' })).toBeTruthy());
  });
});
