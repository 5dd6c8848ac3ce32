import type { LogExcerpt, SwarmStatus } from '../../shared/schemas';
import type { ContainerEvent } from '../engines/container-engine';
import { NO_ENGINE, newEngineMemory, nextEngineView } from './engine-view';
import { pickExplainingLines } from './log-lines';
import type { EngineStatusReading, SwarmHttpClient } from './swarm-http-client';
import { PollerGroups, type PollerGroup } from './poller-groups';
import { TargetPoller, type TargetPollerSettings } from './target-poller';
import { BOOT_LOG_LINES, withoutTime, type Watch } from './watch-state';
import { statusKey, type LinkVia, type SwarmMonitorOptions, type SwarmReading, type TargetEvent, type WatchTarget } from './watch-types';

export { statusKey, type LinkVia, type SwarmMonitorOptions, type SwarmReading, type TargetEvent, type WatchTarget } from './watch-types';

/**
 * The one watcher of each swarm server's HTTP port: one /get_engine_status per interval on a
 * keep-alive connection (/health adds nothing: both answer once uvicorn is up), fanned out to whoever
 * needs it (`onReading`, `latest`), and `swarm:status` only when something meaningful changed. A
 * fresh server is retried quickly (from 50 ms, doubling) until it first answers; then every second
 * while a window shows the app, every 4 s while none does, and with doubling waits (up to 30 s)
 * while it does not answer. An answer overdue by two intervals plus a timeout turns the status
 * `unreachable` at once, naming the link, whatever else is still being asked. Once a container is no
 * longer running, its status keeps why it ended (served by `statuses()` too).
 */
export class SwarmMonitor {
  private readonly watches = new Map<string, Watch>();
  /** Containers that are not running, with why: kept until removed, so a reload still says why. */
  private readonly ended = new Map<string, SwarmStatus>();
  private readonly pollerSettings: TargetPollerSettings;
  private readonly groups = new PollerGroups<Watch>();
  private readonly targetListeners = new Set<(event: TargetEvent) => void>();
  private readonly readingListeners = new Set<(reading: SwarmReading) => void>();
  private readonly unsubscribeVisibility: () => void;

  private readonly unsubscribeEvents: () => void;
  /** Keys whose exit is being described right now, and those destroyed meanwhile (see onContainerEvent). */
  private readonly describing = new Set<string>();
  private readonly destroyed = new Set<string>();
  /** Servers the app is stopping now: their end is "stopped by you", whichever path reports it first. */
  private readonly expectedStops = new Set<string>();

  constructor(private readonly options: SwarmMonitorOptions) {
    const intervalMs = options.intervalMs ?? 1000;
    this.pollerSettings = {
      pace: { intervalMs, hiddenIntervalMs: options.hiddenIntervalMs ?? 4 * intervalMs, maxBackoffMs: options.maxBackoffMs ?? 30_000 },
      timeoutMs: options.timeoutMs ?? Math.max(500, Math.min(3000, intervalMs * 3)),
      startGraceMs: options.startGraceMs ?? 60_000,
      firstRetryMs: options.firstRetryMs ?? 50,
      shown: () => this.shown(),
    };
    // A window shows the app again: every server is asked now, not at the end of its slow wait.
    this.unsubscribeVisibility = options.visibility?.onChange((shown) => {
      if (shown) for (const watch of this.watches.values()) watch.poller.pollSoon();
    }) ?? (() => undefined);
    this.unsubscribeEvents = options.subscribeEvents?.((engineId, event) => void this.onContainerEvent(engineId, event)) ?? (() => undefined);
  }

  /**
   * `die`: the main process ended, so the watch ends now (the exit reason reads the code and the
   * log). `oom` alone may have killed a child only: end only if the container stopped with it.
   */
  private async onContainerEvent(engineId: string, event: ContainerEvent): Promise<void> {
    const key = statusKey(engineId, event.containerId);
    const watch = this.watches.get(key);
    // Removed behind our back (docker rm -f): its `die` already ended the watch and kept why; the
    // container is gone now, so keep no row for it (as when a poll finds it gone).
    if (!watch && event.action === 'destroy' && this.ended.has(key)) {
      // Still asking the engine why it ended: that answer is announced once, then dropped.
      if (this.describing.has(key)) {
        this.destroyed.add(key);
        return;
      }
      this.ended.delete(key);
      this.notifyTargets({ kind: 'forgotten', engineId, containerId: event.containerId });
      this.options.onContainerGone?.({ engineId, containerId: event.containerId, url: '' });
      return;
    }
    if (!watch || watch.stopped) return;
    if (event.action === 'die' || event.action === 'destroy') {
      await this.end(watch, false);
      this.options.onContainerGone?.(watch.target);
    } else if (event.action === 'oom' || event.action === 'stop') {
      const running = await this.options.isContainerRunning(watch.target).catch(() => true);
      if (!running) {
        await this.end(watch, false);
        this.options.onContainerGone?.(watch.target);
      }
    }
  }

  /** Calls `listener` when a server is watched, ends or is forgotten; returns the unsubscribe. */
  onTargets(listener: (event: TargetEvent) => void): () => void {
    this.targetListeners.add(listener);
    return () => this.targetListeners.delete(listener);
  }

  /** The servers watched now (running), for a listener that subscribes late. */
  targets(): WatchTarget[] {
    return [...this.watches.values()].map((w) => w.target);
  }

  /** Calls `listener` with every poll of every watched server (answered or not); returns the unsubscribe. */
  onReading(listener: (reading: SwarmReading) => void): () => void {
    this.readingListeners.add(listener);
    return () => this.readingListeners.delete(listener);
  }

  /** The last poll of a watched server, or null (not watched, or not asked yet). */
  latest(engineId: string, containerId: string): SwarmReading | null {
    return this.watches.get(statusKey(engineId, containerId))?.poller.latest ?? null;
  }

  /** The last poll of the watched server at `url` (a tunnel's local URL), or null when none is watched there. */
  latestForUrl(url: string): SwarmReading | null {
    const wanted = url.replace(/\/+$/, '');
    for (const watch of this.watches.values()) {
      const latest = watch.poller.latest;
      // A shared poller may ask through another engine's URL: that answer proves nothing about this one's tunnel.
      if (watch.target.url.replace(/\/+$/, '') === wanted && latest?.target.url.replace(/\/+$/, '') === wanted) return latest;
    }
    return null;
  }

  /** The HTTP client of a watched server (its keep-alive connection), for routes only some need (the pool). */
  clientOf(engineId: string, containerId: string): SwarmHttpClient | null {
    return this.watches.get(statusKey(engineId, containerId))?.poller.client ?? null;
  }

  private notifyTargets(event: TargetEvent): void {
    for (const listener of this.targetListeners) {
      try {
        listener(event);
      } catch {
        // One listener's bug must not stop the monitor or the other listeners.
      }
    }
  }

  watch(target: WatchTarget): void {
    const key = statusKey(target.engineId, target.containerId);
    const existing = this.watches.get(key);
    if (existing) {
      const moved = existing.target.url !== target.url;
      existing.target = target;
      this.groups.moved(existing.group);
      if (moved) this.notifyTargets({ kind: 'watch', target });
      // Found again after a reconnect (the tunnel or session is back): ask now, so "unreachable" does not linger.
      existing.poller.pollSoon();
      return;
    }
    this.ended.delete(key);
    // It runs again (started outside the app after a stop of yours): its next end is not that stop.
    this.options.ownStops?.drop(target.engineId, target.containerId);
    const now = Date.now();
    const watch: Watch = {
      key,
      target,
      stopped: false,
      poller: null as unknown as TargetPoller,
      group: null as unknown as PollerGroup<Watch>,
      direct: this.viaOf(target) === 'direct',
      checkingRunning: false,
      lastRunningCheckAt: 0,
      memory: newEngineMemory(),
      status: {
        engineId: target.engineId,
        containerId: target.containerId,
        url: target.url,
        connection: 'starting',
        ...NO_ENGINE,
        exit: null,
        lastError: null,
        checkedAt: new Date(now).toISOString(),
        confirmedAt: null,
        via: this.viaOf(target),
      },
    };
    const { group, created } = this.groups.join(watch, (g) => this.newPoller(target, g));
    watch.group = group;
    watch.poller = group.poller;
    this.watches.set(key, watch);
    this.options.events.emit('swarm:status', watch.status);
    this.notifyTargets({ kind: 'watch', target });
    if (created) watch.poller.start();
  }

  /** A poller whose every reading serves each watch of its group (usually one). */
  private newPoller(target: WatchTarget, group: PollerGroup<Watch>): TargetPoller {
    return new TargetPoller(target, this.pollerSettings, {
      reading: (reading) => {
        for (const w of group.members) this.fanOut({ ...reading, target: w.target });
      },
      answered: async (engine, at) => void (await Promise.all(group.members.map((w) => this.answered(w, engine, at)))),
      failed: (message) => group.members.forEach((w) => this.pollFailed(w, message)),
      overdue: (message) => {
        for (const w of group.members) if (!w.stopped && w.status.connection !== 'unreachable') this.sayUnreachable(w, message);
      },
      hookFailed: (error) => this.options.logger?.warn('a swarm status answer could not be handled; polling goes on', { url: target.url, message: error instanceof Error ? error.message : String(error) }),
    });
  }

  /**
   * The app is about to stop this server: the `die` event may arrive before the stop returns, and
   * that end must read "stopped by you", not "stopped outside the app". Cleared by `unwatch`, or
   * by `stopFailed` when the engine refused the stop.
   */
  expectStop(engineId: string, containerId: string): void {
    this.expectedStops.add(statusKey(engineId, containerId));
    this.options.ownStops?.add(engineId, containerId);
  }

  stopFailed(engineId: string, containerId: string): void {
    this.expectedStops.delete(statusKey(engineId, containerId));
    this.options.ownStops?.drop(engineId, containerId);
  }

  /** Stops watching after the app stopped the container; resolves once the final status is out. */
  async unwatch(engineId: string, containerId: string): Promise<void> {
    const key = statusKey(engineId, containerId);
    const watch = this.watches.get(key);
    if (watch) {
      await this.end(watch, true);
      this.expectedStops.delete(key);
      return;
    }
    this.expectedStops.delete(key);
    // The `die` event of the app's own stop may have ended the watch before the stop returned (and a
    // stop that ran into its timeout exits 137, "killed"): it was still a stop on request.
    const ended = this.ended.get(key);
    if (ended?.exit && ended.exit.kind !== 'stopped') await this.publishEnded(key, { engineId, containerId, url: ended.url }, ended, true);
  }

  /** Records why a container we are not watching is not running (found after an app restart). */
  async recordEnded(target: WatchTarget): Promise<void> {
    const key = statusKey(target.engineId, target.containerId);
    if (this.watches.has(key)) return;
    await this.publishEnded(key, target, null, false);
  }

  /** The container was removed: nothing is left to say about it. */
  forget(engineId: string, containerId: string): void {
    const key = statusKey(engineId, containerId);
    const watch = this.watches.get(key);
    if (watch) this.stopPolling(watch);
    this.ended.delete(key);
    this.notifyTargets({ kind: 'forgotten', engineId, containerId });
  }

  statuses(): SwarmStatus[] {
    return [...[...this.watches.values()].map((w) => w.status), ...this.ended.values()];
  }

  isWatching(engineId: string, containerId: string): boolean {
    return this.watches.has(statusKey(engineId, containerId));
  }

  dispose(): void {
    this.unsubscribeEvents();
    this.unsubscribeVisibility();
    this.readingListeners.clear();
    for (const watch of this.watches.values()) this.stopPolling(watch);
    this.watches.clear();
    this.ended.clear();
  }

  private stopPolling(watch: Watch): void {
    watch.stopped = true;
    this.groups.leave(watch, watch.group);
    if (this.watches.get(watch.key) === watch) this.watches.delete(watch.key);
  }

  private async end(watch: Watch, requested: boolean, lastError: string | null = null): Promise<void> {
    // Only the current watch of a container may end it: an old poll must not end a newer watch.
    if (watch.stopped || this.watches.get(watch.key) !== watch) return;
    this.stopPolling(watch);
    await this.publishEnded(watch.key, watch.target, watch.status, requested || this.expectedStops.has(watch.key), lastError);
  }

  private async publishEnded(
    key: string,
    target: WatchTarget,
    last: SwarmStatus | null,
    requested: boolean,
    lastError: string | null = null,
  ): Promise<void> {
    // A placeholder first, so a `forget` (Remove) while we ask the engine wins over our answer.
    const placeholder: SwarmStatus = {
      engineId: target.engineId,
      containerId: target.containerId,
      url: target.url,
      connection: 'stopped',
      // A container that is not running has no engine: nothing of the last reading stays.
      ...NO_ENGINE,
      exit: null,
      lastError,
      checkedAt: new Date().toISOString(),
      confirmedAt: last?.confirmedAt ?? null,
      via: last?.via ?? this.viaOf(target),
    };
    this.ended.set(key, placeholder);
    this.describing.add(key);
    // Read again after a restart or reconnect, the app's own stop is still the app's.
    const ownStop = requested || ((await this.options.ownStops?.has(target.engineId, target.containerId).catch(() => false)) ?? false);
    const described = (await this.options.describeExit?.(target, ownStop).catch(() => null)) ?? null;
    this.describing.delete(key);
    const destroyed = this.destroyed.delete(key);
    if (this.ended.get(key) !== placeholder || this.watches.has(key)) return;
    const exit = described === 'gone' ? null : described;
    const status = { ...placeholder, exit, checkedAt: new Date().toISOString() };
    // Removed behind our back (docker rm -f): say "stopped" once, keep no row for a container that is gone.
    if (described === 'gone' || destroyed) this.ended.delete(key);
    else this.ended.set(key, status);
    this.notifyTargets({ kind: 'ended', target, status });
    if (!last || withoutTime(last) !== withoutTime(status)) this.options.events.emit('swarm:status', status);
  }

  private publish(watch: Watch, next: SwarmStatus): void {
    const changed = withoutTime(watch.status) !== withoutTime(next);
    watch.status = next;
    if (changed) this.options.events.emit('swarm:status', next);
  }

  private async readExcerpt(watch: Watch, sinceMs: number | undefined): Promise<LogExcerpt> {
    const options = sinceMs === undefined ? { tail: BOOT_LOG_LINES } : { tail: BOOT_LOG_LINES, sinceMs };
    // Wrapped: a readLog that throws before it returns a promise (its engine was removed) is no log either.
    const lines = await (async () => (await this.options.readLog?.(watch.target, options)) ?? [])().catch(() => [] as string[]);
    return pickExplainingLines(lines);
  }

  private viaOf = (target: WatchTarget): LinkVia => this.options.viaOf?.(target) ?? 'direct';
  private shown = (): boolean => this.options.visibility?.shown() ?? true;

  private fanOut(reading: SwarmReading): void {
    for (const listener of this.readingListeners) {
      try {
        listener(reading);
      } catch {
        // A follower's bug must not stop the polls.
      }
    }
  }

  private async answered(watch: Watch, reading: EngineStatusReading, now: number): Promise<void> {
    const confirmedAt = new Date(now).toISOString();
    const engine = await nextEngineView(watch.status, reading, watch.memory, {
      now,
      serverBootStartMs: () => watch.poller.client.bootingStartTimeMs().catch(() => null),
      readLog: (sinceMs) => this.readExcerpt(watch, sinceMs),
      bootWarnAfterMs: this.options.bootWarnAfterMs ?? 5 * 60_000,
      bootLogEveryMs: this.options.bootLogEveryMs ?? 2000,
    });
    // Stopped meanwhile, or a later failure already said the server is gone quiet: this answer is old news.
    if (watch.stopped || watch.poller.failures > 0) return;
    this.publish(watch, { ...watch.status, ...engine, connection: 'online', lastError: null, checkedAt: confirmedAt, confirmedAt });
  }

  /**
   * A poll got no answer. Whether the container still runs is asked beside the polls, never before
   * saying anything: over a frozen SSH link that question hangs as long as the link does, and the
   * status must not say "online" meanwhile (the overdue timer says "unreachable" when it is due).
   */
  private pollFailed(watch: Watch, message: string): void {
    const now = Date.now();
    const starting = watch.status.connection === 'starting';
    // While a fresh server is retried every few ms, ask the engine at most once a second.
    if (!starting || now - watch.lastRunningCheckAt >= 1000) void this.checkStillRunning(watch, message);
  }

  private async checkStillRunning(watch: Watch, message: string): Promise<void> {
    if (watch.checkingRunning) return;
    watch.checkingRunning = true;
    watch.lastRunningCheckAt = Date.now();
    try {
      const running = await this.options.isContainerRunning(watch.target).catch(() => true);
      // The user may have stopped it while we asked (never overwrite "stopped"), or it answered again.
      if (watch.stopped || watch.poller.failures === 0) return;
      if (!running) {
        const ended = this.end(watch, false);
        this.options.onContainerGone?.(watch.target);
        await ended;
        return;
      }
      this.sayUnreachable(watch, message);
    } finally {
      watch.checkingRunning = false;
    }
  }

  /** `unreachable` (or `starting` within the start grace), naming the link and the last answer's time. */
  private sayUnreachable(watch: Watch, message: string): void {
    const now = Date.now();
    const starting = watch.status.connection === 'starting';
    // Before the first answer the server may still be starting its HTTP layer: "starting" for a grace period.
    const graceOver = now - watch.poller.since >= this.pollerSettings.startGraceMs;
    const connection = starting && !graceOver ? 'starting' : 'unreachable';
    const via = watch.status.via ?? this.viaOf(watch.target);
    const since = watch.status.confirmedAt ? `; last answer ${watch.status.confirmedAt}` : '; no answer yet';
    this.publish(watch, { ...watch.status, connection, lastError: `${via} link: ${message}${since}`, checkedAt: new Date(now).toISOString() });
  }
}
