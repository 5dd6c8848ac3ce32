import type { z } from 'zod';
import type { RunningEpisode, TaskReward as TaskRewardSchema } from '../../shared/schemas-profiles';

type TaskReward = z.infer<typeof TaskRewardSchema>;

/**
 * Reads `GET /get_current_batch_rollout_pool_information` (reference §1.2) so that nothing in it is
 * required: the server's API changed often, an internal error answers an empty default object, and
 * every value inside `running_episode_details` arrives as a string ("12.3s", "240.0s", "3",
 * appendix point 8). A field of the wrong type reads as absent, never as 0.
 */
export interface PoolReading {
  sampleCollectionMethod: string | null;
  episodes: { done: number; target: number } | null;
  tasks: { done: number; target: number } | null;
  nonDummyTasks: { done: number; target: number } | null;
  expectedRepeat: number | null;
  /** task id → the rewards of its finished episodes in the current batch. */
  rewards: Record<string, number[]>;
  /** task id → how many episodes finished (completed_tasks_details), when the server says. */
  episodesPerTask: Record<string, number>;
  /** Every finished episode's uuid (completed_tasks_details): what tells one batch from the next. */
  episodeIds: string[];
  runningEpisodes: RunningEpisode[];
  engineStatus: string | null;
  globalStep: number | null;
  /** ms since the epoch; upstream sends seconds as a float. */
  bootingStartMs: number | null;
  modelPath: string | null;
  activeClients: { clientUuid: string; agreedSyncWeight: boolean }[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function fill(done: unknown, target: unknown): { done: number; target: number } | null {
  const d = count(done);
  const t = count(target);
  return d === null && t === null ? null : { done: d ?? 0, target: t ?? 0 };
}

/**
 * A number from upstream's stringly-typed episode details: "12.3s" → 12.3, "3" → 3, 7 → 7.
 * Anything else (empty, "n/a", NaN) → null.
 */
export function parseLooseNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const match = /^\s*(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*s?\s*$/i.exec(value);
  if (!match?.[1]) return null;
  const n = Number(match[1]);
  return Number.isFinite(n) ? n : null;
}

function parseRunning(value: unknown): RunningEpisode[] {
  // null means "no claimed episode" (upstream), not "unknown".
  if (!isRecord(value)) return [];
  const rows: RunningEpisode[] = [];
  for (const [episodeUuid, raw] of Object.entries(value)) {
    const d = isRecord(raw) ? raw : {};
    const calls = parseLooseNumber(d['llm_call_count']);
    rows.push({
      episodeUuid,
      status: text(d['episode_status']) ?? 'claimed',
      llmCalls: calls !== null && Number.isInteger(calls) && calls >= 0 ? calls : null,
      idleSeconds: parseLooseNumber(d['time_since_last_activity']),
      patienceSeconds: parseLooseNumber(d['discard_episode_timeout']),
      clientUuid: typeof d['client_uuid'] === 'string' ? d['client_uuid'] : '',
      taskId: typeof d['optional_task_id'] === 'string' ? d['optional_task_id'] : '',
    });
  }
  // Longest idle first: the episodes about to be reverted by the janitor are the ones to look at.
  return rows.sort((a, b) => (b.idleSeconds ?? -1) - (a.idleSeconds ?? -1) || a.episodeUuid.localeCompare(b.episodeUuid));
}

function parseRewards(value: unknown): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  if (!isRecord(value)) return out;
  for (const [taskId, list] of Object.entries(value)) {
    if (!Array.isArray(list)) continue;
    const numbers = list.map((x) => parseLooseNumber(x)).filter((x): x is number => x !== null);
    out[taskId] = numbers;
  }
  return out;
}

function parseClients(value: unknown): { clientUuid: string; agreedSyncWeight: boolean }[] {
  const list = isRecord(value) ? value['active_clients'] : undefined;
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).flatMap((c) =>
    typeof c['client_uuid'] === 'string' ? [{ clientUuid: c['client_uuid'], agreedSyncWeight: c['allowed_sync_weight'] === true }] : [],
  );
}

export function parsePoolInformation(body: Record<string, unknown>): PoolReading {
  const details = isRecord(body['completed_tasks_details']) ? body['completed_tasks_details'] : {};
  const episodesPerTask: Record<string, number> = {};
  const episodeIds: string[] = [];
  for (const [taskId, list] of Object.entries(details)) {
    if (!Array.isArray(list)) continue;
    episodesPerTask[taskId] = list.length;
    for (const id of list) if (typeof id === 'string') episodeIds.push(id);
  }
  const booting = body['booting_start_time'];
  const step = body['global_step'];
  return {
    sampleCollectionMethod: text(body['sample_collection_method']),
    episodes: fill(body['completed_episodes'], body['completed_episode_target']),
    tasks: fill(body['completed_tasks'], body['completed_task_target']),
    nonDummyTasks: fill(body['completed_non_dummy_tasks'], body['completed_non_dummy_task_target']),
    expectedRepeat: count(body['task_expected_num_repeat']),
    rewards: parseRewards(body['completed_tasks_rewards']),
    episodesPerTask,
    episodeIds,
    runningEpisodes: parseRunning(body['running_episode_details']),
    engineStatus: text(body['engine_status']),
    globalStep: typeof step === 'number' && Number.isInteger(step) ? step : null,
    bootingStartMs: typeof booting === 'number' && Number.isFinite(booting) && booting > 0 ? Math.round(booting * 1000) : null,
    modelPath: text(body['training_model_path']),
    activeClients: parseClients(body['swarm_client_instruction']),
  };
}

export interface Stats {
  n: number;
  mean: number | null;
  std: number | null;
  min: number | null;
  max: number | null;
}

/** Population mean/std (what overwatch shows as mean ± std), min and max; nulls for no values. */
export function stats(values: readonly number[]): Stats {
  const n = values.length;
  if (n === 0) return { n, mean: null, std: null, min: null, max: null };
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  return { n, mean, std: Math.sqrt(squares / n), min, max };
}

/** Per-task reward rows, most episodes first (overwatch's "top 30"), capped at `limit`. */
export function taskRewards(reading: Pick<PoolReading, 'rewards' | 'episodesPerTask'>, limit = 30): TaskReward[] {
  const ids = new Set([...Object.keys(reading.rewards), ...Object.keys(reading.episodesPerTask)]);
  const rows: TaskReward[] = [...ids].map((taskId) => {
    const s = stats(reading.rewards[taskId] ?? []);
    return { taskId, episodes: Math.max(reading.episodesPerTask[taskId] ?? 0, s.n), mean: s.mean, std: s.std };
  });
  rows.sort((a, b) => b.episodes - a.episodes || a.taskId.localeCompare(b.taskId, undefined, { numeric: true }));
  return rows.slice(0, limit);
}

/** Every reward of the batch, flattened: the step's reward statistics. */
export function allRewards(rewards: Record<string, number[]>): number[] {
  return Object.values(rewards).flat();
}

/**
 * Whether the pool shows a complete batch by the job's sample collection method (the counter the
 * trainer stops on); null when it cannot tell (the agree-sync-weight methods, an unknown method).
 */
export function batchComplete(reading: Pick<PoolReading, 'sampleCollectionMethod' | 'episodes' | 'tasks' | 'nonDummyTasks'>): boolean | null {
  const full = (fill: { done: number; target: number } | null): boolean | null => (fill && fill.target > 0 ? fill.done >= fill.target : null);
  switch (reading.sampleCollectionMethod) {
    case 'rollout_until_finish_enough_episodes':
      return full(reading.episodes);
    case 'rollout_until_finish_enough_tasks':
      return full(reading.tasks);
    case 'rollout_until_finish_enough_non_dummy_tasks':
      return full(reading.nonDummyTasks);
    default:
      return null;
  }
}
