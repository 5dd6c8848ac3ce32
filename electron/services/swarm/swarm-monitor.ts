import type { LogExcerpt, SwarmExit, SwarmStatus } from '../../shared/schemas';
import type { ContainerEvent } from '../engines/container-engine';
import type { EventSink } from '../events';
import { NO_ENGINE, newEngineMemory, nextEngineView, type EngineMemory } from './engine-view';
import { pickExplainingLines } from './log-lines';
import { SwarmHttpClient } from './swarm-http-client';

export interface WatchTarget {
  engineId: string;
  containerId: string;
  url: string;
}

/**
 * What happened to a watched server, for the services that follow the same servers (logs, training
 * monitor): `watch` (new, or its URL changed after a reconnect), `ended` (not running any more, with
 * why), `forgotten` (removed).
 */
export type TargetEvent =
  | { kind: 'watch'; target: WatchTarget }
  | { kind: 'ended'; target: WatchTarget; status: SwarmStatus }
  | { kind: 'forgotten'; engineId: string; containerId: string };

/** Statuses are keyed by engine and container: two engines may share an id space. */
export function statusKey(engineId: string, containerId: string): string {
  return `${engineId}:${containerId}`;
}

export interface SwarmMonitorOptions {
  events: EventSink;
  /** Poll interval once the server answered (default 1000, AgentJet's own client's cadence). */
  intervalMs?: number;
  /** First retry delay while a fresh server has not answered yet; doubles up to the interval (default 50). */
  firstRetryMs?: number;
  /** Asked after a failed poll: is the container still running? Lets us say "stopped", not "unreachable". */
  isContainerRunning: (target: WatchTarget) => Promise<boolean>;
  onContainerGone?: (target: WatchTarget) => void;
  /**
   * Why a container is not running (exit code, explaining log lines); `requested` when the app
   * stopped it; `'gone'` when it was removed (then its status is announced once and not kept).
   */
  describeExit?: (target: WatchTarget, requested: boolean) => Promise<SwarmExit | null | 'gone'>;
  /** The newest lines of the running container's log, oldest first (default: none). */
  readLog?: (target: WatchTarget, options: { tail: number; sinceMs?: number }) => Promise<string[]>;
  /** How long a fresh server may stay silent before we call it unreachable (default 60 s). */
  startGraceMs?: number;
  /** A boot that lasts longer than this points at the log (default 5 min: models load for minutes). */
  bootWarnAfterMs?: number;
  /** How often the log is read while the engine boots (default 2 s). */
  bootLogEveryMs?: number;
  /**
   * Subscribes to the engines' container events (Docker's event stream), so a crash ends its watch
   * at once instead of at the next failed poll; returns the unsubscribe.
   */
  subscribeEvents?: (onEvent: (engineId: string, event: ContainerEvent) => void) => () => void;
}

type Watch = {
  key: string;
  target: WatchTarget;
  status: SwarmStatus;
  timer: NodeJS.Timeout | null;
  stopped: boolean;
  since: number;
  answered: boolean;
  retryMs: number;
  lastRunningCheckAt: number;
  memory: EngineMemory;
};

const BOOT_LOG_LINES = 200;

function withoutTime(status: SwarmStatus): string {
  const { checkedAt: _checkedAt, ...rest } = status;
  return JSON.stringify(rest);
}

/**
 * Polls each watched swarm server's /health and /get_engine_status and emits `swarm:status` only
 * when something meaningful changed, so the UI and a future notifier are not flooded. A fresh server
 * is retried quickly (from 50 ms, doubling) until it first answers, then at the 1 s interval. Once a
 * container is no longer running, its status keeps why it ended (served by `statuses()` too).
 */
export class SwarmMonitor {
  private readonly watches = new Map<string, Watch>();
  /** Containers that are not running, with why: kept until removed, so a reload still says why. */
  private readonly ended = new Map<string, SwarmStatus>();
  private readonly intervalMs: number;
  private readonly targetListeners = new Set<(event: TargetEvent) => void>();

  private readonly unsubscribeEvents: () => void;
  /** Keys whose exit is being described right now, and those destroyed meanwhile (see onContainerEvent). */
  private readonly describing = new Set<string>();
  private readonly destroyed = new Set<string>();
  /** Servers the app is stopping now: their end is "stopped by you", whichever path reports it first. */
  private readonly expectedStops = new Set<string>();

  constructor(private readonly options: SwarmMonitorOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
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
      if (moved) this.notifyTargets({ kind: 'watch', target });
      return;
    }
    this.ended.delete(key);
    const now = Date.now();
    const watch: Watch = {
      key,
      target,
      stopped: false,
      timer: null,
      since: now,
      answered: false,
      retryMs: Math.max(1, this.options.firstRetryMs ?? 50),
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
      },
    };
    this.watches.set(key, watch);
    this.options.events.emit('swarm:status', watch.status);
    this.notifyTargets({ kind: 'watch', target });
    void this.pollLoop(watch);
  }

  /**
   * The app is about to stop this server: the `die` event may arrive before the stop returns, and
   * that end must read "stopped by you", not "stopped outside the app". Cleared by `unwatch`, or
   * by `stopFailed` when the engine refused the stop.
   */
  expectStop(engineId: string, containerId: string): void {
    this.expectedStops.add(statusKey(engineId, containerId));
  }

  stopFailed(engineId: string, containerId: string): void {
    this.expectedStops.delete(statusKey(engineId, containerId));
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
    for (const watch of this.watches.values()) this.stopPolling(watch);
    this.watches.clear();
    this.ended.clear();
  }

  private stopPolling(watch: Watch): void {
    watch.stopped = true;
    if (watch.timer) clearTimeout(watch.timer);
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
    };
    this.ended.set(key, placeholder);
    this.describing.add(key);
    const described = (await this.options.describeExit?.(target, requested).catch(() => null)) ?? null;
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

  private async pollLoop(watch: Watch): Promise<void> {
    await this.pollOnce(watch);
    if (watch.stopped) return;
    let delay = this.intervalMs;
    if (!watch.answered) {
      // A fresh server listens within a fraction of a second: ask again soon, then less often.
      delay = Math.min(this.intervalMs, watch.retryMs);
      watch.retryMs *= 2;
    }
    watch.timer = setTimeout(() => void this.pollLoop(watch), delay);
  }

  private async readExcerpt(watch: Watch, sinceMs: number | undefined): Promise<LogExcerpt> {
    const options = sinceMs === undefined ? { tail: BOOT_LOG_LINES } : { tail: BOOT_LOG_LINES, sinceMs };
    const lines = (await this.options.readLog?.(watch.target, options).catch(() => [] as string[])) ?? [];
    return pickExplainingLines(lines);
  }

  private async pollOnce(watch: Watch): Promise<void> {
    const client = new SwarmHttpClient(watch.target.url, Math.max(500, Math.min(3000, this.intervalMs * 3)));
    const now = Date.now();
    try {
      const [healthy, reading] = await Promise.all([client.health(), client.engineStatus()]);
      if (!healthy) throw new Error('/health did not answer {"status":"ok"}');
      if (watch.stopped) return;
      watch.answered = true;
      const engine = await nextEngineView(watch.status, reading, watch.memory, {
        now,
        serverBootStartMs: () => client.bootingStartTimeMs().catch(() => null),
        readLog: (sinceMs) => this.readExcerpt(watch, sinceMs),
        bootWarnAfterMs: this.options.bootWarnAfterMs ?? 5 * 60_000,
        bootLogEveryMs: this.options.bootLogEveryMs ?? 2000,
      });
      if (watch.stopped) return;
      this.publish(watch, { ...watch.status, ...engine, connection: 'online', lastError: null, checkedAt: new Date(now).toISOString() });
    } catch (error) {
      if (watch.stopped) return;
      await this.pollFailed(watch, error instanceof Error ? error.message : String(error));
    }
  }

  private async pollFailed(watch: Watch, message: string): Promise<void> {
    const now = Date.now();
    const starting = watch.status.connection === 'starting';
    // While a fresh server is retried every few ms, ask the engine at most once a second.
    if (!starting || now - watch.lastRunningCheckAt >= 1000) {
      watch.lastRunningCheckAt = now;
      const running = await this.options.isContainerRunning(watch.target).catch(() => true);
      // The user may have stopped it while we asked: never overwrite "stopped" with "unreachable".
      if (watch.stopped) return;
      if (!running) {
        const ended = this.end(watch, false);
        this.options.onContainerGone?.(watch.target);
        await ended;
        return;
      }
    }
    // Before the first answer the server is still booting its HTTP layer: stay "starting"
    // for a grace period, then say so instead of spinning forever.
    const graceOver = now - watch.since > (this.options.startGraceMs ?? 60_000);
    const connection = starting && !graceOver ? 'starting' : 'unreachable';
    this.publish(watch, { ...watch.status, connection, lastError: message, checkedAt: new Date(now).toISOString() });
  }
}
