import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServiceContext } from '../../../../electron/services/domain';
import type { Handlers } from '../../../../electron/services/ipc/handlers';
import { groupAlive } from '../../../../electron/services/jobs/process-tree';
import { registerJobs, type JobsModule } from '../../../../electron/services/jobs/register';
import type { SwarmModule } from '../../../../electron/services/swarm/register';
import { PoolStore } from '../../../../electron/services/workers/pool-store';
import { registerWorkers, type WorkersModule } from '../../../../electron/services/workers/register';
import type { AppNotification } from '../../../../electron/shared/schemas-profiles';
import { PoolStartRequest, type PoolViewData } from '../../../../electron/shared/schemas-workers';
import { MemoryVault } from '../../../support/memory-vault';

/**
 * The worker pool with local workers through the real job runner (real processes, real process
 * groups, the real pools file). The worker script is a STAND-IN for the generated agent_roll.py
 * (which needs a swarm server: the integration suite runs the real one): it prints the progress
 * line the template prints, and its share from the env, then runs until stopped.
 */
const STAND_IN = `import json, os, sys, time, uuid
u = str(uuid.uuid4())
print("share", os.environ["AGENTSWARM_WORKER_INDEX"], os.environ["AGENTSWARM_WORKER_COUNT"], os.environ["AGENTSWARM_WORKER_BATCH_SHARE"], os.environ["AJET_SWARM_URL"], file=sys.stderr, flush=True)
n = 0
while True:
    n += 3
    print("AGENTSWARM_PROGRESS " + json.dumps({"client_uuid": u, "episodes": n, "failed_episodes": 0}), file=sys.stderr, flush=True)
    time.sleep(0.15)
`;

let dir: string;
let server: Server;
let url: string;
let notifications: AppNotification[];
let running: { jobs: JobsModule; workers: WorkersModule }[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-workers-'));
  server = createServer((_req, res) => res.writeHead(200).end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  notifications = [];
  running = [];
  await writeFile(join(dir, 'agent_roll.py'), STAND_IN);
});
afterEach(async () => {
  for (const app of running.splice(0)) await closeApp(app);
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** The jobs and workers domains as the app wires them (workers disposed first, as app-services does). */
async function openApp(): Promise<{ jobs: JobsModule; workers: WorkersModule }> {
  const context = {
    dataDir: join(dir, 'data'),
    events: { emit: () => undefined },
    vault: new MemoryVault(),
    logger: { warn: () => undefined, info: () => undefined },
    notifier: { notify: (n: AppNotification) => notifications.push(n) },
  } as unknown as ServiceContext;
  const swarm = { monitor: { statuses: () => [{ engineId: 'local', containerId: 'c0ffee', url, connection: 'online' }] } } as unknown as Pick<SwarmModule, 'monitor'>;
  const jobs = registerJobs(context, { swarm, tuning: { killTimeouts: { intMs: 300, termMs: 300 }, disposeKillTimeouts: { intMs: 300, termMs: 300 }, healthTimeoutMs: 1000, logBatchMs: 20 } });
  const handlers = { ...jobs.handlers } as unknown as Handlers;
  const workers = registerWorkers(context, { jobs: jobs.api, swarm, handlers: () => handlers, tuning: { pollMs: 100, progressEverySeconds: 1 } });
  await jobs.start?.();
  await workers.start?.();
  const app = { jobs, workers };
  running.push(app);
  return app;
}

async function closeApp(app: { jobs: JobsModule; workers: WorkersModule }): Promise<void> {
  running = running.filter((a) => a !== app);
  await app.workers.dispose?.();
  await app.jobs.dispose?.();
}

const request = (workers: number, batchSize = 5) =>
  PoolStartRequest.parse({
    cwd: dir,
    python: '/usr/bin/python3',
    swarm: { engineId: 'local', containerId: 'c0ffee', profileId: null },
    batchSize,
    grpoN: 2,
    placements: Array.from({ length: workers }, () => ({ kind: 'local' })),
    label: 'unit',
  });

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('worker pool with local workers', { timeout: 45_000 }, () => {
  it('starts N workers with their shares, shows their rate and client uuid, marks one that dies (told once) while the others go on, restarts it, and stop all leaves no process', async () => {
    const { workers } = await openApp();
    const handlers = workers.handlers;
    let pool: PoolViewData = await handlers['workers:start'](request(2));
    expect(pool.split.shares.map((s) => s.batchShare)).toEqual([3, 2]);
    const id = pool.poolId;
    const current = () => workers.pool.get(id);
    await until('both report a rate', () => current().workers.every((w) => (w.episodesPerMinute ?? 0) > 0 && w.clientUuid !== null));
    pool = current();
    expect(pool.workers.map((w) => w.state)).toEqual(['running', 'running']);
    expect(pool.workers[0]!.clientUuid).not.toBe(pool.workers[1]!.clientUuid);
    expect(pool.episodesPerMinute).toBeGreaterThan(0);
    const log1 = await handlers['workers:log']({ poolId: id, index: 1, from: 0, limit: 500 });
    expect(log1.lines.map((l) => l.text).join('\n')).toContain(`share 1 2 2 ${url}`);

    // A worker killed from outside: marked failed, told once; the other keeps running.
    const victim = pool.workers[0]!;
    process.kill(-victim.pid!, 'SIGKILL');
    await until('the killed worker is marked', () => current().workers[0]!.state === 'failed');
    expect(current().workers[0]).toMatchObject({ state: 'failed', signal: 'SIGKILL', episodesPerMinute: null });
    expect(current().workers[1]!.state).toBe('running');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(notifications.filter((n) => n.kind === 'worker-died')).toHaveLength(1);
    expect(notifications[0]!.body).toContain('this computer');

    pool = await handlers['workers:restart-failed']({ poolId: id });
    await until('the restarted worker runs', () => current().workers[0]!.state === 'running');
    expect(current().workers[0]!.pid).not.toBe(victim.pid);

    pool = await handlers['workers:stop-all']({ poolId: id });
    expect(pool.workers.map((w) => w.state)).toEqual(['stopped', 'stopped']);
    expect(pool.state).toBe('ended');
    for (const w of pool.workers) expect(groupAlive(w.pid!)).toBe(false);
    expect(notifications).toHaveLength(1);
  });

  it('finds every pool again after an app restart, starting the local workers the close stopped', async () => {
    const first = await openApp();
    const pool = await first.workers.handlers['workers:start'](request(2));
    await until('both run', () => first.workers.pool.get(pool.poolId).workers.every((w) => w.episodes > 0));
    const oldPids = first.workers.pool.get(pool.poolId).workers.map((w) => w.pid!);
    await closeApp(first);
    for (const pid of oldPids) expect(groupAlive(pid)).toBe(false);

    const second = await openApp();
    const again = second.workers.pool.get(pool.poolId);
    expect(again.workers.map((w) => w.state)).toEqual(['running', 'running']);
    expect(again.workers.map((w) => w.note)).toEqual([expect.stringContaining('app was closed'), expect.stringContaining('app was closed')]);
    // The same as data, for the renderer's words (issue 32).
    expect(again.workers.map((w) => w.notes)).toEqual([[{ key: 'resumed', params: {} }], [{ key: 'resumed', params: {} }]]);
    await until('they report again', () => second.workers.pool.get(pool.poolId).workers.every((w) => w.episodes > 0));
    const stopped = await second.workers.handlers['workers:stop-all']({ poolId: pool.poolId });
    for (const w of stopped.workers) expect(groupAlive(w.pid!)).toBe(false);
  });

  it('adds workers without over-claiming: a running worker whose share shrinks restarts with it before the new one starts; ended workers hold no share', async () => {
    const { workers } = await openApp();
    const pool = await workers.handlers['workers:start'](request(1, 4));
    expect(pool.workers[0]!.batchShare).toBe(4);
    await until('it runs', () => workers.pool.get(pool.poolId).workers[0]!.episodes > 0);
    const firstPid = workers.pool.get(pool.poolId).workers[0]!.pid;
    const grown = await workers.handlers['workers:add']({ poolId: pool.poolId, placements: [{ kind: 'local' }] });
    expect(grown.split.shares.map((s) => s.batchShare)).toEqual([2, 2]);
    // The known bug was 4 + 2 = 6 tasks of a batch of 4: the running worker kept its share.
    expect(grown.workers.map((w) => w.batchShare)).toEqual([2, 2]);
    expect(grown.workers.reduce((sum, w) => sum + w.batchShare, 0)).toBe(4);
    expect(grown.workers[0]!.pid).not.toBe(firstPid);
    expect(groupAlive(firstPid!)).toBe(false);
    expect(grown.workers[0]!.note).toMatch(/restarted with a share of 2 tasks/);
    expect(grown.workers[0]!.notes).toEqual([{ key: 'reshared', params: { share: 2, workers: 2 } }]);
    // Its new process runs with the new share (what it printed from its env).
    const logOf0 = async () => (await workers.handlers['workers:log']({ poolId: pool.poolId, index: 0, from: 0, limit: 500 })).lines.map((l) => l.text).join('\n');
    let log0 = '';
    await until('the restarted worker prints its new share', () => {
      void logOf0().then((text) => (log0 = text));
      return log0.includes('share 0 2 2');
    });
    await expect(workers.handlers['workers:add']({ poolId: pool.poolId, placements: [{ kind: 'local' }, { kind: 'local' }, { kind: 'local' }] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(workers.pool.get(pool.poolId).workers).toHaveLength(2);
    // A stopped worker holds no share: two more fit a batch of 4 next to one running worker.
    await workers.handlers['workers:stop']({ poolId: pool.poolId, index: 1 });
    const again = await workers.handlers['workers:add']({ poolId: pool.poolId, placements: [{ kind: 'local' }, { kind: 'local' }] });
    const active = again.workers.filter((w) => w.state === 'running');
    expect(active.map((w) => w.batchShare)).toEqual([2, 1, 1]);
    expect(active.reduce((sum, w) => sum + w.batchShare, 0)).toBe(4);
    await workers.handlers['workers:stop-all']({ poolId: pool.poolId });

    await writeFile(join(dir, 'restart.py'), 'swarm_worker.auto_sync_train_config_and_start_engine(job, force_restart=True)\n');
    await expect(workers.handlers['workers:start']({ ...request(2), script: 'restart.py' })).rejects.toMatchObject({ code: 'JOB_NEEDS_CONFIRMATION' });
    await expect(workers.handlers['workers:split']({ batchSize: 2, grpoN: 4, workers: 3 })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('the pools file', { timeout: 45_000 }, () => {
  it('is written when a worker starts or ends, not on every poll that only brings log lines', async () => {
    const writes: string[] = [];
    const save = vi.spyOn(PoolStore.prototype, 'save').mockImplementation(async function (this: PoolStore, pools) {
      writes.push(JSON.stringify(pools));
      await writeFile(this.file, JSON.stringify({ version: 1, pools }));
    });
    try {
      const { workers } = await openApp();
      const pool = await workers.handlers['workers:start'](request(2));
      await until('both report episodes', () => workers.pool.get(pool.poolId).workers.every((w) => w.episodes > 0));
      const afterStart = writes.length;
      // 1.5 s of progress lines every 0.15 s from each worker, polled every 0.1 s: nothing a restart needs changed.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(writes.length - afterStart).toBe(0);
      await workers.handlers['workers:stop-all']({ poolId: pool.poolId });
      // Each worker's end is written when it comes (the two may end a poll apart on a loaded machine).
      const states = () => (writes.length > afterStart ? JSON.parse(writes.at(-1)!)[0].workers.map((w: { state: string }) => w.state) : []);
      await until('both stops are written', () => states().every((state: string) => state === 'stopped') && states().length === 2);
      expect(states()).toEqual(['stopped', 'stopped']);
    } finally {
      save.mockRestore();
    }
  });
});
