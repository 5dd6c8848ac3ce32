import { beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@testing-library/svelte';
import type { FleetAlert } from '../../electron/shared/schemas-fleet';
import { FleetAlerts } from '../../renderer/src/lib/state/fleet-alerts.svelte';
import { FakeApi } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
});

function alert(id: string, state: FleetAlert['state']): FleetAlert {
  return { id, rule: 'training-stalled', engineId: 'local', containerId: 'c1', name: 'gpu-box', state, openedAt: '2026-12-05T10:00:00.000Z', resolvedAt: null, detail: 'no step for 30 min' };
}

describe('FleetAlerts: the list and its event', () => {
  it('takes the list when no event came', async () => {
    api.answer('alerts:list', () => [alert('a1', 'open')]);
    const alerts = new FleetAlerts(api);
    alerts.start();
    await waitFor(() => expect(alerts.alerts.map((a) => a.id)).toEqual(['a1']));
  });

  // In the browser host the list answers over HTTP and the event comes over the socket.
  it('keeps the list an event sent while the older list was on its way', async () => {
    api.answer('alerts:list', () => [alert('a1', 'open')]);
    const release = api.hold('alerts:list');
    const alerts = new FleetAlerts(api);
    alerts.start();
    api.emit('alerts:changed', [alert('a1', 'acknowledged')]);
    release();
    await waitFor(() => expect(api.calls.filter((c) => c.channel === 'alerts:list')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alerts.alerts.map((a) => a.state)).toEqual(['acknowledged']);
  });
});
