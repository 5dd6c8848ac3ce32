import { describe, expect, it } from 'vitest';
import { FAILURES_BEFORE_BACKOFF, nextPollDelay, overdueAfterMs, type PollState } from '../../../../electron/services/swarm/poll-schedule';

const pace = { intervalMs: 1000, hiddenIntervalMs: 4000, maxBackoffMs: 30_000 };
const answering: PollState = { shown: true, answered: true, retryMs: 50, failures: 0, inStartGrace: false };

describe('when a watched swarm server is asked next', () => {
  it('asks every interval while shown, and at the slower pace while no window shows the app', () => {
    expect(nextPollDelay(pace, answering)).toBe(1000);
    expect(nextPollDelay(pace, { ...answering, shown: false })).toBe(4000);
    // Hidden is never faster than shown (a test or a user may set a slow interval).
    expect(nextPollDelay({ ...pace, intervalMs: 10_000 }, { ...answering, shown: false })).toBe(10_000);
  });

  it('retries a fresh server within milliseconds, doubling up to the interval', () => {
    const fresh = { ...answering, answered: false, inStartGrace: true, failures: 3 };
    expect(nextPollDelay(pace, { ...fresh, retryMs: 50 })).toBe(50);
    expect(nextPollDelay(pace, { ...fresh, retryMs: 800 })).toBe(800);
    expect(nextPollDelay(pace, { ...fresh, retryMs: 1600 })).toBe(1000);
  });

  it('backs off while a server does not answer: a few tries at the interval, then doubling, capped', () => {
    const delays = Array.from({ length: 12 }, (_, i) => nextPollDelay(pace, { ...answering, failures: i + 1 }));
    expect(delays.slice(0, FAILURES_BEFORE_BACKOFF)).toEqual([1000, 1000, 1000]);
    expect(delays.slice(FAILURES_BEFORE_BACKOFF, FAILURES_BEFORE_BACKOFF + 5)).toEqual([2000, 4000, 8000, 16_000, 30_000]);
    expect(Math.max(...delays)).toBe(30_000);
    // A fresh server silent past its start grace backs off too (a server that never came up is not asked every second for ever).
    expect(nextPollDelay(pace, { ...answering, answered: false, inStartGrace: false, failures: 10 })).toBe(30_000);
    // Hidden: from the slower pace, to the same cap.
    expect(nextPollDelay(pace, { ...answering, shown: false, failures: 4 })).toBe(8000);
    expect(nextPollDelay(pace, { ...answering, shown: false, failures: 9 })).toBe(30_000);
  });

  it('calls an answer overdue after two intervals plus a request timeout', () => {
    expect(overdueAfterMs(pace, true, 3000)).toBe(5000);
    expect(overdueAfterMs(pace, false, 3000)).toBe(11_000);
  });

  it('stays within the watch budget with no window: at most 35 requests a minute per server', () => {
    expect(60_000 / nextPollDelay(pace, { ...answering, shown: false })).toBeLessThanOrEqual(35);
  });
});
