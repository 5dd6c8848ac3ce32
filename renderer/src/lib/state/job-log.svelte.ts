import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { JobLogLine } from '../../../../electron/shared/schemas-jobs';
import type { z } from 'zod';

export type JobLogLineData = z.infer<typeof JobLogLine>;

/** Lines a job log view keeps in memory; older ones are in the log file ("open the full log"). */
export const JOB_LOG_KEEP = 2000;
/** Lines asked per `jobs:log` (the backend allows up to 5,000). */
export const JOB_LOG_READ = 500;

/** What opening a run's log file came to: opened, or (browser host, file gone) the path to copy, or another error. */
export type OpenLogOutcome =
  | { kind: 'opened'; path: string }
  | { kind: 'unavailable'; path: string; message: string }
  | { kind: 'failed'; error: AppErrorShape };

/**
 * Asks the backend to open the run's log file. LOG_UNAVAILABLE is expected (the browser host has no
 * file viewer; the file may be gone), so it comes back with the path the user can copy instead:
 * `knownPath` when the caller has the job's view, else from `jobs:get`.
 */
export async function openJobLog(api: ExposedApi, jobId: string, knownPath?: string): Promise<OpenLogOutcome> {
  const result = await api.jobs.openLog({ jobId });
  if (result.ok) return { kind: 'opened', path: result.value.path };
  if (result.error.code !== 'LOG_UNAVAILABLE') return { kind: 'failed', error: result.error };
  let path = knownPath ?? '';
  if (!knownPath) {
    const job = await api.jobs.get({ jobId });
    if (job.ok) path = job.value.logFile;
  }
  return { kind: 'unavailable', path, message: result.error.message };
}

/**
 * One job's log as a view shows it: the newest `keep` lines, read by cursor through `jobs:log`.
 * `jobs:log-appended` only says the total grew (batched by the backend); bursts of it coalesce into
 * one read loop, so there is never more than one request in flight, and a view that fell far behind
 * skips to the newest `keep` lines instead of reading everything in between.
 */
export class JobLogState {
  /** The kept lines, oldest first (replaced as a whole: cheap to track). */
  lines = $state.raw<JobLogLineData[]>([]);
  /** Lines the backend has, as far as we know. */
  total = $state(0);
  loaded = $state(false);
  error = $state<AppErrorShape | null>(null);
  /** Stick to the newest line; off once the user scrolls up. */
  following = $state(true);
  /** Lines received since the view was opened; with `leftAt`, how many came since the user scrolled up. */
  received = $state(0);
  private leftAt = 0;
  opening = $state(false);
  openOutcome = $state<OpenLogOutcome | null>(null);

  /** The next line number to read. */
  private cursor = 0;
  /** The highest total announced so far: the read loop runs until it has read up to it. */
  private wanted = 0;
  private reading = false;
  private stopped = false;

  constructor(
    private readonly api: ExposedApi,
    readonly jobId: string,
    private readonly keep = JOB_LOG_KEEP,
    private readonly readLimit = JOB_LOG_READ,
  ) {}

  /** Lines before the first one kept (trimmed, or skipped when the view fell behind). */
  readonly earlier = $derived(this.lines[0]?.n ?? 0);
  /** New lines since the user stopped following (what "Jump to the end" counts). */
  readonly unseen = $derived(this.following ? 0 : this.received - this.leftAt);

  /** Reads what is there and follows `jobs:log-appended`; returns the teardown. */
  start(): () => void {
    const off = this.api.events.on('jobs:log-appended', (event) => {
      if (event.jobId !== this.jobId) return;
      this.wanted = Math.max(this.wanted, event.total);
      void this.pump();
    });
    void this.pump();
    return () => {
      this.stopped = true;
      off();
    };
  }

  setFollowing(following: boolean): void {
    if (following === this.following) return;
    this.following = following;
    if (!following) this.leftAt = this.received;
  }

  async openFullLog(): Promise<void> {
    if (this.opening) return;
    this.opening = true;
    try {
      this.openOutcome = await openJobLog(this.api, this.jobId);
    } finally {
      this.opening = false;
    }
  }

  /**
   * The one read loop. An event while it runs only raises `wanted`: the loop sees it before it
   * ends, so a burst of events costs one request at a time, never one request per event.
   */
  private async pump(): Promise<void> {
    if (this.reading || this.stopped) return;
    this.reading = true;
    try {
      do {
        const from = this.cursor;
        const result = await this.api.jobs.log({ jobId: this.jobId, from, limit: this.readLimit });
        // A view closed (or showing another job) meanwhile: its answer belongs to nobody.
        if (this.stopped) return;
        this.loaded = true;
        if (!result.ok) {
          // The next `jobs:log-appended` tries again.
          this.error = result.error;
          return;
        }
        this.error = null;
        const { lines, total } = result.value;
        this.wanted = Math.max(this.wanted, total);
        this.total = Math.max(this.total, total);
        if (total - from >= this.keep + lines.length) {
          // Far behind (a long log opened, a burst while the machine was busy): everything before
          // the newest `keep` lines would be trimmed at once, so skip to them.
          this.cursor = total - this.keep;
          this.lines = [];
          continue;
        }
        if (lines.length === 0) break;
        this.append(lines);
        this.cursor = from + lines.length;
      } while (this.cursor < this.wanted);
    } finally {
      this.reading = false;
    }
  }

  private append(lines: JobLogLineData[]): void {
    const next = this.lines.concat(lines);
    this.lines = next.length > this.keep ? next.slice(next.length - this.keep) : next;
    this.received += lines.length;
  }
}
