import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/services/events';
import { SwarmMonitor, type WatchTarget } from '../../../electron/services/swarm/swarm-monitor';
import type { SwarmStatus } from '../../../electron/shared/schemas';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../../fixtures/fake-swarm/server.mjs';
import { freePort, waitForEvent } from '../../support/helpers';

// The monitor against the protocol-faithful fake swarm server (a test double, in-process here).
describe('SwarmMonitor', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function monitorFor(hub: EventHub, running: () => boolean, gone: WatchTarget[] = [], startGraceMs?: number): SwarmMonitor {
    const monitor = new SwarmMonitor({
      events: hub,
      intervalMs: 50,
      isContainerRunning: async () => running(),
      onContainerGone: (t) => gone.push(t),
      ...(startGraceMs === undefined ? {} : { startGraceMs }),
    });
    cleanups.push(() => monitor.dispose());
    return monitor;
  }

  async function fake(): Promise<FakeSwarmHandle> {
    const server = await startFakeSwarmServer({ port: 0, bootDelayMs: 150, quiet: true });
    cleanups.push(() => server.close());
    return server;
  }

  it('follows the engine through OFFLINE, BOOTING and ROLLING, emitting only on change', async () => {
    const server = await fake();
    const hub = new EventHub();
    const seen: SwarmStatus[] = [];
    hub.subscribe((channel, payload) => channel === 'swarm:status' && seen.push(payload as SwarmStatus));
    const monitor = monitorFor(hub, () => true);
    const target = { engineId: 'local', containerId: 'a'.repeat(64), url: server.url };

    const offline = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.OFFLINE');
    monitor.watch(target);
    expect(seen[0]).toMatchObject({ connection: 'starting', engineStatus: null });
    await expect(offline).resolves.toMatchObject({ connection: 'online', globalStep: null, url: server.url });

    const rolling = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.ROLLING', 5000);
    await fetch(`${server.url}/sync_train_config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ yaml_as_string: 'ajet:\n  data:\n    train_batch_size: 2\n  rollout:\n    num_repeat: 2\n' }),
    });
    await fetch(`${server.url}/start_engine`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await rolling;
    const statuses = seen.map((s) => s.engineStatus).filter((s, i, all) => s !== all[i - 1]);
    expect(statuses).toEqual([null, 'ENGINE.OFFLINE', 'ENGINE.BOOTING', 'ENGINE.ROLLING']);
    // ~20 polls happened; unchanged readings were not re-emitted.
    expect(seen.length).toBeLessThan(8);
    expect(monitor.statuses()).toEqual([expect.objectContaining({ engineStatus: 'ENGINE.ROLLING', connection: 'online' })]);
  });

  it('reports unreachable with the reason when the server goes away but the container runs', async () => {
    const server = await fake();
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true);
    monitor.watch({ engineId: 'local', containerId: 'b'.repeat(64), url: server.url });
    await waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online');
    const down = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'unreachable');
    await server.close();
    const status = await down;
    expect(status.lastError).toMatch(/cannot connect|ECONNREFUSED/);
    expect(status.engineStatus).toBe('ENGINE.OFFLINE'); // the last known reading stays visible
  });

  it('unwatches and says stopped when the container is gone', async () => {
    const hub = new EventHub();
    const gone: WatchTarget[] = [];
    const monitor = monitorFor(hub, () => false, gone);
    const target = { engineId: 'local', containerId: 'c'.repeat(64), url: `http://127.0.0.1:${await freePort()}` };
    const stopped = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'stopped');
    monitor.watch(target);
    await stopped;
    expect(gone).toEqual([target]);
    expect(monitor.isWatching(target.containerId)).toBe(false);
  });

  it('never sends "unreachable" after "stopped" when the user stops during a failed poll', async () => {
    const hub = new EventHub();
    const seen: SwarmStatus[] = [];
    hub.subscribe((channel, payload) => channel === 'swarm:status' && seen.push(payload as SwarmStatus));
    let answer!: (running: boolean) => void;
    let asked!: () => void;
    const question = new Promise<void>((resolve) => (asked = resolve));
    const monitor = new SwarmMonitor({
      events: hub,
      intervalMs: 50,
      startGraceMs: 0,
      isContainerRunning: () => {
        asked();
        return new Promise<boolean>((resolve) => (answer = resolve));
      },
    });
    cleanups.push(() => monitor.dispose());
    const containerId = 'e'.repeat(64);
    monitor.watch({ engineId: 'local', containerId, url: `http://127.0.0.1:${await freePort()}` });
    await question; // the poll failed and is now asking whether the container still runs
    monitor.unwatch(containerId);
    answer(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.map((s) => s.connection)).toEqual(['starting', 'stopped']);
  });

  it('stays "starting" during the grace period, then says unreachable', async () => {
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true, [], 300);
    const unreachable = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'unreachable', 5000);
    const startedAt = Date.now();
    monitor.watch({ engineId: 'local', containerId: 'd'.repeat(64), url: `http://127.0.0.1:${await freePort()}` });
    await unreachable;
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
  });
});
