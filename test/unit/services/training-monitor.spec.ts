import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/services/events';
import type { Notifier } from '../../../electron/services/notifier';
import type { ContainerEvent } from '../../../electron/services/engines/container-engine';
import { SwarmMonitor, type WatchTarget } from '../../../electron/services/swarm/swarm-monitor';
import { SeriesStore } from '../../../electron/services/training/series-store';
import { TrainingMonitor } from '../../../electron/services/training/training-monitor';
import type { AppNotification, TrainingView } from '../../../electron/shared/schemas-profiles';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../../fixtures/fake-swarm/server.mjs';
import { poll, waitForEvent } from '../../support/helpers';
import { upstreamJob } from '../../support/job-yaml';
import { SwarmTestClient, smallJobYaml } from '../../support/swarm-test-client';

/** TEST DOUBLE: records notifications instead of showing them. */
class RecordingNotifier implements Notifier {
  readonly shown: AppNotification[] = [];
  notify(n: AppNotification): void {
    this.shown.push(n);
  }
}

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined };

describe('TrainingMonitor', () => {
  let dir: string;
  let hub: EventHub;
  let notifier: RecordingNotifier;
  let watcher: SwarmMonitor;
  let monitor: TrainingMonitor;
  /** Whether a page shows the dashboard (training:interest). */
  let shown: boolean;
  /** Why the next container end happened (the engine's answer), and the engine's event feed. */
  let crashed: boolean;
  let sendEvent: (engineId: string, event: ContainerEvent) => void;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'training-monitor-'));
    hub = new EventHub();
    notifier = new RecordingNotifier();
    shown = false;
    crashed = false;
    const log = { lines: [], explains: false };
    // The real swarm monitor: the training monitor reads its polls, never asks /get_engine_status itself.
    watcher = new SwarmMonitor({
      events: hub,
      intervalMs: 50,
      isContainerRunning: async () => true,
      describeExit: async (_target, requested) => ({ kind: requested || !crashed ? 'stopped' : 'crashed', code: requested || !crashed ? 143 : 1, finishedAt: null, log }),
      subscribeEvents: (onEvent) => {
        sendEvent = onEvent;
        return () => undefined;
      },
    });
    monitor = new TrainingMonitor({ events: hub, notifier, store: new SeriesStore(dir), logger: silent, intervalMs: 50, timeoutMs: 1000, offlineGraceMs: 300, isShown: () => shown });
    monitor.follow(watcher);
  });

  afterEach(async () => {
    await monitor.dispose();
    watcher.dispose();
    for (const close of closers.splice(0)) await close();
    await rm(dir, { recursive: true, force: true });
  });

  async function fake(onRequest?: (method: string, path: string) => void): Promise<FakeSwarmHandle> {
    const handle = await startFakeSwarmServer({ port: 0, quiet: true, trainer: 'external', ...(onRequest ? { onRequest } : {}) });
    closers.push(() => handle.close());
    return handle;
  }

  const target = (url: string): WatchTarget => ({ engineId: 'local', containerId: 'c1', url });
  const statusIs = (status: string) => (v: TrainingView) => v.engineStatus === status;

  it('records each step a fast trainer plays while the dashboard is shown, and "not observed" for one played while it was not (never 0 episodes)', async () => {
    shown = true;
    // TEST DOUBLE trainer with a 300 ms training step (its default is 8 s).
    const swarm = await startFakeSwarmServer({ port: 0, quiet: true, trainer: 'fake', bootDelayMs: 50, weightSyncDelayMs: 300 });
    closers.push(() => swarm.close());
    watcher.watch(target(swarm.url));
    const client = new SwarmTestClient(swarm.url);
    await client.post('/sync_train_config', { yaml_as_string: smallJobYaml('/models/m') });
    await client.post('/start_engine');
    const play = async (): Promise<void> => {
      const a = await client.claim();
      const step = (await client.step()) as number;
      const b = await client.claim();
      // Every batch alike (one task, rewards 0 and 1): only the episodes' uuids tell one from the next.
      await client.end(a, 'task-0', 0);
      await client.end(b, 'task-0', 1);
      await poll(`step ${step + 1}`, 10_000, async () => ((await client.step()) === step + 1 ? true : undefined), 20);
    };
    await play();
    await play();
    shown = false;
    monitor.interestChanged();
    await new Promise((resolve) => setTimeout(resolve, 150)); // a pool answer already on its way lands first
    await play();
    shown = true;
    monitor.interestChanged();
    await play();
    const series = await poll('4 points', 10_000, async () => {
      const s = await monitor.series('local', 'c1');
      return s && s.points.length >= 4 ? s : undefined;
    });
    expect(series.points.map((p) => [p.step, p.batch, p.episodes, p.rewardMean])).toEqual([
      [1, 'pool', 2, 0.5],
      [2, 'pool', 2, 0.5],
      [3, 'unobserved', null, null],
      [4, 'pool', 2, 0.5],
    ]);
    // A step lasts its 300 ms weight sync plus the claims, and is seen to within the 50 ms status poll: at least
    // 250 ms, which the point rounds to 0.3 s. On a fast machine it is 0.3 exactly (CI 2026-12-05 saw 0.3 > 0.3 fail).
    expect(series.points[1]?.seconds).toBeGreaterThanOrEqual(0.3);
    // Four steps of 300 ms plus claims: about 3 s, more on a loaded machine.
  }, 20_000);

  it('reads the pool on the monitor\'s keep-alive connection while shown, and lists routes this server does not have', async () => {
    shown = true;
    const seen: { url: string; connection: string | undefined; socket: unknown }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', connection: req.headers.connection, socket: req.socket });
      if (req.url === '/get_engine_status') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
      } else {
        // An older server: the live status only in the pool, and no running episodes (null).
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"engine_status":"ENGINE.ROLLING","global_step":2,"running_episode_details":null}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const port = (server.address() as { port: number }).port;
    const view = waitForEvent(hub, 'training:changed', statusIs('ENGINE.ROLLING'), 5000);
    watcher.watch(target(`http://127.0.0.1:${port}`));
    expect(await view).toMatchObject({ globalStep: 2, missingRoutes: ['/get_engine_status'], runningEpisodes: [], lastError: null });
    await poll('two pool polls', 5000, async () => (seen.filter((s) => s.url.startsWith('/get_current')).length >= 2 ? true : undefined));
    expect(seen.some((s) => s.connection === 'close')).toBe(false);
    // A 404 answer leaves the socket usable: a handful of connections for dozens of requests, not one each.
    expect(new Set(seen.map((s) => s.socket)).size).toBeLessThan(seen.length);
  });

  it('asks the pool route only while a page shows the dashboard, and never asks the engine status itself', async () => {
    const asked: string[] = [];
    const swarmServer = await fake((_method, path) => asked.push(path));
    watcher.watch(target(swarmServer.url));
    await waitForEvent(hub, 'training:changed', statusIs('ENGINE.OFFLINE'), 5000);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(asked.filter((p) => p.startsWith('/get_current'))).toEqual([]);
    const statusPolls = asked.filter((p) => p === '/get_engine_status').length;
    // The swarm monitor's polls alone (50 ms): none doubled by the training monitor.
    expect(statusPolls).toBeLessThan(400 / 50 + 4);

    shown = true;
    monitor.interestChanged();
    await poll('pool polls', 5000, async () => (asked.filter((p) => p.startsWith('/get_current')).length >= 3 ? true : undefined));
    shown = false;
    monitor.interestChanged();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const poolPolls = asked.filter((p) => p.startsWith('/get_current')).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(asked.filter((p) => p.startsWith('/get_current')).length).toBe(poolPolls);
  });

  it('emits training:changed only when something besides the poll time changed', async () => {
    const swarm = await fake();
    const events: TrainingView[] = [];
    hub.subscribe((name, payload) => name === 'training:changed' && events.push(payload as TrainingView));
    watcher.watch(target(swarm.url));
    await waitForEvent(hub, 'training:changed', statusIs('ENGINE.OFFLINE'), 5000);
    await new Promise((resolve) => setTimeout(resolve, 500)); // about ten more polls of an idle server
    expect(events).toHaveLength(1);
    expect(monitor.view('local', 'c1')?.checkedAt).not.toBe(events[0]?.checkedAt);
  });

  it('says nothing about OFFLINE when the server goes away within the grace period (the app stopping it)', async () => {
    const swarm = await fake();
    const r = (path: string, body: unknown = {}) =>
      fetch(`${swarm.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((x) => x.json());
    await r('/sync_train_config', { yaml_as_string: upstreamJob('  data:\n    train_batch_size: 1\n') });
    await r('/start_engine');
    watcher.watch(target(swarm.url));
    await waitForEvent(hub, 'training:changed', statusIs('ENGINE.BOOTING'), 5000);
    await r('/update_engine_status', { engine_status: 'ENGINE.ROLLING', global_step: 1 });
    await waitForEvent(hub, 'training:changed', statusIs('ENGINE.ROLLING'), 5000);
    expect(notifier.shown.map((n) => n.kind)).toEqual(['engine-rolling']);
    // Upstream's Ctrl+C path: /stop_engine, then the process exits.
    await r('/stop_engine');
    await waitForEvent(hub, 'training:changed', statusIs('ENGINE.OFFLINE'), 5000);
    await swarm.close();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(notifier.shown.map((n) => n.kind)).toEqual(['engine-rolling']);
    expect(monitor.view('local', 'c1')?.lastError).toMatch(/cannot connect/);
  });

  it('notifies an unexpected OFFLINE after the grace period; a container that died is told by the server-state store, not here', async () => {
    const swarm = await fake();
    const r = (path: string, body: unknown = {}) =>
      fetch(`${swarm.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((x) => x.json());
    await r('/sync_train_config', { yaml_as_string: upstreamJob('  data:\n    train_batch_size: 1\n') });
    await r('/start_engine');
    watcher.watch(target(swarm.url));
    await waitForEvent(hub, 'training:changed', statusIs('ENGINE.BOOTING'), 5000);
    await r('/update_engine_status', { engine_status: 'ENGINE.ROLLING', global_step: 3 });
    await waitForEvent(hub, 'training:changed', statusIs('ENGINE.ROLLING'), 5000);
    await r('/update_engine_status', { engine_status: 'ENGINE.OFFLINE', global_step: 0 });
    const offline = await poll('the offline notification', 5000, async () => notifier.shown.find((n) => n.kind === 'engine-offline'));
    expect(offline).toMatchObject({ engineId: 'local', containerId: 'c1', title: expect.stringContaining('offline') });

    // The app's Stop, then the server runs again and crashes: the end is told once, by the server-state
    // store's EndTeller (test/unit/services/server-state), none from the training monitor.
    await watcher.unwatch('local', 'c1');
    watcher.watch(target(swarm.url));
    crashed = true;
    sendEvent('local', { containerId: 'c1', action: 'die', exitCode: 1, at: Date.now(), labels: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(notifier.shown.filter((n) => n.kind === 'container-died' || n.kind === 'server-ended')).toEqual([]);
    // The series of the ended server is still served.
    expect((await monitor.series('local', 'c1'))?.timeline.map((s) => s.status)).toEqual(['ENGINE.BOOTING', 'ENGINE.ROLLING', 'ENGINE.OFFLINE']);
  });
});
