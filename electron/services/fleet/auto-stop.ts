import type { AutoStop, AutoStopPlan, FleetAlert } from '../../shared/schemas-fleet';
import type { TrainingView } from '../../shared/schemas-profiles';
import type { ServerState } from '../../shared/server-state';
import type { Logger } from '../util/logger';
import type { AlertBook } from './alert-book';

const MINUTE = 60_000;
/** While a stop waits for a training step to end, the cached states are looked at this often (no target is asked). */
const STEP_RECHECK_MS = 5_000;

/** Engine statuses in which a training step runs whatever the pool says (reference §3: after ROLLING until the next one). */
const STEP_STATUSES = new Set(['ENGINE.ROLLING_POST', 'ENGINE.WEIGHT_SYNCING', 'ENGINE.WEIGHT_EXPORTING']);

/**
 * Whether a training step is in progress: the rollout has closed and weights are being synced or exported, or the
 * engine is ROLLING with the step's batch filling (an episode claimed or finished in this step). Stopping then would
 * throw away a step's work; an idle ROLLING engine with an empty batch is not training.
 */
export function stepInProgress(state: Pick<ServerState, 'engineStatus'>, view: Pick<TrainingView, 'runningEpisodes' | 'episodes'> | undefined): boolean {
  if (state.engineStatus !== null && STEP_STATUSES.has(state.engineStatus)) return true;
  if (state.engineStatus !== 'ENGINE.ROLLING' || !view) return false;
  return view.runningEpisodes.length > 0 || (view.episodes?.done ?? 0) > 0;
}

/** When the warning is due and when the stop is: N/2 minutes before, and never sooner than N/2 minutes after the warning was told. */
export function autoStopTimes(openedAt: string, warnedAt: string | null, minutes: number): { warnAt: number; stopAt: number } {
  const stopAt = Date.parse(openedAt) + minutes * MINUTE;
  const lead = (minutes / 2) * MINUTE;
  return { warnAt: stopAt - lead, stopAt: warnedAt === null ? stopAt : Math.max(stopAt, Date.parse(warnedAt) + lead) };
}

function minutesText(minutes: number): string {
  return minutes >= 1 ? `${Math.round(minutes)} min` : `${Math.round(minutes * 60)} s`;
}

export interface AutoStopOptions {
  book: AlertBook;
  /** The auto-stop setting of a server's profile; null when it has no profile. */
  settingOf: (state: ServerState) => AutoStop | null;
  /** Stops the server the way the user's Stop does (a Slurm job is cancelled). */
  stop: (engineId: string, containerId: string) => Promise<void>;
  /**
   * Asks the training monitor to read this server's batch (its pool loop, the dashboard's) while a stop is near,
   * so "a step is running" is current when the time comes; off again afterwards. Not a poller of its own.
   */
  watchBatch: (engineId: string, containerId: string, on: boolean) => void;
  /** Looks at everything again (the fleet alerts' evaluation): when a warning or a stop falls due. */
  wake: () => void;
  logger: Logger;
}

/**
 * Auto-stop (issue 33; off by default, per profile): once a GPUs-idle alert has held for the profile's N more
 * minutes, the server is stopped, after a notification N/2 minutes before that says how to keep it (acknowledge
 * the alert, or turn auto-stop off). Never while a training step is in progress: the stop then waits for it.
 * Works from the alert book and cached states only; its one timer wakes the evaluation when something is due.
 */
export class AutoStopper {
  private timer: NodeJS.Timeout | null = null;
  private readonly stopping = new Set<string>();
  private readonly watched = new Set<string>();
  private disposed = false;

  constructor(private readonly options: AutoStopOptions) {}

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const key of [...this.watched]) this.unwatch(key);
  }

  /** One look: plans, warnings and stops of every GPUs-idle episode, from the states and training views given. */
  review(states: readonly ServerState[], views: ReadonlyMap<string, TrainingView>, now: number): void {
    // A look that was under way when the app closed stops nothing.
    if (this.disposed) return;
    let nextWake = Number.POSITIVE_INFINITY;
    const near = new Set<string>();
    for (const alert of this.options.book.list()) {
      if (alert.rule !== 'gpus-idle') continue;
      const key = `${alert.engineId}:${alert.containerId}`;
      const state = states.find((s) => s.key === key);
      if (alert.state !== 'open' || !state || state.phase === 'ended') continue;
      const setting = this.options.settingOf(state);
      const plan = alert.autoStop ?? null;
      if (!setting?.enabled) {
        if (plan && (plan.state === 'pending' || plan.state === 'waiting-step')) {
          this.options.logger.info?.(`auto-stop turned off for ${alert.name}: it keeps running`, { engineId: alert.engineId, containerId: alert.containerId });
          this.options.book.setAutoStop(alert.id, null);
        }
        continue;
      }
      if (plan && plan.state !== 'pending' && plan.state !== 'waiting-step') continue;
      const wake = this.advance(alert, plan, setting.minutes, state, views.get(key), now);
      if (wake.near) near.add(key);
      nextWake = Math.min(nextWake, wake.at);
    }
    for (const key of near) this.watch(key);
    for (const key of [...this.watched]) if (!near.has(key)) this.unwatch(key);
    this.schedule(nextWake, now);
  }

  /** Moves one episode's plan on; says when to look again and whether its stop is near (its batch is watched). */
  private advance(alert: FleetAlert, plan: AutoStopPlan | null, minutes: number, state: ServerState, view: TrainingView | undefined, now: number): { at: number; near: boolean } {
    let warnedAt = plan?.warnedAt ?? null;
    const times = autoStopTimes(alert.openedAt, warnedAt, minutes);
    if (warnedAt === null && now >= times.warnAt) {
      warnedAt = new Date(now).toISOString();
      const left = (autoStopTimes(alert.openedAt, warnedAt, minutes).stopAt - now) / MINUTE;
      this.options.book.notify(
        alert,
        `Auto-stop in ${minutesText(left)}: ${alert.name}`,
        `${alert.name} will be stopped in ${minutesText(left)} by auto-stop: its GPUs are idle (${alert.detail}). To keep it running, acknowledge the GPUs-idle alert (Keep running, on the Fleet page), or turn auto-stop off in its profile.`,
      );
    }
    const stopAt = autoStopTimes(alert.openedAt, warnedAt, minutes).stopAt;
    const at = new Date(stopAt).toISOString();
    if (warnedAt === null || now < stopAt) {
      this.options.book.setAutoStop(alert.id, { at, warnedAt, state: 'pending' });
      return { at: warnedAt === null ? times.warnAt : stopAt, near: warnedAt !== null };
    }
    if (stepInProgress(state, view)) {
      if (plan?.state !== 'waiting-step') this.options.logger.info?.(`auto-stop of ${alert.name} waits for the training step in progress to end`, { engineId: alert.engineId, containerId: alert.containerId, engineStatus: state.engineStatus });
      this.options.book.setAutoStop(alert.id, { at, warnedAt, state: 'waiting-step' });
      return { at: now + STEP_RECHECK_MS, near: true };
    }
    this.options.book.setAutoStop(alert.id, { at, warnedAt, state: 'pending' });
    this.stopNow(alert, { at, warnedAt, state: 'pending' });
    return { at: Number.POSITIVE_INFINITY, near: false };
  }

  private stopNow(alert: FleetAlert, plan: AutoStopPlan): void {
    const key = `${alert.engineId}:${alert.containerId}`;
    if (this.stopping.has(key)) return;
    this.stopping.add(key);
    this.options.logger.warn(`auto-stop: stopping ${alert.name}, its GPUs idle (${alert.detail})`, { engineId: alert.engineId, containerId: alert.containerId });
    this.options
      .stop(alert.engineId, alert.containerId)
      .then(
        () => {
          this.options.book.setAutoStop(alert.id, { ...plan, state: 'stopped' });
          this.options.book.notify(alert, `Auto-stopped: ${alert.name}`, `${alert.name} was stopped by auto-stop: its GPUs were idle (${alert.detail}).`);
        },
        (error: unknown) => {
          this.options.book.setAutoStop(alert.id, { ...plan, state: 'failed' });
          const message = error instanceof Error ? error.message : String(error);
          this.options.book.notify(alert, `Auto-stop failed: ${alert.name}`, `Auto-stop could not stop ${alert.name}: ${message}`);
        },
      )
      .finally(() => this.stopping.delete(key));
  }

  private watch(key: string): void {
    this.watched.add(key);
    const [engineId, ...rest] = key.split(':');
    // Renewed on every review (a lease that runs out lets go by itself).
    this.options.watchBatch(engineId!, rest.join(':'), true);
  }

  private unwatch(key: string): void {
    this.watched.delete(key);
    const [engineId, ...rest] = key.split(':');
    this.options.watchBatch(engineId!, rest.join(':'), false);
  }

  private schedule(at: number, now: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!Number.isFinite(at)) return;
    this.timer = setTimeout(() => this.options.wake(), Math.max(50, at - now));
    this.timer.unref?.();
  }
}
