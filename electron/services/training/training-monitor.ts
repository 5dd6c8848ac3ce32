import type { AppNotification, TrainingSeries, TrainingView } from '../../shared/schemas-profiles';
import type { EventSink } from '../events';
import type { Notifier } from '../notifier';
import { SwarmHttpClient } from '../swarm/swarm-http-client';
import { statusKey, type SwarmMonitor, type SwarmReading, type TargetEvent, type WatchTarget } from '../swarm/swarm-monitor';
import type { Logger } from '../util/logger';
import { batchComplete, parsePoolInformation } from './pool-info';
import { OFFLINE, RunTracker, type TrackerEvent } from './run-tracker';
import type { ExactStep } from './step-recorder';
import type { SeriesStore } from './series-store';
import { buildView, emptyView, ENGINE_STATUS_ROUTE, meaningfullyDifferent, POOL_ROUTE, serverStepOf, statusOf, type PollResult } from './training-view';

export interface TrainingMonitorOptions {
  events: EventSink;
  notifier: Notifier;
  store: SeriesStore;
  logger: Logger;
  /** Pool poll interval while someone shows the dashboard (default 2000, overwatch's refresh). */
  intervalMs?: number;
  /** Per-request timeout of the pool route (default 5000, overwatch's). */
  timeoutMs?: number;
  /** Whether a page shows this server's dashboard now (`training:interest`); absent: nobody ever does. */
  isShown?: (engineId: string, containerId: string) => boolean;
  /**
   * OFFLINE must last this long (with the server still answering) before it is "unexpected": when
   * the app stops a server, `ajet-swarm` may post /stop_engine on its way out (default 5000).
   */
  offlineGraceMs?: number;
  /** How notifications name a server ("profile X on Local Docker"); default: engine and port. */
  describe?: (target: WatchTarget) => Promise<string>;
}

type Poller = {
  key: string;
  target: WatchTarget;
  tracker: RunTracker;
  view: TrainingView;
  /** The pool loop's timer: runs only while someone shows this server's dashboard. */
  timer: NodeJS.Timeout | null;
  stopped: boolean;
  pooling: boolean;
  /** The swarm monitor's last reading of this server (the engine status is never asked twice). */
  reading: SwarmReading | null;
  /** The stored run is read back before the first poll is fed to the tracker. */
  ready: Promise<void>;
  /** OFFLINE seen right after training, not yet confirmed as unexpected (ms). */
  offlineSince: number | null;
  name: Promise<string>;
};

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Servers that stopped being watched keep their last view and series for this many ms at most. */
const KEEP_ENDED = 50;
/** Exact step records kept for a server not watched yet (per server, and servers): the first steps of a fast trainer. */
const MAX_UNCLAIMED_RECORDS = 200;
const MAX_UNCLAIMED_SERVERS = 10;

/**
 * The training picture of every server the swarm monitor watches: the engine status from the
 * monitor's own polls (`onReading`: never asked twice), the pool information (rewards, batch fill,
 * episodes) only while a page shows that server's dashboard (2 s, on the monitor's keep-alive
 * connection). Keeps each run's time series on disk, emits `training:changed` when a view changed
 * meaningfully and notifies when the engine reaches ROLLING, goes OFFLINE unexpectedly, or the
 * container dies.
 */
export class TrainingMonitor {
  private readonly pollers = new Map<string, Poller>();
  /** Last views and trackers of servers no longer watched: the dashboard still shows the last run. */
  private readonly ended = new Map<string, Poller>();
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly unsubscribes: (() => void)[] = [];
  private monitor: Pick<SwarmMonitor, 'clientOf'> | null = null;
  /** Exact records of servers the swarm monitor does not watch yet (a dry run's first steps can beat its watch). */
  private readonly unclaimed = new Map<string, ExactStep[]>();

  constructor(private readonly options: TrainingMonitorOptions) {
    this.intervalMs = options.intervalMs ?? 2000;
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /** Follows the swarm monitor: every server it watches now and later. */
  follow(monitor: Pick<SwarmMonitor, 'onTargets' | 'targets' | 'onReading' | 'clientOf'>): void {
    this.monitor = monitor;
    this.unsubscribes.push(monitor.onTargets((event) => this.onTarget(event)));
    this.unsubscribes.push(monitor.onReading((reading) => this.onReading(reading)));
    for (const target of monitor.targets()) this.watch(target);
  }

  /**
   * A page started or stopped showing a dashboard: the pool loop of that server starts at once, or
   * ends (then the engine status alone feeds the view).
   */
  interestChanged(): void {
    for (const poller of this.pollers.values()) {
      const shown = this.isShown(poller);
      if (shown && !poller.timer && !poller.pooling) void poller.ready.then(() => this.poolLoop(poller));
      else if (!shown && poller.timer) {
        clearTimeout(poller.timer);
        poller.timer = null;
      }
    }
  }

  private isShown(poller: Poller): boolean {
    return this.options.isShown?.(poller.target.engineId, poller.target.containerId) ?? false;
  }

  private onReading(reading: SwarmReading): void {
    const poller = this.pollers.get(statusKey(reading.target.engineId, reading.target.containerId));
    if (!poller || poller.stopped) return;
    poller.reading = reading;
    // While the dashboard is shown, the pool loop observes (with the pool); else each reading does.
    if (this.isShown(poller)) return;
    void poller.ready.then(() => {
      if (!poller.stopped) this.observe(poller, resultOf(reading, null, reading.at));
    });
  }

  private onTarget(event: TargetEvent): void {
    if (event.kind === 'watch') this.watch(event.target);
    else if (event.kind === 'forgotten') this.stop(statusKey(event.engineId, event.containerId), true);
    // An end is told once, by the server-state store's EndTeller (issue 31), not here as well.
    else this.stop(statusKey(event.target.engineId, event.target.containerId), false);
  }

  watch(target: WatchTarget): void {
    const key = statusKey(target.engineId, target.containerId);
    const existing = this.pollers.get(key);
    if (existing) {
      existing.target = target; // a reconnect moved the URL (new tunnel port)
      return;
    }
    const previous = this.ended.get(key);
    this.ended.delete(key);
    const tracker = previous?.tracker ?? new RunTracker();
    const poller: Poller = {
      key,
      target,
      tracker,
      view: previous?.view ?? emptyView(target.engineId, target.containerId, Date.now()),
      timer: null,
      stopped: false,
      pooling: false,
      reading: null,
      offlineSince: null,
      name: this.nameOf(target),
      ready: previous
        ? Promise.resolve()
        : this.options.store
            .latestRun(target.engineId, target.containerId)
            .then((run) => {
              if (run) tracker.resume(run);
            })
            .catch((error: unknown) => this.options.logger.warn('could not read the stored training series', { message: describeError(error) })),
    };
    this.pollers.set(key, poller);
    if (this.isShown(poller)) void poller.ready.then(() => this.poolLoop(poller));
    const early = this.unclaimed.get(key);
    this.unclaimed.delete(key);
    for (const record of early ?? []) this.recordExactStep(target.engineId, target.containerId, record);
  }

  private nameOf(target: WatchTarget): Promise<string> {
    const fallback = `${target.engineId} (${target.url})`;
    if (!this.options.describe) return Promise.resolve(fallback);
    return this.options.describe(target).catch(() => fallback);
  }

  private stop(key: string, forget: boolean): void {
    const poller = this.pollers.get(key) ?? this.ended.get(key);
    if (!poller) return;
    poller.stopped = true;
    poller.offlineSince = null;
    poller.tracker.pause();
    if (poller.timer) clearTimeout(poller.timer);
    poller.timer = null;
    this.pollers.delete(key);
    if (forget) {
      this.ended.delete(key);
      return;
    }
    this.ended.set(key, poller);
    // Bounded: the oldest ended servers are dropped from memory (their series stay on disk).
    while (this.ended.size > KEEP_ENDED) this.ended.delete(this.ended.keys().next().value as string);
  }

  /** Every `intervalMs` while the dashboard is shown: the pool route, observed with the monitor's last engine status. */
  private async poolLoop(poller: Poller): Promise<void> {
    if (poller.stopped || poller.pooling || !this.isShown(poller)) return;
    poller.pooling = true;
    try {
      await this.poolOnce(poller);
    } finally {
      poller.pooling = false;
    }
    if (poller.stopped || poller.timer || !this.isShown(poller)) return;
    poller.timer = setTimeout(() => {
      poller.timer = null;
      void this.poolLoop(poller);
    }, this.intervalMs);
  }

  private async poolOnce(poller: Poller): Promise<void> {
    const now = Date.now();
    const client = this.monitor?.clientOf(poller.target.engineId, poller.target.containerId) ?? new SwarmHttpClient(poller.target.url, this.timeoutMs);
    let pool: PoolAnswer;
    try {
      const body = await client.poolInformation();
      pool = body === null ? { reading: null, missing: true, error: null } : { reading: parsePoolInformation(body), missing: false, error: null };
    } catch (error) {
      pool = { reading: null, missing: false, error: describeError(error) };
    }
    if (poller.stopped) return;
    try {
      this.observe(poller, resultOf(poller.reading, pool, now));
    } catch (error) {
      this.options.logger.warn('training poll failed', { message: describeError(error) });
    }
  }

  private observe(poller: Poller, result: PollResult): void {
    const status = statusOf(result);
    const answered = result.engine !== null || result.pool !== null;
    const { tracker } = poller;
    if (answered) {
      const runBefore = tracker.runId;
      const out = tracker.observe({
        now: result.now,
        status,
        globalStep: serverStepOf(result),
        rewards: result.pool?.rewards ?? null,
        completedEpisodes: result.pool?.episodes?.done ?? null,
        episodeIds: result.pool?.episodeIds ?? [],
        batchComplete: result.pool ? batchComplete(result.pool) : null,
      });
      if (tracker.runId !== null) void this.options.store.append(poller.target.engineId, poller.target.containerId, tracker.runId, out.records);
      if (runBefore !== tracker.runId) this.options.logger.info?.('training run began', { engineId: poller.target.engineId, containerId: poller.target.containerId, runId: tracker.runId });
      for (const event of out.events) this.onTrackerEvent(poller, event, result);
      this.confirmOffline(poller, status, result.now);
    }
    const next = buildView(poller.view, result, {
      runId: tracker.runId,
      statusSince: tracker.statusSince,
      globalStep: tracker.currentStep(status, serverStepOf(result)),
    });
    const changed = meaningfullyDifferent(poller.view, next);
    poller.view = next;
    if (changed) this.options.events.emit('training:changed', next);
  }

  private onTrackerEvent(poller: Poller, event: TrackerEvent, result: PollResult): void {
    if (event === 'went-offline') {
      poller.offlineSince = result.now;
      return;
    }
    const step = serverStepOf(result);
    void poller.name.then((n) =>
      this.notify(poller.target, 'engine-rolling', `Training is rolling: ${n}`, `The engine reached ENGINE.ROLLING${step !== null ? ` (global step ${step})` : ''}; clients can claim episodes now.`),
    );
  }

  /** OFFLINE that lasted the grace period while the server kept answering: the engine stopped, the app did not stop it. */
  private confirmOffline(poller: Poller, status: string | null, now: number): void {
    if (poller.offlineSince === null) return;
    if (status !== OFFLINE) {
      poller.offlineSince = null;
      return;
    }
    if (now - poller.offlineSince < (this.options.offlineGraceMs ?? 5000)) return;
    poller.offlineSince = null;
    void poller.name.then((n) =>
      this.notify(poller.target, 'engine-offline', `Training engine went offline: ${n}`, 'The engine left training and is ENGINE.OFFLINE. A client stopped it or the trainer failed: check the server log.'),
    );
  }

  private notify(target: WatchTarget, kind: AppNotification['kind'], title: string, body: string): void {
    try {
      this.options.notifier.notify({ kind, title, body, engineId: target.engineId, containerId: target.containerId });
    } catch (error) {
      this.options.logger.warn('could not show a notification', { kind, message: describeError(error) });
    }
  }

  view(engineId: string, containerId: string): TrainingView | null {
    const key = statusKey(engineId, containerId);
    return (this.pollers.get(key) ?? this.ended.get(key))?.view ?? null;
  }

  views(): TrainingView[] {
    return [...this.pollers.values()].map((p) => p.view);
  }

  /**
   * A trainer's own record of a completed step (the dry run counts its batch exactly): it wins over
   * the pool snapshot, also for a step already closed. Ignored for a server not watched.
   */
  recordExactStep(engineId: string, containerId: string, record: ExactStep): void {
    const key = statusKey(engineId, containerId);
    const poller = this.pollers.get(key);
    if (!poller) {
      // Not watched yet: kept for its watch (bounded); a server that never gets one leaves them behind.
      const list = this.unclaimed.get(key) ?? [];
      list.push(record);
      if (list.length > MAX_UNCLAIMED_RECORDS) list.shift();
      this.unclaimed.delete(key);
      this.unclaimed.set(key, list);
      while (this.unclaimed.size > MAX_UNCLAIMED_SERVERS) this.unclaimed.delete(this.unclaimed.keys().next().value as string);
      return;
    }
    void poller.ready.then(() => {
      const { tracker } = poller;
      const records = tracker.recordExact(record);
      if (tracker.runId === null || records.length === 0) return;
      // A replaced point reaches the page with its next series read (the next step or status change).
      void this.options.store.append(engineId, containerId, tracker.runId, records);
    });
  }

  /** The current (or last) run's series; read from disk for a server not polled in this session. */
  async series(engineId: string, containerId: string): Promise<TrainingSeries | null> {
    const key = statusKey(engineId, containerId);
    const poller = this.pollers.get(key) ?? this.ended.get(key);
    if (poller) {
      await poller.ready;
      return poller.tracker.series(engineId, containerId);
    }
    const run = await this.options.store.latestRun(engineId, containerId);
    if (!run) return null;
    const tracker = new RunTracker();
    tracker.resume(run);
    return tracker.series(engineId, containerId);
  }

  async dispose(): Promise<void> {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    for (const key of [...this.pollers.keys()]) this.stop(key, false);
    await this.options.store.flush();
  }
}

type PoolAnswer = { reading: ReturnType<typeof parsePoolInformation> | null; missing: boolean; error: string | null };

/** One observation: the monitor's engine reading and, while the dashboard is shown, the pool's answer. */
function resultOf(reading: SwarmReading | null, pool: PoolAnswer | null, now: number): PollResult {
  const missingRoutes: string[] = [];
  const errors: string[] = [];
  if (reading?.error?.kind === 'not-found') missingRoutes.push(ENGINE_STATUS_ROUTE);
  else if (reading?.error) errors.push(reading.error.message);
  if (pool?.missing) missingRoutes.push(POOL_ROUTE);
  if (pool?.error) errors.push(pool.error);
  const error = errors.length > 0 ? [...new Set(errors)].join('; ') : null;
  // The pool's live status and step were read with its rewards (the server fills them on every GET);
  // the monitor's reading may be a poll older: a step that just advanced must not get the new step's rewards.
  const live = pool?.reading?.engineStatus ? pool.reading : null;
  const engine = live ? { engineStatus: live.engineStatus, globalStep: live.globalStep, engineStatusDetail: reading?.engine?.engineStatusDetail ?? null } : (reading?.engine ?? null);
  return { now, engine, pool: pool?.reading ?? null, missingRoutes, error };
}
