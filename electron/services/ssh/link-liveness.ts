import type { SshConnection } from './ssh-connection';

/*
 * The check `ServerSession.revalidate` runs after resume from sleep or a network change. It lives
 * apart from the session because it is about one connection, not the session's state: it only
 * answers whether the link still carries traffic.
 */

/** How long a link may take to answer after resume before it counts as dead. */
export const REVALIDATE_TIMEOUT_MS = 3000;

/**
 * Whether the server still runs a command for us within `timeoutMs`. Our own timer: a peer that
 * went silent never confirms the channel, so exec's own timeout (armed once the channel is open)
 * would never start.
 */
export function answersWithin(connection: SshConnection, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    connection.exec('true', { timeoutMs }).then(
      (r) => {
        clearTimeout(timer);
        resolve(r.code === 0);
      },
      () => {
        clearTimeout(timer);
        resolve(false);
      },
    );
  });
}
