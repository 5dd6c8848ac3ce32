import { describe, expect, it } from 'vitest';
import { splitParallelism } from '../../../../electron/services/workers/parallelism-split';
import { newWorkerRecord, rebalance, shareSettings } from '../../../../electron/services/workers/pool-records';
import type { PoolRecordData, WorkerRecordData } from '../../../../electron/services/workers/pool-store';
import { PoolStartRequest } from '../../../../electron/shared/schemas-workers';

/** A pool of `shares.length` workers with those batch shares and states (pure records: no process). */
function pool(batchSize: number, workers: { share: number; state: WorkerRecordData['state'] }[]): PoolRecordData {
  const split = splitParallelism({ batchSize, grpoN: 2, workers: workers.length });
  return {
    poolId: 'pool-1',
    label: null,
    createdAt: '2026-12-05T00:00:00Z',
    request: PoolStartRequest.parse({ cwd: '/p', python: '/usr/bin/python3', swarm: { engineId: 'local', containerId: 'c0ffee', profileId: null }, batchSize, grpoN: 2, placements: workers.map(() => ({ kind: 'local' })) }),
    split,
    swarmUrl: null,
    workers: workers.map((w, index) => ({ ...newWorkerRecord({ kind: 'local' }, index, { shareEnv: {}, batchShare: w.share, parallelEpisodes: w.share * 2 }), state: w.state })),
  };
}

const joiner = (index: number): WorkerRecordData => newWorkerRecord({ kind: 'local' }, index, { shareEnv: {}, batchShare: 1, parallelEpisodes: 2 });

describe('rebalance: workers joining a pool never make it claim more than one batch', () => {
  it('shrinks running workers whose share is too large (the known over-claim: 4 + 2 of a batch of 4)', () => {
    const p = pool(4, [{ share: 4, state: 'running' }]);
    const plan = rebalance(p, [joiner(1)]);
    expect(plan.split.shares.map((s) => s.batchShare)).toEqual([2, 2]);
    expect(plan.shrink).toEqual([p.workers[0]]);
    expect(plan.grow).toEqual([]);
  });

  it('leaves ended workers out of the split, so the batch has room for the new ones', () => {
    const p = pool(4, [{ share: 1, state: 'running' }, { share: 1, state: 'failed' }, { share: 1, state: 'stopped' }, { share: 1, state: 'running' }]);
    const plan = rebalance(p, [joiner(4), joiner(5)]);
    expect(plan.split.workers).toBe(4);
    expect(plan.shrink).toEqual([]);
  });

  it('keeps a smaller share of a running worker (never over-claims) and says so, and refuses more members than tasks', () => {
    const p = pool(4, [{ share: 1, state: 'running' }, { share: 1, state: 'failed' }, { share: 1, state: 'failed' }, { share: 1, state: 'failed' }]);
    const plan = rebalance(p, [p.workers[1]!]);
    expect(plan.split.shares.map((s) => s.batchShare)).toEqual([2, 2]);
    expect(plan.grow).toEqual([p.workers[0]]);
    const full = pool(2, [{ share: 1, state: 'running' }, { share: 1, state: 'running' }]);
    expect(() => rebalance(full, [joiner(2)])).toThrow(/cannot share a batch of 2/);
  });

  it('gives each member the env of its slot: index, count and share', () => {
    const split = splitParallelism({ batchSize: 5, grpoN: 3, workers: 2 });
    expect(shareSettings(split, 1, 7)).toEqual({
      shareEnv: { AGENTSWARM_WORKER_INDEX: '1', AGENTSWARM_WORKER_COUNT: '2', AGENTSWARM_WORKER_BATCH_SHARE: '2', AGENTSWARM_PROGRESS_EVERY_S: '7' },
      batchShare: 2,
      parallelEpisodes: 6,
    });
  });
});
