import type http from 'node:http';
import { nextPollDelay, overdueAfterMs, type PollPace } from './poll-schedule';
import { keepAliveAgent, SwarmHttpClient, SwarmHttpError, type EngineStatusReading } from './swarm-http-client';
import type { SwarmReading, WatchTarget } from './watch-types';

export interface TargetPollerSettings {
  pace: PollPace;
  timeoutMs: number;
  startGraceMs: number;
  firstRetryMs: number;
  shown: () => boolean;
}

/** What the monitor does with the polls of one target. */
export interface TargetPollerHooks {
  /** Every poll, answered or not (before `answered`/`failed`). */
  reading(reading: SwarmReading): void;
  /** The server answered: turn the reading into a status (may read the log; the next poll waits for it). */
  answered(engine: EngineStatusReading, at: number): Promise<void>;
  /** The server did not answer (`failures` in a row so far). */
  failed(message: string): void;
  /** No answer came in time (`overdueAfterMs`, or the start grace): say so now. */
  overdue(message: string): void;
  /** A hook threw: reported here, and the polls go on (a bug in one answer's handling must not end the watch). */
  hookFailed?(error: unknown): void;
}

/**
 * The schedule and the connection of one watched swarm server: one poll at a time on one keep-alive
 * agent, at the pace poll-schedule.ts gives, and an overdue timer re-armed by each answer.
 */
export class TargetPoller {
  answered = false;
  /** Polls that failed in a row (0 after an answer). */
  failures = 0;
  latest: SwarmReading | null = null;
  client: SwarmHttpClient;
  readonly since = Date.now();
  private agent: http.Agent;
  private timer: NodeJS.Timeout | null = null;
  private overdueTimer: NodeJS.Timeout | null = null;
  private polling = false;
  private stopped = false;
  private retryMs: number;

  constructor(
    private target: WatchTarget,
    private readonly settings: TargetPollerSettings,
    private readonly hooks: TargetPollerHooks,
  ) {
    this.agent = keepAliveAgent();
    this.client = new SwarmHttpClient(target.url, settings.timeoutMs, this.agent);
    this.retryMs = Math.max(1, settings.firstRetryMs);
  }

  start(): void {
    // Silent past the start grace: "unreachable", even while a running check hangs on a frozen link.
    this.armOverdue(this.settings.startGraceMs);
    void this.loop();
  }

  /** The target moved (a new tunnel port after a reconnect): new connections to the new URL. */
  moveTo(target: WatchTarget): void {
    const moved = target.url !== this.target.url;
    this.target = target;
    if (!moved) return;
    this.agent.destroy();
    this.agent = keepAliveAgent();
    this.client = new SwarmHttpClient(target.url, this.settings.timeoutMs, this.agent);
  }

  /** Asks now instead of at the end of the current wait (a window was shown, the link is back). */
  pollSoon(): void {
    if (this.stopped || this.polling) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.loop(), 0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.overdueTimer) clearTimeout(this.overdueTimer);
    this.agent.destroy();
  }

  private async loop(): Promise<void> {
    this.timer = null;
    if (this.stopped || this.polling) return;
    this.polling = true;
    try {
      await this.pollOnce();
    } catch (error) {
      this.hooks.hookFailed?.(error);
    } finally {
      this.polling = false;
    }
    if (this.stopped) return;
    const delay = nextPollDelay(this.settings.pace, {
      shown: this.settings.shown(),
      answered: this.answered,
      retryMs: this.retryMs,
      failures: this.failures,
      inStartGrace: Date.now() - this.since < this.settings.startGraceMs,
    });
    if (!this.answered) this.retryMs *= 2;
    this.timer = setTimeout(() => void this.loop(), delay);
  }

  private async pollOnce(): Promise<void> {
    const target = this.target;
    const at = Date.now();
    const started = performance.now();
    let reading: SwarmReading;
    try {
      const engine = await this.client.engineStatus();
      reading = { target, at, engine, error: null, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
    } catch (error) {
      const kind = error instanceof SwarmHttpError ? error.kind : 'other';
      reading = { target, at, engine: null, error: { message: error instanceof Error ? error.message : String(error), kind }, latencyMs: null };
    }
    if (this.stopped) return;
    this.latest = reading;
    this.hooks.reading(reading);
    if (reading.engine) {
      this.answered = true;
      this.failures = 0;
      this.armOverdue(overdueAfterMs(this.settings.pace, this.settings.shown(), this.settings.timeoutMs));
      await this.hooks.answered(reading.engine, at);
    } else {
      this.failures += 1;
      this.hooks.failed(reading.error?.message ?? 'no answer');
    }
  }

  /**
   * An answer is due within `afterMs`; if none came by then, the hooks say so. Re-armed by every
   * answer; also covers a poll whose follow-up (a boot log read over the same link) hangs.
   */
  private armOverdue(afterMs: number): void {
    if (this.overdueTimer) clearTimeout(this.overdueTimer);
    const armedAt = Date.now();
    this.overdueTimer = setTimeout(() => {
      this.overdueTimer = null;
      const last = this.latest;
      if (this.stopped || (last && last.at >= armedAt && last.engine)) return;
      this.hooks.overdue(last?.error?.message ?? `no answer within ${afterMs} ms`);
    }, afterMs);
    this.overdueTimer.unref?.();
  }
}
