import type { TrainingView } from '../../shared/schemas-profiles';
import type { EngineStatusReading } from '../swarm/swarm-http-client';
import { stats, taskRewards, allRewards, type PoolReading } from './pool-info';
import { BOOTING, isTraining } from './run-tracker';

export const ENGINE_STATUS_ROUTE = '/get_engine_status';
export const POOL_ROUTE = '/get_current_batch_rollout_pool_information';
/** The event stays small with a thousand parallel episodes; the UI shows 30 anyway. */
export const MAX_RUNNING_EPISODES = 200;

export interface PollResult {
  now: number;
  engine: EngineStatusReading | null;
  pool: PoolReading | null;
  missingRoutes: string[];
  error: string | null;
}

export function emptyView(engineId: string, containerId: string, now: number): TrainingView {
  return {
    engineId,
    containerId,
    runId: null,
    engineStatus: null,
    statusSince: null,
    bootingSeconds: null,
    globalStep: null,
    modelPath: null,
    sampleCollectionMethod: null,
    episodes: null,
    tasks: null,
    nonDummyTasks: null,
    expectedRepeat: null,
    runningEpisodes: [],
    taskRewards: [],
    rewardMean: null,
    rewardStd: null,
    activeClients: [],
    missingRoutes: [],
    lastError: null,
    checkedAt: new Date(now).toISOString(),
  };
}

/** The engine status of a poll: /get_engine_status first, the pool's live copy when that route is missing. */
export function statusOf(result: PollResult): string | null {
  return result.engine?.engineStatus ?? result.pool?.engineStatus ?? null;
}

export function serverStepOf(result: PollResult): number | null {
  return result.engine?.globalStep ?? result.pool?.globalStep ?? null;
}

/**
 * The view after one poll. Batch numbers (fill, rewards, method) belong to a training engine only:
 * upstream keeps the last batch's counters and the step after a stop (appendix point 7), so an
 * OFFLINE or BOOTING engine shows none of them rather than old numbers that look current.
 */
export function buildView(
  previous: TrainingView,
  result: PollResult,
  run: { runId: string | null; statusSince: number | null; globalStep: number | null },
): TrainingView {
  const checkedAt = new Date(result.now).toISOString();
  if (result.engine === null && result.pool === null) {
    // Nothing answered: keep what we knew, say why it may be old.
    return { ...previous, missingRoutes: result.missingRoutes, lastError: result.error, checkedAt };
  }
  const status = statusOf(result);
  const pool = result.pool;
  const training = isTraining(status);
  const since = run.statusSince;
  let bootingSeconds: number | null = null;
  if (status === BOOTING) {
    const start = pool?.bootingStartMs ?? null;
    // The server's clock may differ from ours (a remote server): trust its stamp only when it is plausible.
    const fromServer = start !== null && start <= result.now + 5_000 ? (result.now - start) / 1000 : null;
    bootingSeconds = Math.max(0, Math.round(fromServer ?? (since !== null ? (result.now - since) / 1000 : 0)));
  }
  const rewards = training && pool ? stats(allRewards(pool.rewards)) : null;
  return {
    engineId: previous.engineId,
    containerId: previous.containerId,
    runId: run.runId,
    engineStatus: status,
    statusSince: since !== null ? new Date(since).toISOString() : null,
    bootingSeconds,
    globalStep: run.globalStep,
    modelPath: pool?.modelPath ?? null,
    sampleCollectionMethod: training ? (pool?.sampleCollectionMethod ?? null) : null,
    episodes: training ? (pool?.episodes ?? null) : null,
    tasks: training ? (pool?.tasks ?? null) : null,
    nonDummyTasks: training ? (pool?.nonDummyTasks ?? null) : null,
    expectedRepeat: training ? (pool?.expectedRepeat ?? null) : null,
    runningEpisodes: (pool?.runningEpisodes ?? []).slice(0, MAX_RUNNING_EPISODES),
    taskRewards: training && pool ? taskRewards(pool) : [],
    rewardMean: rewards?.mean ?? null,
    rewardStd: rewards?.std ?? null,
    activeClients: pool?.activeClients ?? [],
    missingRoutes: result.missingRoutes,
    lastError: result.error,
    checkedAt,
  };
}

/**
 * Whether a new view is worth an event: not when only the poll time moved, nor the booting clock
 * (the page counts it on from `bootingSeconds` + `checkedAt` of the last view it got).
 */
export function meaningfullyDifferent(a: TrainingView, b: TrainingView): boolean {
  const strip = ({ checkedAt: _c, bootingSeconds: _b, ...rest }: TrainingView) => JSON.stringify(rest);
  return strip(a) !== strip(b);
}
