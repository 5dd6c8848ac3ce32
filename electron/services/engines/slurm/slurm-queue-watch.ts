import type { SlurmJob } from '../../../shared/schemas-slurm';
import type { EngineHost } from '../container-engine';
import { slurmJobName } from './job-script';
import type { SlurmClient } from './slurm-client';
import { readRecords } from './slurm-files';
import { isEndedState } from './slurm-parse';
import type { SlurmJobRecord } from './slurm-state';

/*
 * The one poll of a login node's queue for all of the app's jobs there (issue 31): engine events, the container
 * listing, the jobs panel, limit warnings and log followers all read its newest answer instead of asking squeue
 * themselves. Paced by who can see it: every `shownMs` while a window shows the server, every `hiddenMs` while none
 * does, and no squeue at all while none of the app's jobs there can still change (only the job folders are read
 * again, every `idleMs`: a job submitted by the app on another computer with the same account). An ended job's end
 * is asked once (SlurmQueue keeps it). The rollout workers' job arrays ride on the same poll (issue 34): a worker pool
 * says which array names it wants asked about (`want`) and reads their tasks from the newest answer (`workerTasks`).
 */

/** The app's jobs on a login node at one moment: Slurm's view and the job folders' records. */
export interface SlurmQueueAnswer {
  /** Our jobs Slurm lists, and the kept ends of jobs it no longer lists (those with a record). */
  jobs: SlurmJob[];
  records: Map<string, SlurmJobRecord>;
  /** When the answer was asked for (ms): what `timeLeftSeconds` counts from. */
  at: number;
}

export interface SlurmQueueWatchOptions {
  host: EngineHost;
  client: Pick<SlurmClient, 'queue' | 'job' | 'knownEnd' | 'queueAskedAt' | 'forgetQueue' | 'workerTasks'>;
  /** Whether a window shows this server now (the lead's visibility service); default: always. */
  isShown?: () => boolean;
  /** Poll interval while shown (default 30 s: 2 squeues a minute, 2 controller requests each). */
  shownMs?: number;
  /** Poll interval while no window shows the server (default 60 s). */
  hiddenMs?: number;
  /** How often the job folders are read while no job of ours can change (default 5 min; no squeue then). */
  idleMs?: number;
  now: () => number;
}

export const SHOWN_POLL_MS = 30_000;
export const HIDDEN_POLL_MS = 60_000;
export const IDLE_POLL_MS = 300_000;
/** A reader takes an answer this much older than the interval (the poll's own squeue takes a moment). */
const SLACK_MS = 2000;

export class SlurmQueueWatch {
  private recordsCache: { at: number; value: Promise<Map<string, SlurmJobRecord>> } | null = null;
  private readonly listeners = new Set<(answer: SlurmQueueAnswer) => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private idle = false;
  private disposed = false;
  /** Job names others want asked about (worker arrays), each until a time (ms): a pool that stops asking drops out. */
  private readonly wanted = new Map<string, number>();

  constructor(private readonly options: SlurmQueueWatchOptions) {}

  /** The job names worth asking squeue about: records whose job is not known to have ended, and the wanted names. */
  async activeNames(): Promise<string[]> {
    const records = await this.records();
    const now = this.options.now();
    for (const [name, until] of this.wanted) if (until < now) this.wanted.delete(name);
    return [...new Set([...[...records.values()].filter((r) => this.options.client.knownEnd(r.jobId) === undefined).map((r) => slurmJobName(r.key)), ...this.wanted.keys()])];
  }

  /** Ask about jobs named `name` (a worker array) for the next `forMs` too; a caller that still cares says so again. */
  want(name: string, forMs: number): void {
    const fresh = !this.wanted.has(name);
    this.wanted.set(name, Math.max(this.wanted.get(name) ?? 0, this.options.now() + forMs));
    // An idle poll (no job of ours could change) takes its interval again: its answers now carry this name too.
    if (fresh && this.idle) this.kick();
  }

  /** The worker arrays' tasks from the newest answer when it is at most `maxAgeMs` old (default: the poll's interval), else a new one. */
  workerTasks(maxAgeMs = this.maxAgeMs): Promise<{ tasks: SlurmJob[]; at: number }> {
    return this.options.client.workerTasks({ maxAgeMs });
  }

  /** How old an answer readers take now: the current poll interval (+ slack). */
  get maxAgeMs(): number {
    return (this.shown() ? (this.options.shownMs ?? SHOWN_POLL_MS) : (this.options.hiddenMs ?? HIDDEN_POLL_MS)) + SLACK_MS;
  }

  /**
   * The newest answer when it is at most `maxAgeMs` old (default: the poll's interval), else a new one. The folders
   * are read again only every `idleMs` (or for a fresh read, 0): only the app writes them, and it tells (recordsChanged).
   */
  async read(maxAgeMs = this.maxAgeMs): Promise<SlurmQueueAnswer> {
    const records = await this.records(maxAgeMs === 0 ? 0 : this.options.idleMs ?? IDLE_POLL_MS);
    const listed = await this.options.client.queue({ maxAgeMs });
    const jobs = new Map(listed.map((j) => [j.id, j]));
    for (const record of records.values()) {
      const kept = jobs.has(record.jobId) ? undefined : this.options.client.knownEnd(record.jobId);
      if (kept) jobs.set(record.jobId, kept);
    }
    return { jobs: [...jobs.values()], records, at: this.options.client.queueAskedAt ?? this.options.now() };
  }

  /** The job folders' records: read again when older than `maxAgeMs` (the app's own writes clear them at once). */
  records(maxAgeMs = this.options.idleMs ?? IDLE_POLL_MS): Promise<Map<string, SlurmJobRecord>> {
    const cached = this.recordsCache;
    if (cached && this.options.now() - cached.at <= maxAgeMs) return cached.value;
    const entry = { at: this.options.now(), value: readRecords(this.options.host) };
    this.recordsCache = entry;
    entry.value.catch(() => {
      if (this.recordsCache === entry) this.recordsCache = null;
    });
    return entry.value;
  }

  /** The app wrote or removed a job folder: the next read sees the folders anew, and an idle watch wakes. */
  recordsChanged(): void {
    this.recordsCache = null;
    if (this.idle) this.kick();
  }

  /** Calls `listener` with every answer of the poll; the poll runs while anyone listens. Returns the unsubscribe. */
  subscribe(listener: (answer: SlurmQueueAnswer) => void): () => void {
    this.listeners.add(listener);
    if (!this.running && !this.timer) this.schedule(0);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
    };
  }

  /**
   * The app itself changed a job (released, cancelled, removed): the newest answer is no longer true, so the next
   * reader asks anew (an inspect right after a start must not see the held job of before), and the poll looks now.
   */
  changed(): void {
    this.options.client.forgetQueue();
    this.kick();
  }

  /** Poll now (after the app's own start or stop: the state is about to change), unless a poll is under way. */
  kick(): void {
    if (this.listeners.size === 0 || this.running || this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private shown(): boolean {
    return this.options.isShown?.() ?? true;
  }

  private schedule(delayMs: number): void {
    if (this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.poll();
    }, delayMs);
  }

  private async poll(): Promise<void> {
    this.running = true;
    let delay = this.maxAgeMs - SLACK_MS;
    try {
      // Idle (no job of ours can change): this turn reads the folders again (a job the app submitted elsewhere with this account).
      if (this.idle) this.recordsCache = null;
      // Half an interval: an answer a reader (a cancel's wait, a start) asked for just now is not asked again.
      let answer = await this.read(delay / 2);
      // Ends are asked once each (their exit codes): then they leave the names squeue is asked about.
      const unsettled = [...answer.records.values()].filter((r) => {
        const job = answer.jobs.find((j) => j.id === r.jobId);
        return this.options.client.knownEnd(r.jobId) === undefined && (job === undefined || isEndedState(job.state));
      });
      if (unsettled.length > 0) {
        await Promise.all(unsettled.map((r) => this.options.client.job(r.jobId, { maxAgeMs: delay }).catch(() => null)));
        answer = await this.read(delay);
      }
      this.idle = (await this.activeNames()).length === 0;
      if (this.idle) delay = this.options.idleMs ?? IDLE_POLL_MS;
      for (const listener of [...this.listeners]) listener(answer);
    } catch {
      // The login node or slurmctld did not answer: keep the last state and ask again at the interval (reconnects by itself).
    } finally {
      this.running = false;
    }
    if (this.listeners.size > 0) this.schedule(delay);
  }
}
