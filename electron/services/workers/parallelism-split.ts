import { AppError } from '../../shared/errors';

/**
 * How N rollout workers share one training run's parallelism (issue 34, reference §6.2: "with N
 * clients on one dataset, split the parallelism: workers = batch // N * grpo_n").
 *
 * One `agent_roll.py` alone keeps `batch_size × grpo_n` episodes open: exactly what the server needs
 * for a weight update. N copies of it would each keep that many open and together claim N batches
 * (the server then refuses claims, or trains on episodes of many half-finished task groups). So the
 * batch is cut into N shares that add up to the batch exactly: `batch // N` each, the remainder one
 * more for the first workers (upstream's plain `batch // N` would lose the remainder, and give 0 to
 * every worker when N > batch). Each worker keeps `share × grpo_n` episodes open and submits every
 * task grpo_n times, so a task's GRPO group never straddles workers.
 */
export interface SplitInput {
  /** The job's batch_size (distinct tasks per weight update). */
  batchSize: number;
  /** The GRPO group size (num_repeat): episodes per task. */
  grpoN: number;
  /** Workers in the pool. */
  workers: number;
}

export interface WorkerShare {
  /** 0-based; also seeds the worker's task order so workers do not all start on the same tasks. */
  index: number;
  /** Tasks of the batch this worker rolls at once. */
  batchShare: number;
  /** Episodes it keeps open at once: batchShare × grpoN. */
  parallelEpisodes: number;
}

export interface ParallelismSplit extends SplitInput {
  shares: WorkerShare[];
  /** Σ parallelEpisodes = batchSize × grpoN: the pool claims one batch's worth, never more. */
  totalParallelEpisodes: number;
}

/** The most workers one run may have: each needs at least one task of the batch. */
export function maxWorkers(batchSize: number): number {
  return Math.max(1, Math.floor(batchSize));
}

export function splitParallelism(input: SplitInput): ParallelismSplit {
  const { batchSize, grpoN, workers } = input;
  for (const [name, value] of [['batch size', batchSize], ['GRPO group size', grpoN], ['number of workers', workers]] as const) {
    if (!Number.isInteger(value) || value < 1) throw new AppError('VALIDATION_FAILED', `The ${name} must be a whole number of at least 1 (got ${value}).`);
  }
  if (workers > batchSize) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${workers} workers cannot share a batch of ${batchSize} tasks: each worker needs at least one task, so ${workers - batchSize} would only wait. Use at most ${batchSize} workers, or a larger batch size.`,
    );
  }
  const base = Math.floor(batchSize / workers);
  const extra = batchSize % workers;
  const shares = Array.from({ length: workers }, (_unused, index): WorkerShare => {
    const batchShare = base + (index < extra ? 1 : 0);
    return { index, batchShare, parallelEpisodes: batchShare * grpoN };
  });
  return { ...input, shares, totalParallelEpisodes: batchSize * grpoN };
}

/**
 * The generated `agent_roll.py` reads its share from these (plain numbers, no secret): without them
 * it runs as the only worker, as before. The names are pinned by the template (resources/templates).
 */
export function workerShareEnv(split: ParallelismSplit, index: number): Record<string, string> {
  const share = split.shares[index];
  if (!share) throw new AppError('VALIDATION_FAILED', `Worker ${index} is not in a pool of ${split.workers}.`);
  return {
    AGENTSWARM_WORKER_INDEX: String(share.index),
    AGENTSWARM_WORKER_COUNT: String(split.workers),
    AGENTSWARM_WORKER_BATCH_SHARE: String(share.batchShare),
  };
}
