import { beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@testing-library/svelte';
import { SwarmStatuses } from '../../renderer/src/lib/state/swarm-statuses.svelte';
import { FakeApi, makeStatus } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
});

// In the browser host `fleet:states` answers over HTTP and events come over the socket: an event may
// arrive before a list that was taken earlier. These tests hand the store such a late, older list.
describe('SwarmStatuses: a list that arrives after newer events', () => {
  it('keeps a server an event announced while the list was on its way, though the list lacks it', async () => {
    const olderList = api.serverStates.all(); // taken before the server existed
    api.answer('fleet:states', () => olderList);
    const release = api.hold('fleet:states');
    const statuses = new SwarmStatuses(api);
    statuses.start();

    const container = api.makeContainer({ id: 'dry-run', state: 'running' });
    api.containers.push(container);
    api.emit('swarm:status', makeStatus(container.id, { connection: 'online' }));
    expect(statuses.server('local', 'dry-run')?.status?.connection).toBe('online');

    release();
    await waitFor(() => expect(statuses.serversLoaded).toBe(true));
    expect(statuses.server('local', 'dry-run')?.status?.connection).toBe('online');
  });

  it('does not bring back a server an event removed while the list was on its way', async () => {
    const container = api.makeContainer({ id: 'gone', state: 'running' });
    api.containers.push(container);
    api.statusList = [makeStatus(container.id)];
    const olderList = api.serverStates.all(); // taken while the server still ran
    expect(olderList.map((s) => s.key)).toEqual(['local:gone']);
    api.answer('fleet:states', () => olderList);
    const release = api.hold('fleet:states');
    const statuses = new SwarmStatuses(api);
    statuses.start();

    api.emit('fleet:state-removed', { key: 'local:gone', engineId: 'local', containerId: 'gone' });
    release();
    await waitFor(() => expect(statuses.serversLoaded).toBe(true));
    expect(statuses.server('local', 'gone')).toBeUndefined();
  });

  it('still drops a server the list lacks when no event spoke of it (removed while the page was away)', async () => {
    api.containers.push(api.makeContainer({ id: 'old', state: 'running' }));
    const statuses = new SwarmStatuses(api);
    statuses.putServer(api.serverStates.all()[0]!);
    expect(statuses.server('local', 'old')).toBeDefined();
    api.containers = [];
    statuses.start();
    await waitFor(() => expect(statuses.serversLoaded).toBe(true));
    expect(Object.keys(statuses.servers)).toEqual([]);
  });
});
