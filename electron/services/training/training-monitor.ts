import type { AppNotification, TrainingSeries, TrainingView } from '../../shared/schemas-profiles';
import type { EventSink } from '../events';
import type { Notifier } from '../notifier';
import { SwarmHttpClient, SwarmHttpError, type EngineStatusReading } from '../swarm/swarm-http-client';
import { statusKey, type SwarmMonitor, type TargetEvent, type WatchTarget } from '../swarm/swarm-monitor';
import type { Logger } from '../util/logger';
import { parsePoolInformation, type PoolReading } from './pool-info';
import { OFFLINE, RunTracker, type TrackerEvent } from './run-tracker';
import type { SeriesStore } from './series-store';
import { buildView, emptyView, ENGINE_STATUS_ROUTE, meaningfullyDifferent, POOL_ROUTE, serverStepOf, statusOf, type PollResult } from './training-view';

export interface TrainingMonitorOptions {
  events: EventSink;
  notifier: Notifier;
  store: SeriesStore;
  logger: Logger;
  /** Poll interval (default 2000, overwatch's refresh). */
  intervalMs?: number;
  /** Per-request timeout (default 5000, overwatch's for the pool route). */
  timeoutMs?: number;
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
  timer: NodeJS.Timeout | null;
  stopped: boolean;
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

/**
 * Polls every server the swarm monitor watches for the training picture (engine status and pool
 * information, 2 s, fresh connection each), keeps each run's time series on disk, emits
 * `training:changed` when a view changed meaningfully and notifies when the engine reaches
 * ROLLING, goes OFFLINE unexpectedly, or the container dies.
 */
export class TrainingMonitor {
  private readonly pollers = new Map<string, Poller>();
  /** Last views and trackers of servers no longer watched: the dashboard still shows the last run. */
  private readonly ended = new Map<string, Poller>();
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: TrainingMonitorOptions) {
    this.intervalMs = options.intervalMs ?? 2000;
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /** Follows the swarm monitor: every server it watches now and later. */
  follow(monitor: Pick<SwarmMonitor, 'onTargets' | 'targets'>): void {
    this.unsubscribe = monitor.onTargets((event) => this.onTarget(event));
    for (const target of monitor.targets()) this.watch(target);
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
    void poller.ready.then(() => this.loop(poller));
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
    this.pollers.delete(key);
    if (forget) {
      this.ended.delete(key);
      return;
    }
    this.ended.set(key, poller);
    // Bounded: the oldest ended servers are dropped from memory (their series stay on disk).
    while (this.ended.size > KEEP_ENDED) this.ended.delete(this.ended.keys().next().value as string);
  }

  private async loop(poller: Poller): Promise<void> {
    if (poller.stopped) return;
    await this.pollOnce(poller).catch((error: unknown) => this.options.logger.warn('training poll failed', { message: describeError(error) }));
    if (poller.stopped) return;
    poller.timer = setTimeout(() => void this.loop(poller), this.intervalMs);
  }

  /** One poll of both routes; each may be missing (404) on this server version. */
  async poll(url: string, now = Date.now()): Promise<PollResult> {
    const client = new SwarmHttpClient(url, this.timeoutMs);
    const [engine, pool] = await Promise.allSettled([client.engineStatus(), client.poolInformation()]);
    const missingRoutes: string[] = [];
    const errors: string[] = [];
    let engineReading: EngineStatusReading | null = null;
    let poolReading: PoolReading | null = null;
    if (engine.status === 'fulfilled') engineReading = engine.value;
    else if (engine.reason instanceof SwarmHttpError && engine.reason.kind === 'not-found') missingRoutes.push(ENGINE_STATUS_ROUTE);
    else errors.push(describeError(engine.reason));
    if (pool.status === 'rejected') errors.push(describeError(pool.reason));
    else if (pool.value === null) missingRoutes.push(POOL_ROUTE);
    else poolReading = parsePoolInformation(pool.value);
    const error = errors.length > 0 ? [...new Set(errors)].join('; ') : null;
    return { now, engine: engineReading, pool: poolReading, missingRoutes, error };
  }

  private async pollOnce(poller: Poller): Promise<void> {
    const result = await this.poll(poller.target.url);
    if (poller.stopped) return;
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
    this.unsubscribe?.();
    for (const key of [...this.pollers.keys()]) this.stop(key, false);
    await this.options.store.flush();
  }
}
