import type { TrainingPoint } from '../../shared/schemas-profiles';
import { stats } from './pool-info';

/**
 * A step's batch as the trainer itself counted it, at the moment the batch was complete: the dry run
 * knows its own batch exactly (a real server only shows it in pool snapshots).
 */
export interface ExactStep {
  /** Which engine boot the step belongs to: a record of an earlier boot never lands in a newer run. */
  bootId: string;
  step: number;
  /** When the step's rollout began (ms since the epoch). */
  startedAt: number;
  rewards: number[];
  episodes: number;
  llmTokens: number | null;
  llmCalls: number | null;
  failures: number | null;
}

/** The pool as one poll saw it, reduced to what a step's record needs. */
export interface PoolSnapshot {
  /** completed_tasks_rewards. */
  rewards: Record<string, number[]>;
  /** The finished episodes' uuids (completed_tasks_details); empty when the server sends none. */
  episodeIds: readonly string[];
  completedEpisodes: number | null;
  /** Whether the batch was complete in this snapshot by the job's collection method; null: cannot tell. */
  complete: boolean | null;
}

interface Seen {
  rewards: number[];
  episodes: number;
  ids: ReadonlySet<string>;
  signature: string;
  complete: boolean | null;
}

interface StepAcc {
  step: number;
  startedAt: number;
  /** The step's start was seen (not joined midway, not resumed): its duration is known. */
  startSeen: boolean;
  seconds: Record<string, number>;
  seen: Seen | null;
}

/** At most this many "not observed" points for one jump of the global step (a server's odd answer must not flood the series). */
export const MAX_GAP_POINTS = 500;
/** Exact records kept for steps not closed yet. */
const MAX_PENDING_EXACT = 200;

const round = (n: number | null, digits = 4): number | null => (n === null ? null : Number(n.toFixed(digits)));

function signatureOf(pool: PoolSnapshot): string {
  return JSON.stringify([pool.rewards, [...pool.episodeIds].sort()]);
}

function seenOf(pool: PoolSnapshot): Seen {
  const rewards = Object.values(pool.rewards).flat();
  return {
    rewards,
    episodes: Math.max(pool.completedEpisodes ?? 0, rewards.length, pool.episodeIds.length),
    ids: new Set(pool.episodeIds),
    signature: signatureOf(pool),
    complete: pool.complete,
  };
}

function overlaps(a: ReadonlySet<string>, b: readonly string[]): boolean {
  return b.some((id) => a.has(id));
}

/** The step's numbers from the trainer's own record; the time the app measured stays. */
export function withExact(point: TrainingPoint, exact: ExactStep): TrainingPoint {
  const s = stats(exact.rewards);
  return {
    ...point,
    batch: 'exact',
    rewardMean: round(s.mean),
    rewardStd: round(s.std),
    rewardMin: round(s.min),
    rewardMax: round(s.max),
    episodes: exact.episodes,
    llmTokens: exact.llmTokens,
    llmCalls: exact.llmCalls,
    failures: exact.failures,
  };
}

/** A step that passed without a snapshot of its own: it happened, its numbers are unknown. */
export function unobservedPoint(step: number, now: number): TrainingPoint {
  return {
    step,
    at: new Date(now).toISOString(),
    batch: 'unobserved',
    rewardMean: null,
    rewardStd: null,
    rewardMin: null,
    rewardMax: null,
    episodes: null,
    seconds: null,
    llmTokens: null,
    llmCalls: null,
    failures: null,
    secondsInStatus: {},
  };
}

/**
 * Records each step of one run as it completes. A real server's batch is the last pool snapshot
 * before the global step changes; the pool keeps the old batch until the trainer's next push (about
 * 12 s upstream), so after an advance a snapshot that still shows the previous batch's episodes (by
 * uuid; by content when the server sends no uuids) is not the new step's. Steps the global step
 * jumped over, and steps that passed with no snapshot of their own, become "unobserved" points,
 * never "0 episodes". A trainer that counts its own batch (the dry run) hands in exact records,
 * which win over any snapshot, also when they arrive after the step closed.
 */
export class StepRecorder {
  private acc: StepAcc | null = null;
  /** The closed step's batch: a snapshot still showing it is stale. */
  private previous: Seen | null = null;
  /** Without uuids: the snapshot at the advance, stale until the pool changes. */
  private staleSignature: string | null = null;
  private readonly exact = new Map<number, ExactStep>();
  private bootId: string | null = null;

  constructor(private readonly emit: (point: TrainingPoint) => void) {}

  get currentStep(): number | null {
    return this.acc?.step ?? null;
  }

  /** A new run: nothing of the last one carries over (exact records of the current boot do). */
  reset(): void {
    this.acc = null;
    this.previous = null;
    this.staleSignature = null;
  }

  /** Time since the last poll belongs to the status in effect until now, in the current step. */
  addTime(status: string, seconds: number): void {
    if (this.acc && seconds > 0) this.acc.seconds[status] = (this.acc.seconds[status] ?? 0) + seconds;
  }

  /**
   * One poll of a training engine. `lastClosed`: the newest step already in the series (a resumed
   * run); `startSeen`: a step first met now began now (the engine just left BOOTING).
   */
  observe(now: number, step: number, pool: PoolSnapshot | null, lastClosed: number | null, startSeen: boolean): void {
    const acc = this.acc;
    if (acc && step !== acc.step) {
      // The trainer's push lag: the old batch, grown since the last poll, is still that step's.
      if (pool && acc.seen && acc.seen.ids.size > 0 && [...acc.seen.ids].every((id) => pool.episodeIds.includes(id)) && pool.episodeIds.length > acc.seen.ids.size) {
        acc.seen = seenOf(pool);
      }
      this.close(acc, now);
      this.gap(acc.step + 1, step, now);
      this.previous = acc.seen;
      this.staleSignature = pool ? signatureOf(pool) : null;
      this.acc = null;
    }
    if (!this.acc) {
      if (!acc && lastClosed !== null) this.gap(lastClosed + 1, step, now);
      // The run is first seen at a later step (a trainer faster than the poll): the steps it already
      // counted exactly are points too, from its first record on (a hole between records is "unobserved").
      else if (!acc) {
        const earliest = this.earliestExactBefore(step);
        if (earliest !== null) this.gap(earliest, step, now);
      }
      this.acc = { step, startedAt: now, startSeen: acc !== null || startSeen, seconds: {}, seen: null };
    }
    if (pool) this.consider(pool);
  }

  private consider(pool: PoolSnapshot): void {
    const acc = this.acc;
    if (!acc) return;
    const previousIds = this.previous?.ids;
    if (previousIds && previousIds.size > 0 && pool.episodeIds.length > 0) {
      if (overlaps(previousIds, pool.episodeIds)) return;
    } else if (this.staleSignature !== null && signatureOf(pool) === this.staleSignature) {
      return;
    }
    this.staleSignature = null;
    const seen = seenOf(pool);
    // An empty fresh batch says nothing about this step's numbers yet.
    if (seen.episodes === 0) return;
    acc.seen = seen;
  }

  /** The run ended (OFFLINE): a step cut short is still worth a point when something of it was seen. */
  finish(now: number): void {
    const acc = this.acc;
    this.acc = null;
    if (acc && (acc.seen || this.pendingExact(acc.step))) this.close(acc, now);
  }

  /**
   * The trainer's own record of a step. Returns it when that step is already closed (the caller
   * replaces the point); otherwise keeps it for when the step closes.
   */
  recordExact(record: ExactStep): ExactStep | null {
    if (record.bootId !== this.bootId) {
      this.exact.clear();
      this.bootId = record.bootId;
    }
    if (this.acc && record.step < this.acc.step) return record;
    this.exact.set(record.step, record);
    while (this.exact.size > MAX_PENDING_EXACT) this.exact.delete(this.exact.keys().next().value as number);
    return null;
  }

  private earliestExactBefore(step: number): number | null {
    let earliest: number | null = null;
    for (const s of this.exact.keys()) if (s < step && (earliest === null || s < earliest)) earliest = s;
    return earliest;
  }

  private pendingExact(step: number): ExactStep | null {
    return this.exact.get(step) ?? null;
  }

  private gap(from: number, to: number, now: number): void {
    const start = Math.max(from, to - MAX_GAP_POINTS);
    for (let s = start; s < to; s++) this.emit(this.pointOf(s, null, now));
  }

  private close(acc: StepAcc, now: number): void {
    this.emit(this.pointOf(acc.step, acc, now));
  }

  private pointOf(step: number, acc: StepAcc | null, now: number): TrainingPoint {
    const exact = this.pendingExact(step);
    this.exact.delete(step);
    const secondsInStatus: Record<string, number> = {};
    for (const [status, value] of Object.entries(acc?.seconds ?? {})) secondsInStatus[status] = Math.round(value * 10) / 10;
    const startedAt = acc?.startSeen ? acc.startedAt : (exact?.startedAt ?? null);
    const seconds = startedAt !== null && now >= startedAt ? Math.round((now - startedAt) / 100) / 10 : null;
    const base: TrainingPoint = { ...unobservedPoint(step, now), seconds, secondsInStatus };
    if (exact) return withExact(base, exact);
    const seen = acc?.seen;
    if (!seen) return base;
    const s = stats(seen.rewards);
    return {
      ...base,
      batch: seen.complete === false ? 'partial' : 'pool',
      rewardMean: round(s.mean),
      rewardStd: round(s.std),
      rewardMin: round(s.min),
      rewardMax: round(s.max),
      episodes: seen.episodes,
    };
  }
}
