import type { ErrorCode } from '../../shared/errors';

/**
 * Failures that another attempt cannot fix: the user has to act (type the right secret, trust or
 * replace a host key, fix known_hosts). Retrying them would hammer sshd with failed logins (and
 * trip fail2ban) or keep offering a key the user has not accepted.
 */
const NEEDS_THE_USER: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'SSH_AUTH_FAILED',
  'SSH_PASSPHRASE_NEEDED',
  'SSH_PASSPHRASE_WRONG',
  'SSH_HOST_KEY_UNKNOWN',
  'SSH_HOST_KEY_CHANGED',
  'SSH_HOST_KEY_REVOKED',
  'SSH_HOST_KEY_REJECTED',
  'SSH_KNOWN_HOSTS_UNUSABLE',
  'SSH_CONFIG_INVALID',
  'VALIDATION_FAILED',
]);

/** True when a connect that failed with `code` must not be retried on its own. */
export function isRetryable(code: ErrorCode): boolean {
  return !NEEDS_THE_USER.has(code);
}

export interface BackoffOptions {
  /** The first delay (default 500 ms). */
  initialMs?: number;
  /** The longest delay (default 30 s). */
  maxMs?: number;
  /** Each delay is the previous one times this (default 2). */
  factor?: number;
  /** ± this share of the delay, at random (default 0.2): many apps that lost one network do not all come back at once. */
  jitter?: number;
  /** [0, 1); tests pass their own. */
  random?: () => number;
}

/**
 * Jittered exponential backoff: 0.5 s, 1 s, 2 s … up to 30 s, each ±20 %. `reset()` after a
 * successful connect, or when the network came back (resume, network change) so the next try is now.
 */
export class ReconnectBackoff {
  private failures = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 500;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 0.2;
    this.random = options.random ?? Math.random;
  }

  /** Failed attempts since the last reset. */
  get attempts(): number {
    return this.failures;
  }

  /** Counts one more failed attempt and returns how long to wait before the next one. */
  nextDelayMs(): number {
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.failures);
    this.failures += 1;
    const spread = base * this.jitter * (this.random() * 2 - 1);
    return Math.max(0, Math.round(Math.min(this.maxMs * (1 + this.jitter), base + spread)));
  }

  reset(): void {
    this.failures = 0;
  }
}
