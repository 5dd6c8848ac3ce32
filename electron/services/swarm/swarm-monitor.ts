import type { SwarmStatus } from '../../shared/schemas';
import type { EventSink } from '../events';
import { SwarmHttpClient } from './swarm-http-client';

export interface WatchTarget {
  engineId: string;
  containerId: string;
  url: string;
}

export interface SwarmMonitorOptions {
  events: EventSink;
  intervalMs?: number;
  /** Asked after a failed poll: is the container still running? Lets us say "stopped", not "unreachable". */
  isContainerRunning: (target: WatchTarget) => Promise<boolean>;
  onContainerGone?: (target: WatchTarget) => void;
  /** Says why a container that stopped on its own ended (exit code, last output), for the UI. */
  describeExit?: (target: WatchTarget) => Promise<string | null>;
  /** How long a fresh server may stay silent before we call it unreachable (default 60 s). */
  startGraceMs?: number;
}

type Watch = {
  target: WatchTarget;
  status: SwarmStatus;
  timer: NodeJS.Timeout | null;
  stopped: boolean;
  since: number;
};

function sameMeaning(a: SwarmStatus, b: SwarmStatus): boolean {
  return (
    a.connection === b.connection &&
    a.engineStatus === b.engineStatus &&
    a.engineStatusDetail === b.engineStatusDetail &&
    a.globalStep === b.globalStep &&
    a.lastError === b.lastError &&
    a.url === b.url
  );
}

/**
 * Polls each watched swarm server's /health and /get_engine_status (the same 1 s cadence as
 * AgentJet's own client) and emits `swarm:status` only when something meaningful changed, so the
 * UI and a future notifier are not flooded.
 */
export class SwarmMonitor {
  private readonly watches = new Map<string, Watch>();
  private readonly intervalMs: number;

  constructor(private readonly options: SwarmMonitorOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
  }

  watch(target: WatchTarget): void {
    const existing = this.watches.get(target.containerId);
    if (existing) {
      existing.target = target;
      return;
    }
    const watch: Watch = {
      target,
      stopped: false,
      timer: null,
      since: Date.now(),
      status: {
        engineId: target.engineId,
        containerId: target.containerId,
        url: target.url,
        connection: 'starting',
        engineStatus: null,
        engineStatusDetail: null,
        globalStep: null,
        lastError: null,
        checkedAt: new Date().toISOString(),
      },
    };
    this.watches.set(target.containerId, watch);
    this.options.events.emit('swarm:status', watch.status);
    void this.pollLoop(watch);
  }

  /** Stops watching; emits a final `stopped` status so the UI clears its live view. */
  unwatch(containerId: string): void {
    const watch = this.watches.get(containerId);
    if (!watch) return;
    this.end(watch);
  }

  private end(watch: Watch, reason: string | null = null): void {
    // Only the current watch of a container may end it: an old poll must not end a newer watch.
    if (watch.stopped || this.watches.get(watch.target.containerId) !== watch) return;
    watch.stopped = true;
    if (watch.timer) clearTimeout(watch.timer);
    this.watches.delete(watch.target.containerId);
    this.publish(watch, { ...watch.status, connection: 'stopped', lastError: reason, checkedAt: new Date().toISOString() });
  }

  statuses(): SwarmStatus[] {
    return [...this.watches.values()].map((w) => w.status);
  }

  isWatching(containerId: string): boolean {
    return this.watches.has(containerId);
  }

  dispose(): void {
    for (const watch of this.watches.values()) {
      watch.stopped = true;
      if (watch.timer) clearTimeout(watch.timer);
    }
    this.watches.clear();
  }

  private publish(watch: Watch, next: SwarmStatus): void {
    const changed = !sameMeaning(watch.status, next);
    watch.status = next;
    if (changed) this.options.events.emit('swarm:status', next);
  }

  private async pollLoop(watch: Watch): Promise<void> {
    await this.pollOnce(watch);
    if (watch.stopped) return;
    watch.timer = setTimeout(() => void this.pollLoop(watch), this.intervalMs);
  }

  private async pollOnce(watch: Watch): Promise<void> {
    const client = new SwarmHttpClient(watch.target.url, Math.max(500, Math.min(3000, this.intervalMs * 3)));
    const checkedAt = new Date().toISOString();
    try {
      const healthy = await client.health();
      if (!healthy) throw new Error('/health did not answer {"status":"ok"}');
      const reading = await client.engineStatus();
      if (watch.stopped) return;
      this.publish(watch, { ...watch.status, ...reading, connection: 'online', lastError: null, checkedAt });
    } catch (error) {
      if (watch.stopped) return;
      const message = error instanceof Error ? error.message : String(error);
      const running = await this.options.isContainerRunning(watch.target).catch(() => true);
      // The user may have stopped it while we asked: never overwrite "stopped" with "unreachable".
      if (watch.stopped) return;
      if (!running) {
        const reason = (await this.options.describeExit?.(watch.target).catch(() => null)) ?? null;
        this.end(watch, reason);
        this.options.onContainerGone?.(watch.target);
        return;
      }
      // Before the first answer the server is still booting its HTTP layer: stay "starting"
      // for a grace period, then say so instead of spinning forever.
      const graceOver = Date.now() - watch.since > (this.options.startGraceMs ?? 60_000);
      const connection = watch.status.connection === 'starting' && !graceOver ? 'starting' : 'unreachable';
      this.publish(watch, { ...watch.status, connection, lastError: message, checkedAt });
    }
  }
}
