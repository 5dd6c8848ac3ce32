import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PageVisibility } from '../../../../electron/services/app/visibility';
import { EventHub } from '../../../../electron/services/events';
import { SwarmMonitor, type SwarmMonitorOptions } from '../../../../electron/services/swarm/swarm-monitor';
import { SeriesStore } from '../../../../electron/services/training/series-store';
import { TrainingMonitor } from '../../../../electron/services/training/training-monitor';
import { startFakeSwarmServer } from '../../../fixtures/fake-swarm/server.mjs';
import { freePort, poll, waitForEvent } from '../../../support/helpers';

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The watch budget counted where it is spent: at the swarm server (the protocol-faithful fake, a test double).
describe('one watcher per swarm server', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function monitor(hub: EventHub, options: Partial<SwarmMonitorOptions> = {}): SwarmMonitor {
    const m = new SwarmMonitor({ events: hub, intervalMs: 100, hiddenIntervalMs: 400, isContainerRunning: async () => true, ...options });
    cleanups.push(() => m.dispose());
    return m;
  }

  it('asks only /get_engine_status, on one keep-alive connection, slower while no page is shown and at once when one is', async () => {
    const asked: { path: string; at: number }[] = [];
    const sockets = new Set<unknown>();
    const server = await startFakeSwarmServer({ port: 0, quiet: true, onRequest: (_m, path, socket) => (asked.push({ path, at: Date.now() }), sockets.add(socket)) });
    cleanups.push(() => server.close());
    const hub = new EventHub();
    const visibility = new PageVisibility();
    cleanups.push(() => visibility.dispose());
    const watcher = monitor(hub, { visibility, hiddenIntervalMs: 1000 });
    // The training monitor follows the same server: it adds no request while no dashboard is shown.
    const dir = await mkdtemp(join(tmpdir(), 'watch-budget-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const training = new TrainingMonitor({ events: hub, notifier: { notify: () => undefined }, store: new SeriesStore(dir), logger: silent, intervalMs: 200, isShown: () => false });
    training.follow(watcher);
    cleanups.push(() => training.dispose());

    watcher.watch({ engineId: 'local', containerId: 'a'.repeat(64), url: server.url });
    await waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online');
    // Paces, not speed: a loaded machine makes every gap longer (CI-Z counted 5 polls in a second paced at 100 ms), never
    // shorter, so each bound below is a lower bound on gaps or a comparison of the two paces.
    const gaps = (from: number) => asked.slice(from).slice(1).map((a, i) => a.at - asked[from + i]!.at);
    asked.length = 0;
    await poll('three polls while no page is shown', 15_000, async () => (asked.length >= 3 ? true : undefined));
    // No page: every 1,000 ms, all /get_engine_status; the training monitor asked nothing itself.
    const hidden = gaps(0);
    expect(Math.min(...hidden), `gaps ${hidden.join(', ')} ms`).toBeGreaterThanOrEqual(900);
    expect(new Set(asked.map((a) => a.path))).toEqual(new Set(['/get_engine_status']));

    const shownFrom = asked.length;
    const shownAt = Date.now();
    visibility.report('page-under-test', true);
    await poll('a poll right after the page was shown', 2000, async () => (asked.length > shownFrom ? true : undefined), 5);
    // At once, not at the hidden pace's next turn.
    expect(asked[shownFrom]!.at - shownAt).toBeLessThan(500);
    await poll('seven polls while a page is shown', 15_000, async () => (asked.length >= shownFrom + 7 ? true : undefined));
    const shown = gaps(shownFrom);
    // Every 100 ms now: never faster, and far faster than while hidden.
    expect(Math.min(...shown), `gaps ${shown.join(', ')} ms`).toBeGreaterThanOrEqual(90);
    expect([...shown].sort((a, b) => a - b)[Math.floor(shown.length / 2)], `gaps ${shown.join(', ')} ms`).toBeLessThan(500);
    // Dozens of requests, a connection or two: keep-alive.
    expect(sockets.size).toBeLessThanOrEqual(3);
  });

  it('hands the monitor\'s reading to the tunnel probe and the training monitor instead of a second request', async () => {
    const server = await startFakeSwarmServer({ port: 0, quiet: true });
    cleanups.push(() => server.close());
    const hub = new EventHub();
    const watcher = monitor(hub);
    const target = { engineId: 'local', containerId: 'b'.repeat(64), url: server.url };
    const seen: string[] = [];
    watcher.onReading((r) => seen.push(r.engine?.engineStatus ?? 'none'));
    watcher.watch(target);
    await waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online');
    expect(seen[0]).toBe('ENGINE.OFFLINE');
    expect(watcher.latestForUrl(`${server.url}/`)).toMatchObject({ engine: { engineStatus: 'ENGINE.OFFLINE' }, latencyMs: expect.any(Number) });
    expect(watcher.latestForUrl('http://127.0.0.1:1')).toBeNull();
    expect(watcher.statuses()[0]).toMatchObject({ via: 'direct', confirmedAt: expect.any(String) });
  });

  it('asks again at once when the server is found again (its SSH session or tunnel is back), not after the backoff', async () => {
    const port = await freePort();
    const hub = new EventHub();
    const watcher = monitor(hub, { intervalMs: 100, maxBackoffMs: 60_000, startGraceMs: 0 });
    const target = { engineId: 'ssh-gpu', containerId: 'd'.repeat(64), url: `http://127.0.0.1:${port}` };
    watcher.watch(target);
    await waitForEvent(hub, 'swarm:status', (s) => s.connection === 'unreachable');
    // Nobody listens: after a few failures the waits double (0.2 s, 0.4 s, … up to a minute).
    await sleep(1500);
    const asked: number[] = [];
    const server = await startFakeSwarmServer({ port, quiet: true, onRequest: () => asked.push(Date.now()) });
    cleanups.push(() => server.close());
    const foundAt = Date.now();
    const online = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online', 5000);
    watcher.watch(target); // what resumeWatching does when the engine reports it reconnected
    await online;
    expect(asked[0]! - foundAt).toBeLessThan(300);
  });

  it('polls a container reached through two engines (local Docker and SSH to the same daemon) once, through the direct URL', async () => {
    const direct: number[] = [];
    const tunnel: number[] = [];
    // Two doors to one server: the local port and (standing in for the SSH tunnel's local end) a second fake.
    const local = await startFakeSwarmServer({ port: 0, quiet: true, onRequest: () => direct.push(Date.now()) });
    const viaTunnel = await startFakeSwarmServer({ port: 0, quiet: true, onRequest: () => tunnel.push(Date.now()) });
    cleanups.push(() => local.close(), () => viaTunnel.close());
    const hub = new EventHub();
    const watcher = monitor(hub, { viaOf: (t) => (t.engineId.startsWith('ssh-') ? 'ssh-tunnel' : 'direct') });
    const id = 'f'.repeat(64);
    const readings: string[] = [];
    watcher.onReading((r) => readings.push(r.target.engineId));
    watcher.watch({ engineId: 'ssh-testbed', containerId: id, url: viaTunnel.url });
    await waitForEvent(hub, 'swarm:status', (s) => s.engineId === 'ssh-testbed' && s.connection === 'online');
    watcher.watch({ engineId: 'local', containerId: id, url: local.url });
    await waitForEvent(hub, 'swarm:status', (s) => s.engineId === 'local' && s.connection === 'online');
    await sleep(100);
    const [directBefore, tunnelBefore] = [direct.length, tunnel.length];
    await sleep(1000);
    // One poller, through the local port: about 10 polls there, none through the tunnel; both statuses and both followers fed.
    expect(direct.length - directBefore).toBeGreaterThanOrEqual(5);
    expect(tunnel.length - tunnelBefore).toBe(0);
    expect(watcher.statuses().map((s) => [s.engineId, s.connection])).toEqual([['ssh-testbed', 'online'], ['local', 'online']]);
    expect(readings.slice(-2).sort()).toEqual(['local', 'ssh-testbed']);
    // The tunnel probe does not take the local port's answer as its own.
    expect(watcher.latestForUrl(viaTunnel.url)).toBeNull();
    // The local engine's watch ends: the SSH one is polled through its tunnel again.
    await watcher.unwatch('local', id);
    await poll('polls through the tunnel again', 3000, async () => (tunnel.length > tunnelBefore ? true : undefined));
  });

  describe('a frozen link (the server process stopped with SIGSTOP: connections open, no answer)', () => {
    let child: ChildProcess | null = null;
    afterEach(() => {
      child?.kill('SIGCONT');
      child?.kill('SIGKILL');
      child = null;
    });

    it('turns unreachable when an answer is overdue, without waiting for a running check that hangs on the same link, and online at once after', async () => {
      const port = await freePort();
      const cli = resolve(import.meta.dirname, '../../../fixtures/fake-swarm/cli.mjs');
      child = spawn(process.execPath, [cli, 'start', '--swarm-port', String(port)], { stdio: 'ignore' });
      const hub = new EventHub();
      const seen: { connection: string; at: number; lastError: string | null; confirmedAt: string | null | undefined }[] = [];
      hub.subscribe((channel, payload) => {
        if (channel !== 'swarm:status') return;
        const s = payload as { connection: string; lastError: string | null; confirmedAt?: string | null };
        seen.push({ connection: s.connection, at: Date.now(), lastError: s.lastError, confirmedAt: s.confirmedAt });
      });
      let asked = 0;
      // Docker over the same frozen SSH link: the question never comes back while the link is frozen.
      const watcher = monitor(hub, {
        intervalMs: 200,
        timeoutMs: 300,
        viaOf: () => 'ssh-tunnel',
        isContainerRunning: () => {
          asked += 1;
          return new Promise<boolean>(() => undefined);
        },
      });
      watcher.watch({ engineId: 'ssh-gpu', containerId: 'c'.repeat(64), url: `http://127.0.0.1:${port}` });
      await waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online', 10_000);

      const frozenAt = Date.now();
      child.kill('SIGSTOP');
      const unreachable = await waitForEvent(hub, 'swarm:status', (s) => s.connection === 'unreachable', 5000);
      // Two intervals plus a timeout (700 ms), plus scheduling slack on a busy machine.
      expect(Date.now() - frozenAt).toBeLessThan(2000);
      expect(asked).toBeGreaterThanOrEqual(1);
      expect(unreachable.lastError).toMatch(/^ssh-tunnel link: /);
      expect(unreachable.lastError).toContain(`last answer ${unreachable.confirmedAt}`);
      expect(Date.parse(unreachable.confirmedAt ?? '')).toBeLessThanOrEqual(frozenAt);

      await sleep(1500);
      const thawedAt = Date.now();
      child.kill('SIGCONT');
      await waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online', 5000);
      // Polls kept going beside the hanging check: back within a poll or so, not after a long backoff.
      expect(Date.now() - thawedAt).toBeLessThan(1500);
      expect(seen.map((s) => s.connection).filter((c, i, all) => c !== all[i - 1])).toEqual(['starting', 'online', 'unreachable', 'online']);
    }, 120_000);
  });
});
