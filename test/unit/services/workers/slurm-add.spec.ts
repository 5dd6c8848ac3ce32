// "Add workers" for a pool with Slurm workers (issue 34): the added array is shown before submission (its tasks, their
// shares from the recomputed split, the running Slurm workers that restart in it with a smaller share), then submitted
// exactly so, into a run folder of its own. The pool is the product's; the Slurm backend and the previewer are TEST
// DOUBLES that record what they were asked (the real submission: test/integration/workers-slurm.spec.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PoolStore, type PoolRecordData } from '../../../../electron/services/workers/pool-store';
import { slurmRunName } from '../../../../electron/services/workers/slurm-array-script';
import type { WorkerBackend, WorkerStartSpec } from '../../../../electron/services/workers/worker-backend';
import { WorkerPool, type SlurmPreviewer } from '../../../../electron/services/workers/worker-pool';
import { PoolStartRequest, type WorkerPlacementData } from '../../../../electron/shared/schemas-workers';

const POOL = 'pool-add-1';
const placement: WorkerPlacementData = { kind: 'slurm', serverId: 'hpc', python: 'python3', partition: 'cpu', timeLimit: null, cpusPerTask: null, reach: { kind: 'cluster' } };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-slurm-add-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function handle(jobId: string) {
  return { pid: null, jobId, runDir: `~/.agentswarm/workers/${POOL}-slurm-0`, logOffset: 0, note: null, notes: [], tunnelPort: null };
}

async function openPool() {
  const request = PoolStartRequest.parse({ cwd: '/p', python: '/usr/bin/python3', swarm: { engineId: 'slurm-hpc', containerId: '77', profileId: null }, batchSize: 4, grpoN: 2, placements: [placement, placement], poolId: POOL });
  const saved: PoolRecordData = {
    poolId: POOL, label: 'add', createdAt: new Date().toISOString(), request, swarmUrl: null,
    split: { batchSize: 4, grpoN: 2, workers: 2, shares: [0, 1].map((index) => ({ index, batchShare: 2, parallelEpisodes: 4 })), totalParallelEpisodes: 8 },
    workers: [0, 1].map((index) => ({
      index, placement, state: 'running' as const, exitCode: null, signal: null, shareEnv: {}, batchShare: 2, parallelEpisodes: 4, handle: handle(`500_${index}`),
      startedAt: new Date().toISOString(), endedAt: null, note: null, notes: [], lastError: null, notified: false, resumeOnStart: false,
    })),
  };
  await new PoolStore(join(dir, 'workers')).save([saved]);
  const calls = { groups: [] as WorkerStartSpec[][], stopped: [] as string[] };
  let array = 600;
  const slurm: WorkerBackend = {
    where: () => 'hpc (Slurm)',
    start: () => Promise.reject(new Error('arrays start as groups')),
    startGroup: (specs) => {
      calls.groups.push(specs);
      array += 1;
      return Promise.resolve(specs.map((spec, task) => ({ ...handle(`${array}_${task}`), runDir: `~/.agentswarm/workers/${slurmRunName(spec.poolId, specs[0]!.index, spec.runTag ?? null)}` })));
    },
    poll: () => Promise.resolve({ lines: [], end: null }),
    stop: (h) => (calls.stopped.push(h.jobId!), Promise.resolve()),
  };
  const previewer: SlurmPreviewer = (_request, poolId, tasks, _placement, tag) =>
    Promise.resolve({ host: 'hpc', script: `run ${slurmRunName(poolId, tasks[0]!.index, tag)}\n${tasks.map((t) => `${t.index}: ${t.shareEnv.AGENTSWARM_WORKER_BATCH_SHARE}`).join('\n')}`, command: 'sbatch', tasks: tasks.length });
  const pool = new WorkerPool({
    dir: join(dir, 'workers'),
    events: { emit: () => undefined },
    notifier: { notify: () => undefined },
    logger: { warn: () => undefined, info: () => undefined },
    backends: { local: slurm, ssh: slurm, slurm },
    swarmUrl: () => null,
    pollMs: 60_000,
  } as unknown as ConstructorParameters<typeof WorkerPool>[0]);
  await pool.load();
  return { pool, calls, previewer };
}

describe('adding Slurm workers to a running pool', () => {
  it('shows the array it will submit with the new split, then submits exactly that into a run folder of its own', async () => {
    const { pool, calls, previewer } = await openPool();
    const preview = await pool.slurmAddPreview(POOL, [placement, placement], previewer);
    expect(preview.split.shares.map((s) => s.batchShare)).toEqual([1, 1, 1, 1]);
    // The two running workers' share shrinks (2 → 1): they restart in the same array, before the new ones.
    expect(preview.arrays).toHaveLength(1);
    expect(preview.arrays[0]!.tasks).toBe(4);
    expect(preview.arrays[0]!.script).toBe(`run ${POOL}-slurm-0-${preview.shown.tag}\n0: 1\n1: 1\n2: 1\n3: 1`);
    expect(calls.groups).toEqual([]);

    const added = await pool.add(POOL, [placement, placement], preview.shown);
    expect(calls.stopped).toEqual(['500_0', '500_1']);
    expect(calls.groups).toHaveLength(1);
    const submitted = calls.groups[0]!;
    expect(submitted.map((s) => [s.index, s.shareEnv.AGENTSWARM_WORKER_BATCH_SHARE, s.runTag])).toEqual([0, 1, 2, 3].map((i) => [i, '1', preview.shown.tag]));
    expect(added.workers.map((w) => [w.state, w.batchShare, w.jobId])).toEqual([0, 1, 2, 3].map((i) => ['running', 1, `601_${i}`]));
    expect(added.split.shares.map((s) => s.batchShare)).toEqual([1, 1, 1, 1]);
    await pool.dispose();
  });

  it('refuses Slurm workers without a shown script, or when the pool changed since it was shown', async () => {
    const { pool, calls, previewer } = await openPool();
    await expect(pool.add(POOL, [placement])).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('show their job script first') });
    const preview = await pool.slurmAddPreview(POOL, [placement], previewer);
    // A worker stopped meanwhile: the shares the script was made with are no longer the ones the add would use.
    await pool.stopOne(POOL, 1);
    await expect(pool.add(POOL, [placement], preview.shown)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('show the script again') });
    // Other placements than the shown ones: refused too.
    const again = await pool.slurmAddPreview(POOL, [placement], previewer);
    await expect(pool.add(POOL, [placement, placement], again.shown)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(calls.groups).toEqual([]);
    await expect(pool.slurmAddPreview(POOL, [{ kind: 'local' }], previewer)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const done = await pool.add(POOL, [placement], again.shown);
    expect(done.workers.map((w) => w.state)).toEqual(['running', 'stopped', 'running']);
    expect(calls.groups.map((g) => g.map((s) => s.index))).toEqual([[2]]);
    await pool.dispose();
  });
});
