import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import type { PoolSplitData, PoolStart, WorkerPlacementData } from '../../shared/schemas-workers';
import { engineRestartCalls } from '../jobs/job-preflight';
import { splitParallelism, workerShareEnv } from './parallelism-split';
import type { PoolRecordData, WorkerRecordData } from './pool-store';

/** Pure helpers of the worker pool: new records, who is active, and the split when workers join. */

export function isActive(state: WorkerRecordData['state']): boolean {
  return state === 'starting' || state === 'running';
}

export function newPoolId(): string {
  return `pool-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** The env a worker gets for share `index` of `split` (plain numbers, never secrets). */
export function shareSettings(split: PoolSplitData, index: number, progressEverySeconds: number): Pick<WorkerRecordData, 'shareEnv' | 'batchShare' | 'parallelEpisodes'> {
  const share = split.shares[index]!;
  return {
    shareEnv: { ...workerShareEnv(split, index), AGENTSWARM_PROGRESS_EVERY_S: String(progressEverySeconds) },
    batchShare: share.batchShare,
    parallelEpisodes: share.parallelEpisodes,
  };
}

export function newWorkerRecord(placement: WorkerPlacementData, index: number, share: Pick<WorkerRecordData, 'shareEnv' | 'batchShare' | 'parallelEpisodes'>): WorkerRecordData {
  return {
    index,
    placement,
    state: 'starting',
    exitCode: null,
    signal: null,
    ...share,
    handle: null,
    startedAt: null,
    endedAt: null,
    note: null,
    notes: [],
    lastError: null,
    notified: false,
    resumeOnStart: false,
  };
}

/** What joining workers do to a pool's split: who gets which share, and who must restart first. */
export interface Rebalance {
  split: PoolSplitData;
  /** Every member (active or joining, by index) → its share's position in `split`. */
  slotOf: Map<WorkerRecordData, number>;
  /** Running workers whose share shrinks: stopped (their episodes given back) and started again with it before anyone joins. */
  shrink: WorkerRecordData[];
  /** Running workers whose share would grow: they keep their smaller one (never over-claiming) until restarted. */
  grow: WorkerRecordData[];
}

/**
 * The split over the pool's members when `joining` workers join the active ones (reference §6.2:
 * N clients share one batch). Ended workers (failed, stopped, exited) hold no share: counting them
 * would refuse workers the batch has room for. A running worker whose share shrinks must restart
 * before a new one starts, else the pool would claim more than one batch for a while, or for ever
 * (the running one kept its larger share: the bug this replaces).
 */
export function rebalance(pool: PoolRecordData, joining: readonly WorkerRecordData[]): Rebalance {
  const members = [...pool.workers.filter((w) => isActive(w.state) && !joining.includes(w)), ...joining].sort((a, b) => a.index - b.index);
  const split = splitParallelism({ batchSize: pool.split.batchSize, grpoN: pool.split.grpoN, workers: members.length });
  const slotOf = new Map(members.map((w, slot) => [w, slot]));
  const running = members.filter((w) => !joining.includes(w));
  return {
    split,
    slotOf,
    shrink: running.filter((w) => split.shares[slotOf.get(w)!]!.batchShare < w.batchShare),
    grow: running.filter((w) => split.shares[slotOf.get(w)!]!.batchShare > w.batchShare),
  };
}

/** N copies of a script that restarts the engine would end everyone's training again and again. */
export async function refuseEngineRestart(request: PoolStart): Promise<void> {
  const path = isAbsolute(request.script) ? request.script : resolve(request.cwd, request.script);
  const source = await readFile(path, 'utf8').catch(() => {
    throw new AppError('PROJECT_INVALID', `The script ${path} does not exist. Generate it in the wizard, or pick the file again.`);
  });
  const calls = engineRestartCalls(source);
  if (calls.length > 0) {
    throw new AppError(
      'JOB_NEEDS_CONFIRMATION',
      `${path} calls ${calls.join(' and ')}: every worker of a pool would end the training of every client again. Generate the script without the engine restart (or start the engine once with a single training run), then start the workers.`,
    );
  }
}
