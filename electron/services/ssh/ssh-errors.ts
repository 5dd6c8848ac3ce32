import { AppError } from '../../shared/errors';
import type { SshAuthOutcome } from './ssh-auth';

/** The message of an error ssh2 or net raised, plus the `level` ssh2 puts on its own. */
interface RawSshError {
  message?: string;
  code?: string;
  level?: string;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE']);

export function sshAuthFailed(target: string, outcomes: SshAuthOutcome[]): AppError {
  const tried = outcomes.filter((o) => o.result === 'tried').map((o) => o.detail);
  const skipped = outcomes.filter((o) => o.result === 'skipped').map((o) => o.detail);
  const list =
    (tried.length > 0 ? `Tried: ${tried.join(', ')}.` : 'No login method could be tried.') +
    (skipped.length > 0 ? ` Skipped: ${skipped.join('; ')}` : '');
  return new AppError(
    'SSH_AUTH_FAILED',
    `${target} refused the login. ${list} Check the user name, that your public key is in ~/.ssh/authorized_keys on the server, or the password.`,
  );
}

/**
 * Turns what ssh2 or the socket reports into a typed, actionable AppError. `target` is
 * user@host:port; no secret ever reaches this function (ssh2's messages hold none).
 */
export function mapSshError(error: unknown, target: string, readyTimeoutMs: number): AppError {
  if (error instanceof AppError) return error;
  const raw = (error ?? {}) as RawSshError;
  const message = raw.message ?? String(error);
  if (raw.code && NETWORK_CODES.has(raw.code)) {
    const why = raw.code === 'ECONNREFUSED' ? 'nothing listens on that port' : raw.code === 'ENOTFOUND' ? 'the host name is unknown' : raw.code;
    return new AppError('SSH_UNREACHABLE', `Cannot open an SSH connection to ${target}: ${why}. Check the host, the port and that sshd runs there.`, {
      cause: error,
    });
  }
  if (/timed out while waiting for handshake/i.test(message) || raw.code === 'ETIMEDOUT') {
    return new AppError(
      'SSH_TIMEOUT',
      `${target} did not complete the SSH handshake within ${Math.round(readyTimeoutMs / 1000)} s. Check the network or a firewall between you and the server.`,
      { cause: error },
    );
  }
  if (/host denied/i.test(message)) {
    return new AppError('SSH_HOST_KEY_REJECTED', `The host key of ${target} was not accepted; no credential was sent.`, { cause: error });
  }
  if (raw.level === 'client-authentication') {
    return new AppError('SSH_AUTH_FAILED', `${target} refused the login (${message}).`, { cause: error });
  }
  return new AppError('SSH_DISCONNECTED', `The SSH connection to ${target} failed: ${message}.`, { cause: error });
}

/** Why a connection that was up went away, in words for the `closed` event. */
export function closeReason(error: unknown, target: string): AppError {
  const message = (error as RawSshError | undefined)?.message ?? '';
  if (/keepalive timeout/i.test(message)) {
    return new AppError('SSH_DISCONNECTED', `${target} stopped answering keepalives; the connection was dropped.`, { cause: error });
  }
  if (message) return new AppError('SSH_DISCONNECTED', `The SSH connection to ${target} was lost: ${message}.`, { cause: error });
  return new AppError('SSH_DISCONNECTED', `${target} closed the SSH connection.`);
}
