import { describe, expect, it } from 'vitest';
import { waitFor } from '@testing-library/svelte';
import { ContainerListState } from '../../renderer/src/lib/state/containers.svelte';
import { FakeApi } from './fake-api';

// A Remove reloads the list and then moves focus to what is still there. The change event of the same removal starts
// a refetch too; when that newer list overtakes the Remove's own reload, the older answer is dropped, and the Remove
// must still resolve only once the list no longer shows the row (accessibility.spec's focus case failed at load 20).
describe('ContainerListState: an action whose reload was overtaken by a newer one', () => {
  it("resolves a Remove only once the newer list, without the removed row, is shown", async () => {
    const api = new FakeApi();
    const removed = api.makeContainer({ id: 'gone1', state: 'exited' });
    api.containers.push(removed);
    const list = new ContainerListState(api, 'local');
    await list.load();
    expect(list.items.map((c) => c.id)).toEqual(['gone1']);

    const releaseOwn = api.hold('swarm:list');
    const removing = list.remove(removed);
    // The Remove's own reload is on its way once its busy flag is cleared.
    await waitFor(() => expect(list.busy['gone1']).toBeUndefined());
    const releaseNewer = api.hold('swarm:list');
    void list.load(); // the refetch the removal's change event started
    releaseOwn();

    let settled = false;
    void removing.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled, 'resolved while the newer list was still on its way').toBe(false);
    expect(list.items.map((c) => c.id)).toEqual(['gone1']);

    releaseNewer();
    expect(await removing).toBe(true);
    expect(list.items).toEqual([]);
  });
});
