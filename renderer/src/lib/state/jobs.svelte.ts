import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { Result } from '../../../../electron/shared/result';
import { openJobLog } from './job-log.svelte';
import type { JobKindName, JobViewData } from '../../../../electron/shared/schemas-jobs';

/** The state filter groups the short-lived states with the one they lead to: "active" is starting, running or cancelling. */
export type JobStateFilter = 'all' | 'active' | 'succeeded' | 'failed' | 'cancelled';
export type JobKindFilter = 'all' | JobKindName;
export type JobAction = 'cancel' | 'rerun' | 'open-log';

const ACTIVE_STATES: readonly JobViewData['state'][] = ['starting', 'running', 'cancelling'];

export function isActive(job: Pick<JobViewData, 'state'>): boolean {
  return ACTIVE_STATES.includes(job.state);
}

/** Newest first, as `jobs:list` sends them; ties (same millisecond) by id so the order is stable. */
function newestFirst(a: JobViewData, b: JobViewData): number {
  return b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id);
}

/**
 * The run history as the Jobs page shows it: `jobs:list` once, then every `jobs:changed` snapshot
 * (one job each), the filters, the selected run, and its actions (cancel, run again, open the log)
 * with their busy flags and errors per job.
 */
export class JobsState {
  items = $state<JobViewData[]>([]);
  loaded = $state(false);
  loadError = $state<AppErrorShape | null>(null);
  kind = $state<JobKindFilter>('all');
  stateFilter = $state<JobStateFilter>('all');
  selectedId = $state<string | null>(null);
  /** Actions in flight, by action and job (cancel answers only once the process tree ended: seconds). */
  busy = $state<Record<string, true>>({});
  /** The last failed action per job, with its error; cleared when an action is tried again. */
  errors = $state<Record<string, { action: JobAction; error: AppErrorShape }>>({});
  /** The log could not be opened here (the browser host, a deleted file): the path to copy instead. */
  logUnavailable = $state<Record<string, { path: string; message: string }>>({});

  /** Counts `jobs:changed` events; `eventAt` is the count when each job last had one (not reactive: race guards only). */
  private events = 0;
  private readonly eventAt: Record<string, number> = {};
  /** Counts `jobs:list` requests: only the newest one's answer is used. */
  private loads = 0;

  constructor(private readonly api: ExposedApi) {}

  readonly visible = $derived(this.items.filter((job) => this.matches(job)));
  readonly selected = $derived(this.items.find((job) => job.id === this.selectedId) ?? null);

  start(): () => void {
    const off = this.api.events.on('jobs:changed', (job) => {
      this.events += 1;
      this.eventAt[job.id] = this.events;
      this.put(job);
    });
    void this.load();
    return off;
  }

  async load(): Promise<void> {
    const load = ++this.loads;
    const eventsBefore = this.events;
    const result = await this.api.jobs.list({});
    // Refresh pressed twice: the older answer is not the newer word.
    if (load !== this.loads) return;
    this.loaded = true;
    if (!result.ok) {
      this.loadError = result.error;
      return;
    }
    this.loadError = null;
    // A job that had a `jobs:changed` while the list was on its way: the event is newer than the list.
    const newer = (id: string): boolean => (this.eventAt[id] ?? 0) > eventsBefore;
    const kept = this.items.filter((job) => newer(job.id));
    const listed = result.value.filter((job) => !newer(job.id));
    this.items = [...kept, ...listed].sort(newestFirst);
  }

  matches(job: JobViewData): boolean {
    if (this.kind !== 'all' && job.kind !== this.kind) return false;
    switch (this.stateFilter) {
      case 'all':
        return true;
      case 'active':
        return isActive(job);
      default:
        return job.state === this.stateFilter;
    }
  }

  clearFilters(): void {
    this.kind = 'all';
    this.stateFilter = 'all';
  }

  select(id: string | null): void {
    this.selectedId = id;
  }

  isBusy(jobId: string, action: JobAction): boolean {
    return this.busy[busyKey(jobId, action)] === true;
  }

  /** SIGINT, then SIGTERM, then SIGKILL (the backend escalates); the answer comes once the run ended. */
  async cancel(jobId: string): Promise<boolean> {
    const result = await this.act(jobId, 'cancel', () => this.api.jobs.cancel({ jobId }));
    if (result?.ok) this.put(result.value);
    return result?.ok === true;
  }

  /** The same script, arguments and target as a new run, which becomes the selected one. */
  async rerun(jobId: string): Promise<JobViewData | null> {
    const result = await this.act(jobId, 'rerun', () => this.api.jobs.rerun({ jobId }));
    if (!result?.ok) return null;
    this.put(result.value);
    this.selectedId = result.value.id;
    return result.value;
  }

  /** Opens the log file in the system's viewer; where that cannot be done, keeps the path to show. */
  async openLog(jobId: string): Promise<boolean> {
    const key = busyKey(jobId, 'open-log');
    if (this.busy[key]) return false;
    this.busy[key] = true;
    delete this.errors[jobId];
    delete this.logUnavailable[jobId];
    try {
      const outcome = await openJobLog(this.api, jobId, this.items.find((job) => job.id === jobId)?.logFile);
      // LOG_UNAVAILABLE is not an error to dismiss but a way on: the path to copy, and the backend's reason.
      if (outcome.kind === 'unavailable') this.logUnavailable[jobId] = { path: outcome.path, message: outcome.message };
      if (outcome.kind === 'failed') this.errors[jobId] = { action: 'open-log', error: outcome.error };
      return outcome.kind === 'opened';
    } finally {
      delete this.busy[key];
    }
  }

  dismissError(jobId: string): void {
    delete this.errors[jobId];
  }

  dismissLogUnavailable(jobId: string): void {
    delete this.logUnavailable[jobId];
  }

  /** One job's newer snapshot replaces the old one; a new job goes in by its start time. */
  private put(job: JobViewData): void {
    const index = this.items.findIndex((item) => item.id === job.id);
    if (index === -1) {
      this.items = [...this.items, job].sort(newestFirst);
      return;
    }
    // An action's answer can arrive after a later `jobs:changed` (cancel answers once the run
    // ended; the event for the end may come first): an ended run never goes back to running.
    if (!isActive(this.items[index]!) && isActive(job)) return;
    this.items[index] = job;
  }

  /** Runs one action of one job (a second click while it runs does nothing); failures land in `errors`. */
  private async act<T>(jobId: string, action: JobAction, call: () => Promise<Result<T>>): Promise<Result<T> | null> {
    const key = busyKey(jobId, action);
    if (this.busy[key]) return null;
    this.busy[key] = true;
    delete this.errors[jobId];
    try {
      const result = await call();
      if (!result.ok) this.errors[jobId] = { action, error: result.error };
      return result;
    } finally {
      delete this.busy[key];
    }
  }
}

function busyKey(jobId: string, action: JobAction): string {
  return `${action}:${jobId}`;
}
