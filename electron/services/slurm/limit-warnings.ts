import type { AppNotification } from '../../shared/schemas-profiles';
import type { SlurmJobView } from '../../shared/schemas-slurm';
import type { Notifier } from '../notifier';
import type { Logger } from '../util/logger';

/** A login node whose app jobs can be read (a SlurmEngine). */
export interface LimitWarningSource {
  engineId: string;
  jobViews: () => Promise<SlurmJobView[]>;
}

export interface SlurmLimitWarningsOptions {
  /** The Slurm login nodes registered now (servers come and go). */
  sources: () => LimitWarningSource[];
  notifier: Notifier;
  logger: Logger;
  /** How often a login node with a running app job is asked (default 15 s: the warning comes ≥ 10 s before the limit, usually minutes). */
  intervalMs?: number;
  /** How often a login node without one is asked (default 60 s: a job started elsewhere, or after an app restart). */
  idleIntervalMs?: number;
  now?: () => number;
  /**
   * The fleet's alert book (issue 33) tells the warning as one of its alerts (told once, listed, acknowledged,
   * resolved); without it the warning is notified and logged here, as before the fleet existed.
   */
  alerts?: {
    /** `say`: the same warning as data, for the fleet page's words. */
    warned: (view: SlurmJobView, text: { title: string; body: string; say: ReturnType<typeof limitWarningSay> }) => void;
    /** The job is no longer listed: its episode ends. */
    gone: (engineId: string, jobId: string) => void;
  };
}

const INTERVAL_MS = 15_000;
const IDLE_INTERVAL_MS = 60_000;

/** Seconds until the limit: Slurm's time left when read, else the warning's lead minus the time since it came. */
export function secondsToLimit(view: Pick<SlurmJobView, 'timeLeftSeconds' | 'limitWarning' | 'readAt'>, now: number): number | null {
  if (view.timeLeftSeconds !== null) return Math.max(0, view.timeLeftSeconds - Math.max(0, Math.round((now - Date.parse(view.readAt)) / 1000)));
  if (!view.limitWarning) return null;
  return Math.max(0, view.limitWarning.seconds - Math.max(0, Math.round((now - Date.parse(view.limitWarning.at)) / 1000)));
}

/** "Slurm job 12 reaches its time limit in ~40 s: training stops then; save a checkpoint or restart with a longer limit." */
/** The same warning as data, for the fleet page's words (`fleet.say.<key>`). */
export function limitWarningSay(view: SlurmJobView, now: number): { key: string; params: Record<string, string | number> } {
  const left = secondsToLimit(view, now);
  return left === null ? { key: 'slurmLimitSoon', params: { job: view.id } } : { key: 'slurmLimitIn', params: { job: view.id, seconds: left } };
}

export function limitWarningText(view: SlurmJobView, now: number): { title: string; body: string } {
  const left = secondsToLimit(view, now);
  const when = left === null ? 'soon' : `in ~${left} s`;
  const profile = view.profileId ? ` (profile ${view.profileId})` : '';
  return {
    title: `Slurm job ${view.id} reaches its time limit ${when}`,
    body: `Slurm job ${view.id}${profile} reaches its time limit ${when}: training stops then; save a checkpoint or restart with a longer limit.`,
  };
}

/**
 * Tells the user (desktop notification and the app log) once per job when Slurm has sent a running job
 * its time-limit warning (USR1, `--signal=B:USR1@<s>`; the job script writes the `warning` file that
 * `slurm:jobs` reads). Polls each login node: often while one of the app's jobs runs there, rarely else.
 */
export class SlurmLimitWarnings {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private readonly nextAt = new Map<string, number>();
  /** engineId:jobId of the jobs already announced (dropped once the job is no longer listed). */
  private readonly announced = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly options: SlurmLimitWarningsOptions) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  dispose(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One round: every login node that is due. Exposed for tests. */
  async pollDue(): Promise<void> {
    const now = this.now();
    const sources = this.options.sources();
    for (const id of [...this.nextAt.keys()]) if (!sources.some((s) => s.engineId === id)) this.nextAt.delete(id);
    await Promise.all(sources.filter((s) => (this.nextAt.get(s.engineId) ?? 0) <= now).map((s) => this.pollSource(s)));
  }

  private async pollSource(source: LimitWarningSource): Promise<void> {
    let views: SlurmJobView[];
    try {
      views = await source.jobViews();
    } catch {
      // The login node is away (the server card says so): ask again at the idle pace.
      this.nextAt.set(source.engineId, this.now() + (this.options.idleIntervalMs ?? IDLE_INTERVAL_MS));
      return;
    }
    const running = views.some((v) => v.state === 'RUNNING' || v.state === 'PENDING');
    this.nextAt.set(source.engineId, this.now() + (running ? (this.options.intervalMs ?? INTERVAL_MS) : (this.options.idleIntervalMs ?? IDLE_INTERVAL_MS)));
    const listed = new Set(views.map((v) => `${source.engineId}:${v.id}`));
    for (const key of [...this.announced]) {
      if (!key.startsWith(`${source.engineId}:`) || listed.has(key)) continue;
      this.announced.delete(key);
      this.options.alerts?.gone(source.engineId, key.slice(source.engineId.length + 1));
    }
    for (const view of views) {
      const key = `${source.engineId}:${view.id}`;
      if (!view.limitWarning || view.state !== 'RUNNING' || this.announced.has(key)) continue;
      this.announced.add(key);
      this.announce(view);
    }
  }

  private announce(view: SlurmJobView): void {
    const { title, body } = limitWarningText(view, this.now());
    if (this.options.alerts) {
      this.options.alerts.warned(view, { title, body, say: limitWarningSay(view, this.now()) });
      return;
    }
    this.options.logger.warn(body, { engineId: view.engineId, jobId: view.id });
    const notification: AppNotification = { kind: 'slurm-time-limit', title, body, engineId: view.engineId, containerId: view.id };
    try {
      this.options.notifier.notify(notification);
    } catch (error) {
      this.options.logger.warn('could not show a notification', { kind: notification.kind, message: String((error as Error)?.message ?? error) });
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.pollDue().finally(() => {
        const sources = this.options.sources().map((s) => this.nextAt.get(s.engineId) ?? 0);
        const next = sources.length === 0 ? this.now() + (this.options.intervalMs ?? INTERVAL_MS) : Math.min(...sources);
        this.schedule(Math.max(1000, next - this.now()));
      });
    }, delayMs);
  }
}
