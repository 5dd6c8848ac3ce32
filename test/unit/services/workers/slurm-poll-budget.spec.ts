// The poll budget of Slurm workers (issue 34): a 4-task array polled by the pool every second learns its tasks' queue
// states from the login node's ONE shared queue poll (the one the Slurm swarm servers use), never from an squeue per
// task. The login node is a TEST DOUBLE (22.05's `squeue -O` lines, the tasks' exit files and logs); the pool, the
// Slurm backend, the SlurmClient and its queue poll are the product's; time is vitest's fake clock, so counts are exact.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineHost, HostExecResult } from '../../../../electron/services/engines/container-engine';
import { SlurmClient } from '../../../../electron/services/engines/slurm/slurm-client';
import { SHOWN_POLL_MS, SlurmQueueWatch } from '../../../../electron/services/engines/slurm/slurm-queue-watch';
import type { SshConnection } from '../../../../electron/services/ssh/ssh-connection';
import { PoolStore, type PoolRecordData } from '../../../../electron/services/workers/pool-store';
import { taskQueueState } from '../../../../electron/services/workers/slurm-task-queue';
import { SlurmWorkers } from '../../../../electron/services/workers/slurm-workers';
import type { WorkerBackend } from '../../../../electron/services/workers/worker-backend';
import { WorkerPool } from '../../../../electron/services/workers/worker-pool';
import type { SlurmJob } from '../../../../electron/shared/schemas-slurm';
import { PoolStartRequest } from '../../../../electron/shared/schemas-workers';
import { MemoryVault } from '../../../support/memory-vault';

const POOL = 'pool-budget-1';
const ARRAY = '900';
const TASKS = 4;
const ok = (stdout: string): HostExecResult => ({ code: 0, stdout, stderr: '' });

/** One `squeue -O SQUEUE_FIELDS_LONG` line (JobArrayID first, `|` after each field). */
function squeueLine(id: string, state: string, name = `agentswarm-workers-${POOL}`, comment = `agentswarm workers pool=${POOL}`): string {
  return `${id}|${name}|alice|cpu|${state}|None|vm|30:00|29:00|1796428000|1796428010|1796429800|4294901741|N/A|N/A|${comment}|\n`;
}

/** The login node: counts every squeue (whatever asked it) and every task file read. */
function loginNode() {
  // A task's state as squeue lists it; null: not listed (purged after MinJobAge).
  const node = { squeues: 0, fileReads: 0, taskStates: Array.from({ length: TASKS }, (): string | null => 'RUNNING'), exited: new Set<number>() };
  const exec = (script: string): Promise<HostExecResult> => {
    if (script.includes('squeue')) node.squeues += 1;
    if (script.includes('id -un')) return Promise.resolve(ok('alice\n'));
    if (script.includes('labels.json; do')) return Promise.resolve(ok(''));
    if (script.includes('@@noexit')) {
      node.fileReads += 1;
      const task = Number(/\bt=(\d+)/.exec(script)![1]);
      return Promise.resolve(ok(`${node.exited.has(task) ? '@@exit 0' : '@@noexit'}\n@@size 0\n`));
    }
    if (script.includes('squeue') && script.includes('-t all -O')) {
      return Promise.resolve(ok(node.taskStates.map((state, t) => (state === null ? '' : squeueLine(`${ARRAY}_${t}`, state))).join('')));
    }
    return Promise.resolve({ code: 1, stdout: '', stderr: `unexpected script: ${script.slice(0, 80)}` });
  };
  return { node, exec };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-slurm-budget-'));
  vi.useFakeTimers({ now: new Date('2026-12-05T06:00:00Z'), toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

/** A saved pool of 4 running Slurm array tasks (as an app restart finds them), the shared poll running as the Slurm module runs it. */
async function openPool() {
  const { node, exec } = loginNode();
  const host: EngineHost = { kind: 'ssh', label: 'login', exec };
  let watch: SlurmQueueWatch | null = null;
  const client = new SlurmClient({ exec, host: 'login', jobNames: () => watch!.activeNames() });
  watch = new SlurmQueueWatch({ host, client, now: () => Date.now() });
  const offShared = watch.subscribe(() => undefined);
  // SshHost runs each script as `sh -c '<script>'`: the double answers the script inside.
  const connection = { exec: (command: string) => exec(command.replace(/'\\''/g, "'")) } as unknown as SshConnection;
  const slurm = new SlurmWorkers({ connectionOf: () => Promise.resolve(connection), labelOf: () => 'hpc', vault: new MemoryVault(), queueOf: () => watch! });
  const placement = { kind: 'slurm' as const, serverId: 'hpc', python: 'python3', partition: 'cpu', timeLimit: '30', cpusPerTask: null, reach: { kind: 'cluster' as const } };
  const request = PoolStartRequest.parse({ cwd: '/p', python: '/usr/bin/python3', swarm: { engineId: 'slurm-hpc', containerId: '77', profileId: null }, batchSize: 8, grpoN: 2, placements: Array.from({ length: TASKS }, () => placement), poolId: POOL });
  const saved: PoolRecordData = {
    poolId: POOL,
    label: 'budget',
    createdAt: new Date().toISOString(),
    request,
    split: { batchSize: 8, grpoN: 2, workers: TASKS, shares: Array.from({ length: TASKS }, (_, index) => ({ index, batchShare: 2, parallelEpisodes: 4 })), totalParallelEpisodes: 16 },
    swarmUrl: null,
    workers: Array.from({ length: TASKS }, (_, index) => ({
      index,
      placement,
      state: 'running' as const,
      exitCode: null,
      signal: null,
      shareEnv: {},
      batchShare: 2,
      parallelEpisodes: 4,
      handle: { pid: null, jobId: `${ARRAY}_${index}`, runDir: `~/.agentswarm/workers/${POOL}-slurm-0`, logOffset: 0, note: null, notes: [], tunnelPort: null },
      startedAt: new Date().toISOString(),
      endedAt: null,
      note: null,
      notes: [],
      lastError: null,
      notified: false,
      resumeOnStart: false,
    })),
  };
  await new PoolStore(join(dir, 'workers')).save([saved]);
  const unused: WorkerBackend = { where: () => 'here', start: () => Promise.reject(new Error('unused')), poll: () => Promise.reject(new Error('unused')), stop: () => Promise.resolve() };
  const notified: string[] = [];
  const pool = new WorkerPool({
    dir: join(dir, 'workers'),
    events: { emit: () => undefined },
    notifier: { notify: (n: { title: string }) => notified.push(n.title) },
    logger: { warn: () => undefined, info: () => undefined },
    backends: { local: unused, ssh: unused, slurm },
    swarmUrl: () => null,
    pollMs: 1000,
  } as unknown as ConstructorParameters<typeof WorkerPool>[0]);
  await pool.load();
  return {
    node,
    pool,
    notified,
    close: async () => {
      offShared();
      watch!.dispose();
      await pool.dispose();
    },
  };
}

describe('Slurm workers poll on the shared queue poll', () => {
  it('a 4-task array polled every second for a minute costs no squeue beyond the shared poll\'s cadence; each poll only reads the task\'s files', async () => {
    const { node, pool, close } = await openPool();
    await vi.advanceTimersByTimeAsync(60_000);
    // Before (one `squeue -j <task>` per task per poll): 4 × 60 = 240 a minute. Now: the shared poll's own, every 30 s.
    expect(node.squeues).toBeLessThanOrEqual(Math.ceil(60_000 / SHOWN_POLL_MS));
    expect(node.squeues).toBeGreaterThan(0);
    expect(node.fileReads).toBeGreaterThanOrEqual(TASKS * 55);
    expect(pool.get(POOL).workers.map((w) => w.state)).toEqual(['running', 'running', 'running', 'running']);
    await close();
  });

  it('a task Slurm no longer runs without its exit file is marked failed (told once) after the grace; one that wrote its exit file has exited', async () => {
    const { node, pool, notified, close } = await openPool();
    await vi.advanceTimersByTimeAsync(5_000);
    node.exited.add(0);
    node.taskStates[0] = 'COMPLETED';
    node.taskStates[1] = 'CANCELLED';
    // The next shared answer (at most one poll interval later) shows it; then the grace for a late exit file.
    await vi.advanceTimersByTimeAsync(SHOWN_POLL_MS + 12_000);
    expect(pool.get(POOL).workers.map((w) => w.state)).toEqual(['exited', 'failed', 'running', 'running']);
    expect(notified).toHaveLength(1);
    // No longer listed at all (purged after MinJobAge) and no exit file: gone too; the last one runs on.
    node.taskStates[2] = null;
    await vi.advanceTimersByTimeAsync(SHOWN_POLL_MS + 12_000);
    expect(pool.get(POOL).workers.map((w) => w.state)).toEqual(['exited', 'failed', 'failed', 'running']);
    expect(notified).toHaveLength(2);
    await close();
  });
});

describe('the worker arrays in the shared queue answer', () => {
  it('are asked about in the servers\' one squeue while wanted, and never listed as server jobs', async () => {
    const { node, exec } = loginNode();
    const host: EngineHost = { kind: 'ssh', label: 'login', exec };
    const scripts: string[] = [];
    let watch: SlurmQueueWatch | null = null;
    const client = new SlurmClient({ exec: (script) => (scripts.push(script), exec(script)), host: 'login', jobNames: () => watch!.activeNames() });
    watch = new SlurmQueueWatch({ host, client, now: () => Date.now() });
    expect((await watch.workerTasks()).tasks).toEqual([]);
    expect(node.squeues).toBe(0);
    watch.want(`agentswarm-workers-${POOL}`, 60_000);
    const { tasks } = await watch.workerTasks();
    expect(tasks.map((t) => `${t.id} ${t.state}`)).toEqual(['900_0 RUNNING', '900_1 RUNNING', '900_2 RUNNING', '900_3 RUNNING']);
    expect(scripts.filter((s) => s.includes('squeue'))).toEqual([expect.stringContaining(`-n 'agentswarm-workers-${POOL}' -h -t all -O 'JobArrayID:|,`)]);
    // The same answer, read by the engine: no server job in it.
    expect(await client.queue({ maxAgeMs: 60_000 })).toEqual([]);
    expect((await watch.read()).jobs).toEqual([]);
    expect(node.squeues).toBe(1);
    // A pool that stops asking drops out: nothing is asked any more.
    await vi.advanceTimersByTimeAsync(61_000);
    expect(await watch.activeNames()).toEqual([]);
    watch.dispose();
  });
});

describe('a task in the shared queue answer', () => {
  const job = (id: string, state: string): SlurmJob => ({ id, state }) as SlurmJob;
  it('is found by its own id, inside a pending group (ranges, steps, a throttle), or not at all', () => {
    const tasks = [job('812_0', 'RUNNING'), job('812_1', 'COMPLETED'), job('812_[2-3,5,8-12:2%2]', 'PENDING'), job('813_4', 'RUNNING')];
    expect(taskQueueState(tasks, '812', 0)).toBe('active');
    expect(taskQueueState(tasks, '812', 1)).toBe('ended');
    expect([2, 3, 5, 8, 10, 12].map((t) => taskQueueState(tasks, '812', t))).toEqual(Array(6).fill('active'));
    expect([4, 6, 9, 11, 13].map((t) => taskQueueState(tasks, '812', t))).toEqual(Array(5).fill('absent'));
    expect(taskQueueState(tasks, '81', 4)).toBe('absent');
  });
});
