import { flushSync } from 'svelte';
import { waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { EngineListState } from '../../renderer/src/lib/state/engines.svelte';
import { ServersState } from '../../renderer/src/lib/state/servers.svelte';
import { FakeApi, makeServerView } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
});

describe('ServersState', () => {
  it('loads the list, then follows servers:changed snapshots; the teardown unsubscribes', async () => {
    api.serverViews = [makeServerView({ id: 'a', label: 'a' })];
    const state = new ServersState(api);
    const stop = state.start();
    await waitFor(() => expect(state.loaded).toBe(true));
    expect(state.items.map((v) => v.profile.id)).toEqual(['a']);
    expect(api.listenerCount('servers:changed')).toBe(1);

    api.serverViews = [makeServerView({ id: 'a', label: 'a' }, { state: 'up' }), makeServerView({ id: 'b', label: 'b' })];
    api.pushServers();
    expect(state.items.map((v) => [v.profile.id, v.state])).toEqual([
      ['a', 'up'],
      ['b', 'disconnected'],
    ]);

    stop();
    expect(api.listenerCount('servers:changed')).toBe(0);
  });

  it('keeps a snapshot event that arrived while servers:list ran: the older answer does not overwrite it', async () => {
    api.serverViews = [makeServerView({ id: 'a' }, { state: 'disconnected' })];
    const release = api.hold('servers:list');
    const state = new ServersState(api);
    state.start();
    api.emit('servers:changed', [makeServerView({ id: 'a' }, { state: 'up' })]);
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(state.items[0]?.state).toBe('up');
  });

  it('keeps a snapshot event newer than an action answer: connect answers "connecting", the event says "up"', async () => {
    api.serverViews = [makeServerView({ id: 'a' })];
    const state = new ServersState(api);
    state.start();
    await waitFor(() => expect(state.loaded).toBe(true));
    const release = api.hold('servers:connect');
    const connecting = state.connect('a');
    api.emit('servers:changed', [makeServerView({ id: 'a' }, { state: 'up' })]);
    release();
    expect(await connecting).toBe(true);
    expect(state.items[0]?.state).toBe('up');
  });

  it('keeps each action error on its server for display, and sends nothing twice while one runs', async () => {
    api.serverViews = [makeServerView({ id: 'a' }), makeServerView({ id: 'b' })];
    const state = new ServersState(api);
    state.start();
    await waitFor(() => expect(state.loaded).toBe(true));

    api.failNext('servers:connect', { code: 'SSH_AUTH_FAILED', message: 'All configured authentication methods failed' });
    const release = api.hold('servers:connect');
    const first = state.connect('a');
    flushSync();
    expect(state.busy.a).toBe('connect');
    expect(await state.connect('a')).toBe(false);
    release();
    expect(await first).toBe(false);
    expect(api.requestsOn('servers:connect')).toEqual([{ serverId: 'a' }]);
    expect(state.errors.a?.code).toBe('SSH_AUTH_FAILED');
    expect(state.errors.b).toBeUndefined();
    expect(state.busy.a).toBeUndefined();

    state.dismissError('a');
    expect(state.errors.a).toBeUndefined();
  });

  it('sends a prompt answer (or null) with its prompt id and keeps no copy of it', async () => {
    api.serverViews = [makeServerView({ id: 'a' }, { prompt: { promptId: 'p1', serverId: 'a', kind: 'password', prompt: 'alice@gpu', echo: false } })];
    const state = new ServersState(api);
    state.start();
    await waitFor(() => expect(state.loaded).toBe(true));
    expect(await state.answerPrompt('a', 'p1', 's3cret')).toBe(true);
    expect(await state.answerPrompt('a', 'p1', null)).toBe(true);
    expect(api.requestsOn('servers:answer-prompt')).toEqual([
      { promptId: 'p1', value: 's3cret' },
      { promptId: 'p1', value: null },
    ]);
    const kept = { items: state.items, busy: state.busy, errors: state.errors, diagnostics: state.diagnostics };
    expect(JSON.stringify(kept)).not.toContain('s3cret');
  });

  it('adds, updates, tests and removes servers through the api', async () => {
    const state = new ServersState(api);
    state.start();
    await waitFor(() => expect(state.loaded).toBe(true));
    const profile = makeServerView({ label: 'box' }).profile;
    const { id: _id, ...input } = profile;
    const added = await state.add(input);
    expect('view' in added && added.view.profile.id).toBe('box');
    expect(state.items.map((v) => v.profile.label)).toEqual(['box']);

    const updated = await state.update('box', { ...input, port: 2222 });
    expect('view' in updated && updated.view.profile.port).toBe(2222);
    expect(state.items[0]?.profile.port).toBe(2222);

    const report = await state.test('box');
    expect(report?.stages).toHaveLength(7);
    expect(state.diagnostics.box).toEqual(report);

    expect(await state.remove('box')).toBe(true);
    expect(state.items).toEqual([]);
    expect(state.diagnostics.box).toBeUndefined();
  });

  it('returns the add error for the form (SERVER_EXISTS) without touching the list', async () => {
    const state = new ServersState(api);
    state.start();
    await waitFor(() => expect(state.loaded).toBe(true));
    api.failNext('servers:add', { code: 'SERVER_EXISTS', message: 'a server named box exists' });
    const { id: _id, ...input } = makeServerView({ label: 'box' }).profile;
    const outcome = await state.add(input);
    expect('error' in outcome && outcome.error.code).toBe('SERVER_EXISTS');
    expect(state.items).toEqual([]);
  });

  it('refetches the list when an action meets SERVER_NOT_FOUND (removed in another window)', async () => {
    api.serverViews = [makeServerView({ id: 'a' })];
    const state = new ServersState(api);
    state.start();
    await waitFor(() => expect(state.loaded).toBe(true));
    api.serverViews = [];
    api.failNext('servers:connect', { code: 'SERVER_NOT_FOUND', message: 'no server a' });
    await state.connect('a');
    expect(state.items).toEqual([]);
    expect(api.requestsOn('servers:list')).toHaveLength(2);
  });

  it('reads ~/.ssh/config on demand and keeps its error', async () => {
    const state = new ServersState(api);
    api.failNext('servers:ssh-config', { code: 'SSH_CONFIG_INVALID', message: '/home/u/.ssh/config line 3' });
    await state.loadSshConfig();
    expect(state.sshConfigError?.code).toBe('SSH_CONFIG_INVALID');
    await state.loadSshConfig();
    expect(state.sshConfigError).toBeNull();
    expect(state.sshConfig?.path).toBe('/home/u/.ssh/config');
  });
});

describe('EngineListState', () => {
  it('refetches engines:list on engines:changed, so a new server engine appears; the teardown unsubscribes', async () => {
    const engines = new EngineListState(api);
    const stop = engines.start();
    await waitFor(() => expect(engines.items.map((e) => e.id)).toEqual(['local']));
    api.engineList.push({ id: 'ssh-box', kind: 'ssh-docker', label: 'box', endpoint: 'ssh://alice@box:22' });
    api.emit('engines:changed', {});
    await waitFor(() => expect(engines.items.map((e) => e.id)).toEqual(['local', 'ssh-box']));
    stop();
    expect(api.listenerCount('engines:changed')).toBe(0);
  });
});

describe('ServersState while an action waits for the user', () => {
  it('sends a prompt answer and a host-key decision while the connect or test that asked still runs', async () => {
    api.serverViews = [makeServerView({ id: 'a' })];
    const state = new ServersState(api);
    state.start();
    await waitFor(() => expect(state.loaded).toBe(true));
    const releaseTest = api.hold('servers:test');
    const releaseConnect = api.hold('servers:connect');
    const testing = state.test('a');
    const connecting = state.connect('a');
    expect(await state.answerPrompt('a', 'p1', 'pw')).toBe(true);
    expect(state.busy.a).toBe('connect');
    releaseConnect();
    await connecting;
    // The test still runs, and the card says so.
    expect(state.busy.a).toBe('test');
    expect(await state.trustHostKey('a', 'SHA256:' + 'x'.repeat(43))).toBe(true);
    releaseTest();
    await testing;
    expect(api.requestsOn('servers:answer-prompt')).toEqual([{ promptId: 'p1', value: 'pw' }]);
    expect(api.requestsOn('servers:trust-host-key')).toHaveLength(1);
    expect(api.requestsOn('servers:test')).toHaveLength(1);
    expect(state.busy.a).toBeUndefined();
  });
});
