import { ReconnectBackoff, type BackoffOptions } from './reconnect-policy';

export interface ReconnectHooks {
  /** The retry is due: the session makes its next attempt. */
  retry: () => void;
  /** A retry was scheduled and `nextRetryAt` is set: the session shows `reconnecting` (before the timer is armed). */
  scheduled: () => void;
}

/**
 * When a server session tries again: the jittered backoff (reconnect-policy.ts, which stays pure
 * and timer-free), the one pending retry timer, and when it fires (the view's `nextRetryAt`). It
 * lives apart from `ServerSession` so the session reads as the link's state machine, and so there
 * is exactly one place that arms or clears the retry timer (two armed timers would mean two
 * concurrent attempts).
 */
export class ReconnectSchedule {
  private readonly backoff: ReconnectBackoff;
  private timer: NodeJS.Timeout | null = null;
  private at: number | null = null;

  constructor(
    options: BackoffOptions | undefined,
    private readonly hooks: ReconnectHooks,
  ) {
    this.backoff = new ReconnectBackoff(options);
  }

  /** Failed attempts since the backoff was last reset. */
  get attempts(): number {
    return this.backoff.attempts;
  }

  /** When the pending retry fires (epoch ms); null when none is pending or its attempt has begun. */
  get nextRetryAt(): number | null {
    return this.at;
  }

  /** A retry timer is armed and has not fired yet. */
  get pending(): boolean {
    return this.timer !== null;
  }

  /** After a successful connect, or when the next try should be now (user, resume, lost link). */
  resetBackoff(): void {
    this.backoff.reset();
  }

  /** Replaces any pending retry with one after `delayMs` (default: the backoff's next delay, counted as a failure). */
  schedule(delayMs: number = this.backoff.nextDelayMs()): void {
    this.cancel();
    this.at = Date.now() + delayMs;
    this.hooks.scheduled();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.hooks.retry();
    }, delayMs);
  }

  /** The attempt began (by the timer or by hand): no retry time to show any more. */
  began(): void {
    this.at = null;
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.at = null;
  }
}
