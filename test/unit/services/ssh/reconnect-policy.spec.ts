import { describe, expect, it } from 'vitest';
import { ReconnectBackoff, isRetryable } from '../../../../electron/services/ssh/reconnect-policy';

describe('ReconnectBackoff', () => {
  it('doubles from 0.5 s up to 30 s without jitter', () => {
    const backoff = new ReconnectBackoff({ random: () => 0.5 });
    const delays = Array.from({ length: 10 }, () => backoff.nextDelayMs());
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
    expect(backoff.attempts).toBe(10);
  });

  it('spreads each delay by at most ±20 %, both ways', () => {
    const low = new ReconnectBackoff({ random: () => 0 });
    const high = new ReconnectBackoff({ random: () => 0.999_999 });
    expect([low.nextDelayMs(), low.nextDelayMs(), low.nextDelayMs()]).toEqual([400, 800, 1600]);
    expect([high.nextDelayMs(), high.nextDelayMs(), high.nextDelayMs()]).toEqual([600, 1200, 2400]);
    const capped = new ReconnectBackoff({ random: () => 0.999_999, initialMs: 30_000 });
    expect(capped.nextDelayMs()).toBe(36_000);
  });

  it('with Math.random, stays within the band and is not the same every time', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 50; i += 1) {
      const backoff = new ReconnectBackoff();
      backoff.nextDelayMs();
      const second = backoff.nextDelayMs();
      expect(second).toBeGreaterThanOrEqual(800);
      expect(second).toBeLessThanOrEqual(1200);
      seen.add(second);
    }
    expect(seen.size).toBeGreaterThan(5);
  });

  it('starts over after reset (a successful connect, or the network came back)', () => {
    const backoff = new ReconnectBackoff({ random: () => 0.5 });
    backoff.nextDelayMs();
    backoff.nextDelayMs();
    backoff.reset();
    expect(backoff.attempts).toBe(0);
    expect(backoff.nextDelayMs()).toBe(500);
  });
});

describe('isRetryable', () => {
  it('never retries what only the user can fix: logins, passphrases, host keys', () => {
    for (const code of ['SSH_AUTH_FAILED', 'SSH_PASSPHRASE_NEEDED', 'SSH_PASSPHRASE_WRONG', 'SSH_HOST_KEY_UNKNOWN', 'SSH_HOST_KEY_CHANGED', 'SSH_HOST_KEY_REVOKED', 'SSH_HOST_KEY_REJECTED'] as const) {
      expect(isRetryable(code), code).toBe(false);
    }
  });

  it('retries network trouble', () => {
    for (const code of ['SSH_UNREACHABLE', 'SSH_TIMEOUT', 'SSH_DISCONNECTED'] as const) expect(isRetryable(code), code).toBe(true);
  });
});
