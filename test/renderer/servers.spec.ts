import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi, makeStatus } from './fake-api';
import { rowFor } from './rows';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

describe('Servers page', () => {
  it('lists containers and shows the live engine status from a swarm:status event', async () => {
    const container = api.makeContainer({ name: 'agentjet-swarm-a', port: 10086 });
    api.containers = [container];
    render(App);

    const row = await rowFor(container.id);
    expect(within(row).getByText('agentjet-swarm-a')).toBeTruthy();
    expect(within(row).getByText('ghcr.io/modelscope/agentjet:main')).toBeTruthy();
    expect(within(row).getByText('running')).toBeTruthy();
    expect(within(row).getByTestId('swarm-engine-status').textContent).toBe('not known yet');
    // Running, its API not heard from yet: the backend's state is "starting", and the bar says so.
    await waitFor(() => expect(screen.getByTestId('statusbar-swarm').textContent).toBe('AgentJet swarm server: Starting · 127.0.0.1:10086'));
    expect(api.requestsOn('swarm:list')).toEqual([{ engineId: 'local' }]);
    await waitFor(() => expect(api.listenerCount('fleet:state-changed')).toBe(1));

    api.emit('swarm:status', makeStatus(container.id, { engineStatus: 'ENGINE.ROLLING', globalStep: 7 }));

    await waitFor(() => expect(within(row).getByTestId('swarm-engine-status').textContent).toBe('ENGINE.ROLLING'));
    expect(within(row).getByTestId('swarm-connection').textContent).toBe('online');
    expect(row.textContent).toContain('step 7');
    await waitFor(() => expect(screen.getByTestId('statusbar-swarm').textContent).toBe('AgentJet swarm server: Training · 127.0.0.1:10086'));
  });

  it('leaves a server started from a swarm profile to its profile card: no second row (no second Stop), a note instead', async () => {
    const quick = api.makeContainer({ name: 'agentjet-swarm-quick', port: 10086 });
    const fromProfile = api.makeContainer({ name: 'agentswarm-swarm-profile', port: 10087, profileId: 'qwen-7b' });
    api.containers = [quick, fromProfile];
    render(App);
    await rowFor(quick.id);
    expect(screen.queryAllByTestId('swarm-container-row').map((r) => r.getAttribute('data-container-id'))).toEqual([quick.id]);
    expect(screen.getByTestId('containers-from-profiles').textContent).toContain('(1)');
  });

  it('takes its engine ids from engines:list, not a constant: every request names the listed engine', async () => {
    api.engineList = [{ id: 'gpu-box', kind: 'ssh-docker', label: 'GPU box', endpoint: 'ssh://gpu-box' }];
    api.health = { ...api.health, id: 'gpu-box' };
    api.containers = [api.makeContainer({ engineId: 'gpu-box' })];
    render(App);

    await screen.findByTestId('swarm-container-row');
    await waitFor(() => expect(api.requestsOn('engines:health')).toEqual([{ engineId: 'gpu-box' }]));
    expect(api.requestsOn('swarm:list')).toEqual([{ engineId: 'gpu-box' }]);
    api.emit('swarm:containers-changed', { engineId: 'local' });
    api.emit('swarm:containers-changed', { engineId: 'gpu-box' });
    await waitFor(() => expect(api.requestsOn('swarm:list')).toHaveLength(2));
    expect(api.requestsOn('swarm:list')).toEqual([{ engineId: 'gpu-box' }, { engineId: 'gpu-box' }]);
  });

  it('shows why the engines could not be listed instead of an empty page', async () => {
    api.failNext('engines:list', { code: 'INTERNAL', message: 'backend broke' });
    render(App);
    const banner = await screen.findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('INTERNAL');
    expect(api.requestsOn('swarm:list')).toEqual([]);
  });

  it('shows statuses already known at start (swarm:statuses) and tells the app the renderer is ready', async () => {
    const container = api.makeContainer();
    api.containers = [container];
    api.statusList = [makeStatus(container.id, { engineStatus: 'ENGINE.OFFLINE', url: 'http://127.0.0.1:10090' })];
    render(App);

    const row = await rowFor(container.id);
    await waitFor(() => expect(within(row).getByTestId('swarm-engine-status').textContent).toBe('ENGINE.OFFLINE'));
    expect(screen.getByTestId('statusbar-swarm').textContent).toBe('AgentJet swarm server: Running · 127.0.0.1:10090');
    expect(api.rendererReadyCalls).toBe(1);
  });

  it('says in the status bar when the watched swarm server stops answering', async () => {
    const container = api.makeContainer();
    api.containers = [container];
    api.statusList = [makeStatus(container.id, { checkedAt: '2025-01-01T00:00:00.000Z' })];
    render(App);
    const bar = screen.getByTestId('statusbar-swarm');
    await waitFor(() => expect(bar.textContent).toBe('AgentJet swarm server: Running · 127.0.0.1:10086'));

    api.emit('swarm:status', makeStatus(container.id, { connection: 'unreachable', lastError: 'ECONNREFUSED' }));
    await waitFor(() => expect(bar.textContent).toBe('AgentJet swarm server: Unreachable · 127.0.0.1:10086'));

    api.emit('swarm:status', makeStatus(container.id, { connection: 'stopped', engineStatus: null }));
    await waitFor(() => expect(bar.textContent).toBe('AgentJet swarm server: none watched'));
  });

  it('says "checking" in the status bar until the statuses answer, never "not running" on a guess', async () => {
    const release = api.hold('swarm:statuses');
    render(App);
    const bar = screen.getByTestId('statusbar-swarm');
    expect(bar.getAttribute('role')).toBe('status');
    expect(bar.textContent).toBe('AgentJet swarm server: checking…');
    release();
    await waitFor(() => expect(bar.textContent).toBe('AgentJet swarm server: none watched'));
  });

  it('refetches the list once for a burst of swarm:containers-changed events', async () => {
    render(App);
    await screen.findByText('No swarm server containers yet. Start one above.');
    const added = api.makeContainer();
    api.containers = [added];

    api.emit('swarm:containers-changed', { engineId: 'local' });
    api.emit('swarm:containers-changed', { engineId: 'local' });
    api.emit('swarm:containers-changed', { engineId: 'local' });
    // Another engine's changes are not this list's business.
    api.emit('swarm:containers-changed', { engineId: 'other' });

    await rowFor(added.id);
    expect(api.requestsOn('swarm:list')).toHaveLength(2);
  });

  it('shows the Docker engine as reachable with its version', async () => {
    render(App);
    const card = await screen.findByTestId('engine-card');
    await waitFor(() => expect(card.textContent).toContain('Docker 27.5.1 · API 1.47'));
    expect(card.textContent).toContain('Docker engine (this computer)');
    expect(api.requestsOn('engines:health')).toEqual([{ engineId: 'local' }]);
  });

  it('shows an unreachable engine with the translated error and the backend message', async () => {
    api.health = {
      id: 'local',
      reachable: false,
      version: null,
      apiVersion: null,
      error: { code: 'ENGINE_PERMISSION_DENIED', message: 'connect EACCES /var/run/docker.sock' },
    };
    render(App);
    const banner = await within(await screen.findByTestId('engine-card')).findByTestId('error-banner');
    expect(banner.textContent).toContain('No permission to use the container engine.');
    expect(banner.textContent).toContain('connect EACCES /var/run/docker.sock');
  });

  it('stops a running container', async () => {
    const container = api.makeContainer();
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);

    await fireEvent.click(within(row).getByTestId('swarm-stop-button'));

    await waitFor(() => expect(api.requestsOn('swarm:stop')).toEqual([{ engineId: 'local', containerId: container.id }]));
    // After a stop the list is refetched and the stopped container no longer offers Stop.
    await waitFor(() => expect(within(row).queryByTestId('swarm-stop-button')).toBeNull());
    expect(within(row).getByText('exited')).toBeTruthy();
  });

  it('asks for confirmation in the page before removing a running container', async () => {
    const container = api.makeContainer({ state: 'running' });
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);

    await fireEvent.click(within(row).getByTestId('swarm-remove-button'));
    expect(api.requestsOn('swarm:remove')).toHaveLength(0);
    expect(row.textContent).toContain('Remove this running container?');

    await fireEvent.click(within(row).getByTestId('swarm-remove-confirm-button'));
    await waitFor(() =>
      expect(api.requestsOn('swarm:remove')).toEqual([{ engineId: 'local', containerId: container.id }]),
    );
    await waitFor(() => expect(screen.queryAllByTestId('swarm-container-row')).toHaveLength(0));
  });

  it('removes a stopped container without asking', async () => {
    const container = api.makeContainer({ state: 'exited', statusText: 'Exited (0) 1 minute ago' });
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);
    expect(within(row).queryByTestId('swarm-stop-button')).toBeNull();

    await fireEvent.click(within(row).getByTestId('swarm-remove-button'));

    expect(screen.queryByTestId('swarm-remove-confirm-button')).toBeNull();
    await waitFor(() => expect(api.requestsOn('swarm:remove')).toHaveLength(1));
  });

  it('shows a failed stop as a translated banner in the row', async () => {
    const container = api.makeContainer();
    api.containers = [container];
    api.failNext('swarm:stop', { code: 'ENGINE_UNREACHABLE', message: 'connect ENOENT /var/run/docker.sock' });
    render(App);
    const row = await rowFor(container.id);

    await fireEvent.click(within(row).getByTestId('swarm-stop-button'));

    const banner = await within(row).findByTestId('error-banner');
    expect(banner.textContent).toContain('The container engine is not reachable.');
    expect(banner.textContent).toContain('connect ENOENT /var/run/docker.sock');
  });

  it('shows the Docker state translated, keeping the raw state in data-state', async () => {
    const running = api.makeContainer({ state: 'running' });
    const exited = api.makeContainer({ state: 'exited', statusText: 'Exited (137) 1 minute ago' });
    api.containers = [running, exited];
    api.settingsValue.language = 'zh-CN';
    render(App);

    const exitedRow = await rowFor(exited.id);
    const state = within(exitedRow).getByTestId('swarm-container-state');
    await waitFor(() => expect(state.textContent).toBe('已退出'));
    expect(state.dataset.state).toBe('exited');
    const runningState = within(await rowFor(running.id)).getByTestId('swarm-container-state');
    expect(runningState.textContent).toBe('运行中');
    expect(runningState.dataset.state).toBe('running');
  });

  it('frames the monitor\'s last error with a translated label', async () => {
    const container = api.makeContainer();
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);
    await waitFor(() => expect(api.listenerCount('fleet:state-changed')).toBe(1));

    api.emit('swarm:status', makeStatus(container.id, { connection: 'unreachable', lastError: 'connect ECONNREFUSED' }));
    const lastError = await within(row).findByTestId('swarm-last-error');
    expect(lastError.textContent).toBe('Last error: connect ECONNREFUSED');

    await fireEvent.click(screen.getByTestId('nav-settings'));
    await fireEvent.change(await screen.findByTestId('settings-language-select'), { target: { value: 'zh-CN' } });
    await fireEvent.click(screen.getByTestId('nav-servers'));
    const translated = await within(await rowFor(container.id)).findByTestId('swarm-last-error');
    await waitFor(() => expect(translated.textContent).toBe('最近错误： connect ECONNREFUSED'));
  });

  it('shows why a server stopped on its own (exit kind and explaining lines), and no engine any more', async () => {
    const container = api.makeContainer();
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);
    await waitFor(() => expect(api.listenerCount('fleet:state-changed')).toBe(1));

    const log = { lines: ['RuntimeError: boom'], explains: true };
    api.emit('swarm:status', makeStatus(container.id, { connection: 'stopped', engineStatus: null, exit: { kind: 'crashed', code: 3, finishedAt: null, log } }));
    await waitFor(() => expect(within(row).getByTestId('swarm-connection').textContent).toBe('stopped'));
    expect(within(row).queryByTestId('swarm-engine-status')).toBeNull();
    expect(within(row).queryByTestId('swarm-last-error')).toBeNull();
    const exit = within(row).getByTestId('swarm-exit');
    expect(exit.textContent).toContain('Crashed (exit code 3).');
    expect(within(exit).getByTestId('swarm-exit-log').textContent).toBe('RuntimeError: boom');
  });
});
