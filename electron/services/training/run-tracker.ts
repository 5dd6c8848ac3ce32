import type { StatusSpan, TrainingPoint, TrainingSeries } from '../../shared/schemas-profiles';
import { MAX_POINTS_IN_MEMORY, MAX_STATUSES_IN_MEMORY, newRunId, pushCapped, storedPoint, type RunRecord, type StoredRun } from './series-store';
import { StepRecorder, unobservedPoint, withExact, type ExactStep, type PoolSnapshot } from './step-recorder';

export const OFFLINE = 'ENGINE.OFFLINE';
export const BOOTING = 'ENGINE.BOOTING';
export const ROLLING = 'ENGINE.ROLLING';
/** The statuses of a booted engine: its global_step is current progress (after a stop it is stale). */
const TRAINING = new Set([ROLLING, 'ENGINE.ROLLING_POST', 'ENGINE.WEIGHT_SYNCING', 'ENGINE.WEIGHT_EXPORTING']);

export function isTraining(status: string | null): boolean {
  return status !== null && TRAINING.has(status);
}

/** What one poll saw, reduced to what the series needs. */
export interface Observation {
  now: number;
  status: string | null;
  /** The server's global_step as sent (possibly stale; the tracker decides). */
  globalStep: number | null;
  /** The pool's completed_tasks_rewards (null: the pool route did not answer). */
  rewards: Record<string, number[]> | null;
  completedEpisodes: number | null;
  /** The finished episodes' uuids (completed_tasks_details): what tells one batch from the next. */
  episodeIds?: readonly string[];
  /** Whether the batch was complete in the pool by the job's collection method (absent: cannot tell). */
  batchComplete?: boolean | null;
}

export type TrackerEvent = 'reached-rolling' | 'went-offline';

export interface TrackerOutput {
  /** Lines for the current run's file (the run id they belong to is `runId` after the call). */
  records: RunRecord[];
  events: TrackerEvent[];
}

/** Most points and spans `series()` returns: a chart has no use for more, and the event stays small. */
export const MAX_POINTS_RETURNED = 1000;
export const MAX_SPANS_RETURNED = 300;

/**
 * The run state of one server, fed one observation per poll. A run starts when the engine goes
 * BOOTING (or when we first see it training without a stored run). Per global step it sums the
 * seconds spent in each status; the StepRecorder turns each completed step into a TrainingPoint
 * (the last pool snapshot before the advance, or the trainer's exact record, or "not observed").
 */
export class RunTracker {
  runId: string | null = null;
  private runStartedAt = 0;
  private points: TrainingPoint[] = [];
  private statuses: { status: string; at: number }[] = [];
  private ended = true;
  private status: string | null = null;
  private lastTickAt: number | null = null;
  private readonly steps = new StepRecorder((point) => this.addPoint(point));
  /** Records made by the recorder during the current call, for the run file. */
  private pending: RunRecord[] = [];
  private reachedRolling = false;
  /** When the current status began (ms, as we saw it). */
  statusSince: number | null = null;

  /** Continues a run read back from disk (a backend restart). */
  resume(run: StoredRun): void {
    this.runId = run.runId;
    this.runStartedAt = run.startedAt;
    this.points = run.points;
    this.statuses = run.statuses;
    this.ended = run.ended;
    const last = run.statuses.at(-1);
    this.status = run.ended ? null : (last?.status ?? null);
    this.statusSince = last?.at ?? null;
    this.reachedRolling = run.statuses.some((s) => s.status === ROLLING);
  }

  observe(o: Observation): TrackerOutput {
    const out: TrackerOutput = { records: [], events: [] };
    if (o.status === null) return out;
    // The first poll after a (re)start sees a state, not a change: nothing to notify about.
    const first = this.lastTickAt === null;
    const prev = this.status;
    // Time since the last poll belongs to the status in effect until now, and to the current step.
    if (prev !== null && this.lastTickAt !== null && o.now > this.lastTickAt) this.steps.addTime(prev, (o.now - this.lastTickAt) / 1000);
    this.lastTickAt = o.now;

    const boots = o.status === BOOTING && prev !== BOOTING;
    const lastStep = this.steps.currentStep ?? this.points.at(-1)?.step ?? null;
    // Training without a run we know (first sight, or the stored run ended or is from an earlier boot).
    const joins =
      isTraining(o.status) && (this.ended || this.runId === null || (o.globalStep !== null && lastStep !== null && o.globalStep < lastStep));
    if (boots || joins) this.startRun(o, out);

    if (o.status !== prev) {
      this.status = o.status;
      this.statusSince = o.now;
      if (!this.ended) {
        pushCapped(this.statuses, { status: o.status, at: o.now }, MAX_STATUSES_IN_MEMORY);
        out.records.push({ k: 's', s: o.status, t: o.now });
      }
      if (o.status === ROLLING && !this.reachedRolling && !this.ended) {
        this.reachedRolling = true;
        out.events.push('reached-rolling');
      }
      if (o.status === OFFLINE && isTraining(prev)) out.events.push('went-offline');
    }

    if (isTraining(o.status) && o.globalStep !== null && !this.ended) {
      const pool: PoolSnapshot | null = o.rewards
        ? { rewards: o.rewards, episodeIds: o.episodeIds ?? [], completedEpisodes: o.completedEpisodes, complete: o.batchComplete ?? null }
        : null;
      this.steps.observe(o.now, o.globalStep, pool, this.points.at(-1)?.step ?? null, prev === BOOTING);
    }
    if (o.status === OFFLINE && !this.ended && this.runId !== null) this.endRun(o.now);
    out.records.push(...this.takeRecords());
    if (first) out.events = [];
    return out;
  }

  /**
   * The trainer's own record of a completed step (the dry run). A step already closed gets its
   * point replaced (a later point of the same step wins when the run file is read back).
   */
  recordExact(record: ExactStep): RunRecord[] {
    // Kept even before the run is seen to begin (a fast boot between two polls): the step closes later.
    const closed = this.steps.recordExact(record);
    if (closed && !this.ended && this.runId !== null) {
      const index = this.points.findLastIndex((p) => p.step === closed.step);
      const old = index >= 0 ? this.points[index] : undefined;
      if (old && old.batch !== 'exact') {
        const point = withExact(old, closed);
        this.points[index] = point;
        this.pending.push({ k: 'p', ...storedPoint(point) });
      } else if (!old) {
        // A step that closed before the run was seen (its record came after the first poll): it goes in its place.
        const point = withExact(unobservedPoint(closed.step, Date.now()), closed);
        const at = this.points.findIndex((p) => p.step > closed.step);
        if (at < 0) pushCapped(this.points, point, MAX_POINTS_IN_MEMORY);
        else this.points.splice(at, 0, point);
        this.pending.push({ k: 'p', ...storedPoint(point) });
      }
    }
    return this.takeRecords();
  }

  private addPoint(point: TrainingPoint): void {
    pushCapped(this.points, point, MAX_POINTS_IN_MEMORY);
    this.pending.push({ k: 'p', ...storedPoint(point) });
  }

  private takeRecords(): RunRecord[] {
    const records = this.pending;
    this.pending = [];
    return records;
  }

  /** Polling paused (the container stopped): the time until the next poll belongs to no status. */
  pause(): void {
    this.lastTickAt = null;
  }

  private startRun(o: Observation, out: TrackerOutput): void {
    this.runId = newRunId(o.now);
    this.runStartedAt = o.now;
    this.points = [];
    this.statuses = [];
    this.ended = false;
    this.steps.reset();
    this.pending = [];
    this.reachedRolling = false;
    // A fresh run records its first status even when the previous run ended in the same one.
    this.status = null;
    out.records.push({ k: 'run', runId: this.runId, t: o.now });
  }

  private endRun(now: number): void {
    this.steps.finish(now);
    this.ended = true;
    this.pending.push({ k: 'end', t: now });
  }

  /** The global step to show: only a training engine's step is progress (appendix point 7). */
  currentStep(status: string | null, serverStep: number | null): number | null {
    return isTraining(status) ? serverStep : null;
  }

  series(engineId: string, containerId: string): TrainingSeries {
    return { engineId, containerId, runId: this.runId, points: thin(this.points, MAX_POINTS_RETURNED), timeline: this.timeline() };
  }

  private timeline(): StatusSpan[] {
    const spans: StatusSpan[] = [];
    const list = this.statuses.slice(-MAX_SPANS_RETURNED);
    list.forEach((entry, i) => {
      const next = list[i + 1];
      spans.push({ status: entry.status, from: new Date(entry.at).toISOString(), to: next ? new Date(next.at).toISOString() : null });
    });
    // An ended run's last span (OFFLINE) is its end: it stays open, the engine is still offline.
    return spans;
  }

  get startedAt(): number {
    return this.runStartedAt;
  }
}

/** At most `max` points, evenly spread, always keeping the newest. */
export function thin<T>(points: readonly T[], max: number): T[] {
  if (points.length <= max) return [...points];
  const every = Math.ceil(points.length / max);
  const out: T[] = [];
  const lastIndex = points.length - 1;
  // Counted back from the newest, so the newest point is always in and the stride stays even.
  for (let i = lastIndex; i >= 0 && out.length < max; i -= every) out.push(points[i] as T);
  return out.reverse();
}
