import { afterEach, describe, expect, it } from 'vitest';
import type { ContainerEvent } from '../../../electron/services/engines/container-engine';
import { EventHub } from '../../../electron/services/events';
import { SwarmMonitor, type SwarmMonitorOptions, type WatchTarget } from '../../../electron/services/swarm/swarm-monitor';
import type { SwarmStatus } from '../../../electron/shared/schemas';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../../fixtures/fake-swarm/server.mjs';
import { freePort, waitForEvent } from '../../support/helpers';
import { upstreamJob } from '../../support/job-yaml';

// The monitor against the protocol-faithful fake swarm server (a test double, in-process here).
// The fake's log lines stand in for the container log, with the time each was written.
describe('SwarmMonitor', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  type Log = { at: number; line: string }[];

  function monitorFor(hub: EventHub, running: () => boolean, extra: Partial<SwarmMonitorOptions> & { gone?: WatchTarget[]; log?: Log } = {}): SwarmMonitor {
    const { gone = [], log = [], ...rest } = extra;
    const monitor = new SwarmMonitor({
      events: hub,
      intervalMs: 50,
      isContainerRunning: async () => running(),
      onContainerGone: (t) => gone.push(t),
      readLog: async (_target, { tail, sinceMs }) => log.filter((l) => sinceMs === undefined || l.at >= sinceMs).map((l) => l.line).slice(-tail),
      ...rest,
    });
    cleanups.push(() => monitor.dispose());
    return monitor;
  }

  async function fake(port = 0, log?: Log, bootDelayMs = 150): Promise<FakeSwarmHandle> {
    const server = await startFakeSwarmServer({ port, bootDelayMs, ...(log ? { onLog: (line) => log.push({ at: Date.now(), line }) } : { quiet: true }) });
    cleanups.push(() => server.close());
    return server;
  }

  const post = (url: string, body: unknown = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  /** The trainer's own route: how upstream's training process moves the status. */
  const trainer = (server: FakeSwarmHandle, engine_status: string, global_step: number | null = null, engine_status_detail: string | null = null) =>
    post(`${server.url}/update_engine_status`, { engine_status, global_step, engine_status_detail });

  function record(hub: EventHub): SwarmStatus[] {
    const seen: SwarmStatus[] = [];
    hub.subscribe((channel, payload) => channel === 'swarm:status' && seen.push(payload as SwarmStatus));
    return seen;
  }

  it('follows the engine through OFFLINE, BOOTING and ROLLING, emitting only on change', async () => {
    // A boot of 1.5 s, not 0.15: on a loaded machine the polls (every 50 ms) were once late enough to miss a 150 ms
    // BOOTING (idle CI-AK: OFFLINE, then ROLLING).
    const server = await fake(0, undefined, 1500);
    const hub = new EventHub();
    const seen = record(hub);
    const monitor = monitorFor(hub, () => true);
    const target = { engineId: 'local', containerId: 'a'.repeat(64), url: server.url };

    const offline = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.OFFLINE');
    monitor.watch(target);
    expect(seen[0]).toMatchObject({ connection: 'starting', engineStatus: null });
    await expect(offline).resolves.toMatchObject({ connection: 'online', globalStep: null, url: server.url });

    const booting = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.BOOTING', 5000);
    const rolling = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.ROLLING', 10_000);
    await post(`${server.url}/sync_train_config`, { yaml_as_string: upstreamJob('  data:\n    train_batch_size: 2\n  rollout:\n    num_repeat: 2\n') });
    await post(`${server.url}/start_engine`);
    await expect(booting).resolves.toMatchObject({ bootingSince: expect.any(String) });
    await expect(rolling).resolves.toMatchObject({ globalStep: 1, engineProblem: null, bootingSince: null });
    const statuses = seen.map((s) => s.engineStatus).filter((s, i, all) => s !== all[i - 1]);
    expect(statuses).toEqual([null, 'ENGINE.OFFLINE', 'ENGINE.BOOTING', 'ENGINE.ROLLING']);
    expect(seen.find((s) => s.engineStatus === 'ENGINE.BOOTING')?.bootingSince).toEqual(expect.any(String));
    // ~40 polls happened; unchanged readings were not re-emitted.
    expect(seen.length).toBeLessThan(8);
    expect(monitor.statuses()).toEqual([expect.objectContaining({ engineStatus: 'ENGINE.ROLLING', connection: 'online' })]);
  });

  it('asks a fresh server again within milliseconds, not after the full interval', async () => {
    const port = await freePort();
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true, { intervalMs: 1000, firstRetryMs: 20 });
    const online = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online', 5000);
    const startedAt = Date.now();
    monitor.watch({ engineId: 'local', containerId: 'f'.repeat(64), url: `http://127.0.0.1:${port}` });
    // The server listens a little after the first poll, as a container's server does.
    await new Promise((resolve) => setTimeout(resolve, 120));
    await fake(port);
    await online;
    // Retries at 0, 20, 60, 140, 300 ms: answered well before the 1 s interval would have come round.
    expect(Date.now() - startedAt).toBeLessThan(700);
  });

  it('says the engine stopped while booting, with the log lines that explain it, and never "step 0"', async () => {
    const log: Log = [];
    const server = await fake(0, log);
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true, { log });
    monitor.watch({ engineId: 'local', containerId: '1'.repeat(64), url: server.url });
    await waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.OFFLINE');
    log.push({ at: Date.now() - 60_000, line: 'ERROR: an old error from before this boot' });
    const booting = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.BOOTING');
    await trainer(server, 'ENGINE.BOOTING');
    await booting;
    // What upstream's trainer leaves in the log and posts when it dies while booting (no GPU).
    log.push({ at: Date.now(), line: 'Traceback (most recent call last):' });
    log.push({ at: Date.now(), line: '  File "/workspace/ajet/backbone/main_verl.py", line 12, in <module>' });
    log.push({ at: Date.now(), line: '    import vllm' });
    log.push({ at: Date.now(), line: "ModuleNotFoundError: No module named 'vllm'" });
    const failed = waitForEvent(hub, 'swarm:status', (s) => s.engineProblem?.kind === 'boot-failed');
    await trainer(server, 'ENGINE.OFFLINE', 0);
    const status = await failed;
    expect(status).toMatchObject({ engineStatus: 'ENGINE.OFFLINE', globalStep: null, lastGlobalStep: null, bootingSince: null });
    expect(status.engineProblem?.log).toEqual({
      lines: ['File "/workspace/ajet/backbone/main_verl.py", line 12, in <module>', "ModuleNotFoundError: No module named 'vllm'"],
      explains: true,
    });
    // It stays explained while the engine stays OFFLINE.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(monitor.statuses()[0]?.engineProblem?.kind).toBe('boot-failed');
    // A new boot clears it.
    const again = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.BOOTING');
    await trainer(server, 'ENGINE.BOOTING');
    expect((await again).engineProblem).toBeNull();
  });

  it('goes on polling when the log cannot be read because the engine was removed meanwhile (a throw, not a rejection)', async () => {
    const server = await fake();
    const hub = new EventHub();
    const warned: unknown[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    cleanups.push(() => void process.off('unhandledRejection', onUnhandled));
    // As create-monitor's readLog did: engines.get throws ENGINE_NOT_FOUND before any promise exists.
    const monitor = monitorFor(hub, () => true, {
      readLog: () => {
        throw new Error('No engine with id "gone".');
      },
      logger: { warn: (...args: unknown[]) => void warned.push(args) },
    });
    monitor.watch({ engineId: 'gone', containerId: '2'.repeat(64), url: server.url });
    await waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.OFFLINE');
    // BOOTING reads the log every bootLogEveryMs: each read throws; the status still follows the engine.
    const booting = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.BOOTING');
    await trainer(server, 'ENGINE.BOOTING');
    await booting;
    const rolling = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.ROLLING');
    await trainer(server, 'ENGINE.ROLLING', 1);
    await rolling;
    expect(unhandled).toEqual([]);
    expect(warned).toEqual([]);
  });

  it('points at the log errors of a boot stuck in BOOTING, and at a boot that lasts too long', async () => {
    const log: Log = [];
    const server = await fake(0, log);
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true, { log, bootWarnAfterMs: 400, bootLogEveryMs: 50 });
    monitor.watch({ engineId: 'local', containerId: '2'.repeat(64), url: server.url });
    await waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.OFFLINE');
    const slow = waitForEvent(hub, 'swarm:status', (s) => s.engineProblem?.kind === 'boot-slow', 5000);
    await trainer(server, 'ENGINE.BOOTING');
    const slowStatus = await slow;
    expect(slowStatus.engineStatus).toBe('ENGINE.BOOTING');
    expect(Date.now() - Date.parse(slowStatus.bootingSince ?? '')).toBeGreaterThanOrEqual(400);
    expect(slowStatus.engineProblem?.log.explains).toBe(false);

    const errors = waitForEvent(hub, 'swarm:status', (s) => s.engineProblem?.kind === 'boot-errors', 5000);
    log.push({ at: Date.now(), line: '2026-12-02 10:00:00.000 | ERROR    | ajet.utils.launch_utils:88 - Failed to start Ray: no GPU found' });
    const errorStatus = await errors;
    expect(errorStatus.engineProblem?.log).toEqual({ lines: [expect.stringContaining('Failed to start Ray: no GPU found')], explains: true });
    expect(errorStatus.bootingSince).toBe(slowStatus.bootingSince);
  });

  it('shows the step and detail kept after stop_engine as history, and a restarted monitor does too', async () => {
    const server = await fake();
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true);
    const target = { engineId: 'local', containerId: '3'.repeat(64), url: server.url };
    monitor.watch(target);
    const rolling = waitForEvent(hub, 'swarm:status', (s) => s.globalStep === 5);
    await trainer(server, 'ENGINE.ROLLING', 5, 'epoch 2');
    await expect(rolling).resolves.toMatchObject({ engineStatusDetail: 'epoch 2', lastGlobalStep: null });
    const stopped = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.OFFLINE');
    await post(`${server.url}/stop_engine`);
    expect(server.state.globalStep).toBe(5); // upstream keeps it (appendix point 7)
    await expect(stopped).resolves.toMatchObject({
      globalStep: null,
      engineStatusDetail: null,
      lastGlobalStep: 5,
      lastEngineStatusDetail: 'epoch 2',
      engineProblem: null,
    });

    const hub2 = new EventHub();
    const fresh = monitorFor(hub2, () => true);
    const first = waitForEvent(hub2, 'swarm:status', (s) => s.engineStatus !== null);
    fresh.watch(target);
    await expect(first).resolves.toMatchObject({ engineStatus: 'ENGINE.OFFLINE', globalStep: null, lastGlobalStep: 5 });
  });

  it('keeps the step reached when a crashing trainer posts OFFLINE with step 0, and explains the end', async () => {
    const log: Log = [];
    const server = await fake(0, log);
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true, { log });
    monitor.watch({ engineId: 'local', containerId: '4'.repeat(64), url: server.url });
    const rolling = waitForEvent(hub, 'swarm:status', (s) => s.globalStep === 7);
    await trainer(server, 'ENGINE.ROLLING', 7);
    await rolling;
    log.push({ at: Date.now(), line: 'torch.OutOfMemoryError: CUDA out of memory.' });
    const ended = waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.OFFLINE');
    await trainer(server, 'ENGINE.OFFLINE', 0);
    await expect(ended).resolves.toMatchObject({
      globalStep: null,
      lastGlobalStep: 7,
      engineProblem: { kind: 'engine-ended', log: { lines: ['torch.OutOfMemoryError: CUDA out of memory.'], explains: true } },
    });
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

  it('says stopped without any engine status once the container is gone, and keeps why it ended', async () => {
    const server = await fake();
    const hub = new EventHub();
    const gone: WatchTarget[] = [];
    let running = true;
    const monitor = monitorFor(hub, () => running, {
      gone,
      describeExit: async () => ({ kind: 'crashed', code: 3, finishedAt: new Date().toISOString(), log: { lines: ['RuntimeError: boom'], explains: true } }),
    });
    const target = { engineId: 'local', containerId: 'c'.repeat(64), url: server.url };
    monitor.watch(target);
    await waitForEvent(hub, 'swarm:status', (s) => s.engineStatus === 'ENGINE.OFFLINE');
    const stopped = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'stopped');
    running = false;
    await server.close();
    const status = await stopped;
    expect(status).toMatchObject({ engineStatus: null, globalStep: null, lastGlobalStep: null, engineProblem: null, exit: { kind: 'crashed', code: 3 } });
    expect(gone).toEqual([target]);
    expect(monitor.isWatching('local', target.containerId)).toBe(false);
    // Served with the statuses until the container is removed, so a reloaded page still says why.
    expect(monitor.statuses()).toEqual([expect.objectContaining({ containerId: target.containerId, exit: expect.objectContaining({ code: 3 }) })]);
    monitor.forget('local', target.containerId);
    expect(monitor.statuses()).toEqual([]);
  });

  it('ends a watch at once on a `die` event, long before the next poll, and a stop on request still says stopped', async () => {
    const server = await fake();
    const hub = new EventHub();
    let emit: ((engineId: string, event: ContainerEvent) => void) | null = null;
    let unsubscribed = false;
    let requestedSeen = false;
    const monitor = monitorFor(hub, () => true, {
      // A minute between polls: only the event can end the watch quickly.
      intervalMs: 60_000,
      subscribeEvents: (onEvent) => {
        emit = onEvent;
        return () => (unsubscribed = true);
      },
      describeExit: async (_target, requested) => {
        requestedSeen ||= requested;
        return { kind: requested ? 'stopped' : 'killed', code: 137, finishedAt: new Date().toISOString(), log: { lines: [], explains: false }, tail: ['last words'] };
      },
    });
    const target = { engineId: 'local', containerId: 'e'.repeat(64), url: server.url };
    monitor.watch(target);
    await waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online');
    const stopped = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'stopped', 2000);
    // Another container's event changes nothing.
    emit!('local', { containerId: 'f'.repeat(64), action: 'die', exitCode: 1, at: Date.now(), labels: {} });
    emit!('local', { containerId: target.containerId, action: 'die', exitCode: 137, at: Date.now(), labels: {} });
    await expect(stopped).resolves.toMatchObject({ exit: { kind: 'killed', code: 137, tail: ['last words'] } });
    expect(monitor.isWatching('local', target.containerId)).toBe(false);
    // The app's own stop returns after the event: the status is corrected to a stop on request.
    const corrected = waitForEvent(hub, 'swarm:status', (s) => s.exit?.kind === 'stopped', 2000);
    await monitor.unwatch('local', target.containerId);
    await corrected;
    expect(requestedSeen).toBe(true);
    // Removed (`docker rm -f` sends die, then destroy): nothing about it is kept.
    expect(monitor.statuses().map((st) => st.containerId)).toEqual([target.containerId]);
    emit!('local', { containerId: target.containerId, action: 'destroy', exitCode: null, at: Date.now(), labels: {} });
    await expect.poll(() => monitor.statuses()).toEqual([]);
    monitor.dispose();
    expect(unsubscribed).toBe(true);
  });

  it('drops the row of a container destroyed after its die event, also when destroy comes while its exit is being read', async () => {
    const server = await fake();
    const hub = new EventHub();
    let emit: ((engineId: string, event: ContainerEvent) => void) | null = null;
    let release: (() => void) | null = null;
    const monitor = monitorFor(hub, () => true, {
      intervalMs: 60_000,
      subscribeEvents: (onEvent) => {
        emit = onEvent;
        return () => undefined;
      },
      // The first exit is read slowly, so the destroy event of the first container arrives meanwhile.
      describeExit: async (target) => {
        if (target.containerId === 'a'.repeat(64)) await new Promise<void>((resolve) => (release = resolve));
        return { kind: 'killed', code: 137, finishedAt: new Date().toISOString(), log: { lines: [], explains: false }, tail: [] };
      },
    });
    const slow = { engineId: 'local', containerId: 'a'.repeat(64), url: server.url };
    const quick = { engineId: 'local', containerId: 'b'.repeat(64), url: server.url };
    monitor.watch(slow);
    monitor.watch(quick);
    await waitForEvent(hub, 'swarm:status', (s) => s.containerId === quick.containerId && s.connection === 'online');
    // Destroyed after its exit was recorded: the kept row goes.
    emit!('local', { containerId: quick.containerId, action: 'die', exitCode: 137, at: Date.now(), labels: {} });
    await waitForEvent(hub, 'swarm:status', (s) => s.containerId === quick.containerId && s.connection === 'stopped', 2000);
    expect(monitor.statuses().map((s) => s.containerId)).toContain(quick.containerId);
    emit!('local', { containerId: quick.containerId, action: 'destroy', exitCode: null, at: Date.now(), labels: {} });
    expect(monitor.statuses().map((s) => s.containerId)).not.toContain(quick.containerId);
    // Destroyed while its exit is read: announced once as stopped, then no row.
    const stopped = waitForEvent(hub, 'swarm:status', (s) => s.containerId === slow.containerId && s.connection === 'stopped', 2000);
    emit!('local', { containerId: slow.containerId, action: 'die', exitCode: 137, at: Date.now(), labels: {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    emit!('local', { containerId: slow.containerId, action: 'destroy', exitCode: null, at: Date.now(), labels: {} });
    release!();
    await expect(stopped).resolves.toMatchObject({ exit: { code: 137 } });
    expect(monitor.statuses().map((s) => s.containerId)).not.toContain(slow.containerId);
    monitor.dispose();
  });

  it('keys statuses by engine and container: the same id on two engines is two servers', async () => {
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true, { describeExit: async () => null });
    const url = `http://127.0.0.1:${await freePort()}`;
    monitor.watch({ engineId: 'local', containerId: '12345', url });
    monitor.watch({ engineId: 'slurm-a', containerId: '12345', url });
    expect(monitor.statuses().map((s) => s.engineId).sort()).toEqual(['local', 'slurm-a']);
    await monitor.unwatch('slurm-a', '12345');
    expect(monitor.isWatching('local', '12345')).toBe(true);
    expect(monitor.isWatching('slurm-a', '12345')).toBe(false);
  });

  it('never sends "unreachable" after "stopped" when the user stops during a failed poll', async () => {
    const hub = new EventHub();
    const seen = record(hub);
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
    await monitor.unwatch('local', containerId);
    answer(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The running check hangs: an overdue answer (start grace 0) may say "unreachable" without waiting for it
    // (whether before the stop depends on which timer runs first); nothing comes after "stopped".
    const connections = seen.map((s) => s.connection);
    expect(connections.slice(connections.indexOf('stopped'))).toEqual(['stopped']);
    expect(connections.filter((c) => c !== 'unreachable')).toEqual(['starting', 'stopped']);
  });

  it('stays "starting" during the grace period, then says unreachable', async () => {
    const hub = new EventHub();
    const monitor = monitorFor(hub, () => true, { startGraceMs: 300 });
    const unreachable = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'unreachable', 5000);
    const startedAt = Date.now();
    monitor.watch({ engineId: 'local', containerId: 'd'.repeat(64), url: `http://127.0.0.1:${await freePort()}` });
    await unreachable;
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
  });
});
