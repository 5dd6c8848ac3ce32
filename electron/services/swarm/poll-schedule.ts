/**
 * When a watched swarm server is asked next: pure arithmetic, so the schedule is tested without
 * servers or clocks. One poll at a time per server; the monitor sets one timer from this.
 */
export interface PollPace {
  /** The interval while a window shows the app. */
  intervalMs: number;
  /** The interval while none does. */
  hiddenIntervalMs: number;
  /** The longest wait while a server does not answer. */
  maxBackoffMs: number;
}

export interface PollState {
  shown: boolean;
  /** Whether the server ever answered since it was watched. */
  answered: boolean;
  /** The fast first-retry delay of a fresh server (doubles per try until it first answers). */
  retryMs: number;
  /** Polls that failed in a row (0 after an answer). */
  failures: number;
  /** A fresh server still within its start grace (its HTTP layer may take seconds to listen). */
  inStartGrace: boolean;
}

/** Failures in a row polled at the normal interval before the waits double: a short hiccup is seen at once. */
export const FAILURES_BEFORE_BACKOFF = 3;

/** The interval for the current visibility: hidden is never faster than shown. */
export function currentInterval(pace: PollPace, shown: boolean): number {
  return shown ? pace.intervalMs : Math.max(pace.intervalMs, pace.hiddenIntervalMs);
}

/**
 * The delay before the next poll. A fresh server is asked again within milliseconds (it listens
 * within a fraction of a second); an answering one at the interval; one that stopped answering at
 * the interval for a few tries, then doubling up to `maxBackoffMs`.
 */
export function nextPollDelay(pace: PollPace, state: PollState): number {
  const interval = currentInterval(pace, state.shown);
  if (!state.answered && state.inStartGrace) return Math.min(interval, state.retryMs);
  if (state.failures <= FAILURES_BEFORE_BACKOFF) return interval;
  const doubled = interval * 2 ** (state.failures - FAILURES_BEFORE_BACKOFF);
  return Math.max(interval, Math.min(pace.maxBackoffMs, doubled));
}

/** How long after the last answer a status may still say "online": about two intervals plus a request's timeout. */
export function overdueAfterMs(pace: PollPace, shown: boolean, timeoutMs: number): number {
  return 2 * currentInterval(pace, shown) + timeoutMs;
}
