import type { AppError } from '../../shared/errors';
import type { SshConnection } from '../ssh/ssh-connection';

/**
 * Finds the login user's rootless Podman socket on a server reached over SSH. Without logind (no
 * systemd session over SSH) XDG_RUNTIME_DIR is unset, and `podman` would then choose another
 * runroot than the running service's and clash with it: so the script exports the usual
 * /run/user/<uid> when that folder exists, asks `podman info` where the API socket is, and checks
 * that it is a socket; else it tries /run/user/<uid>/podman/podman.sock.
 */
export const USER_SOCKET_SCRIPT = [
  'rt="${XDG_RUNTIME_DIR:-/run/user/$(id -u)}"',
  'if [ -d "$rt" ]; then XDG_RUNTIME_DIR="$rt"; export XDG_RUNTIME_DIR; rtok=yes; else rtok=no; fi',
  "p=$(podman info --format '{{.Host.RemoteSocket.Path}}' 2>/dev/null)",
  'p="${p#unix://}"',
  'if [ -n "$p" ] && [ -S "$p" ]; then echo "socket $p"; exit 0; fi',
  'f="$rt/podman/podman.sock"',
  'if [ -S "$f" ]; then echo "socket $f"; exit 0; fi',
  'echo "none ${p:-$f} runtime-dir=$rtok podman=$(command -v podman >/dev/null 2>&1 && echo yes || echo no)"',
].join('\n');

/** What the script found: the socket, or where it looked and why nothing was there. */
export type UserSocketAnswer =
  | { found: true; path: string }
  | { found: false; expected: string; runtimeDir: boolean; podman: boolean };

export function parseUserSocketAnswer(stdout: string): UserSocketAnswer | null {
  const line = stdout.split('\n').map((l) => l.trim()).find((l) => l.startsWith('socket ') || l.startsWith('none '));
  if (!line) return null;
  if (line.startsWith('socket ')) return { found: true, path: line.slice('socket '.length).trim() };
  const match = /^none (\S*) runtime-dir=(yes|no) podman=(yes|no)$/.exec(line);
  if (!match) return null;
  return { found: false, expected: match[1] ?? '', runtimeDir: match[2] === 'yes', podman: match[3] === 'yes' };
}

/** Runs the discovery on `connection`: its answer, or null when the shell printed something else. */
export async function findUserPodmanSocket(connection: SshConnection, timeoutMs = 20_000): Promise<UserSocketAnswer | null> {
  const result = await connection.exec(USER_SOCKET_SCRIPT, { timeoutMs });
  return parseUserSocketAnswer(result.stdout);
}

/**
 * The socket path per connection: asked once on each (the answer stays true while the
 * connection lives), again after a reconnect. A miss is not remembered: the user may start the
 * service and try again.
 */
export function userSocketLocator(describeMissing: (answer: Extract<UserSocketAnswer, { found: false }> | null) => AppError): (connection: SshConnection) => Promise<string> {
  const found = new WeakMap<SshConnection, Promise<string>>();
  return (connection) => {
    let path = found.get(connection);
    if (!path) {
      path = findUserPodmanSocket(connection).then((answer) => {
        if (answer?.found) return answer.path;
        throw describeMissing(answer);
      });
      found.set(connection, path);
      path.catch(() => found.delete(connection));
    }
    return path;
  };
}

/** Why no rootless socket was found, for the fix that follows in the message. */
export function missingUserSocketDetail(answer: Extract<UserSocketAnswer, { found: false }> | null): string {
  if (!answer) return 'the socket lookup printed nothing usable';
  if (!answer.podman && !answer.runtimeDir) return 'there is no podman command and no runtime folder (/run/user/<uid>) for this user';
  if (!answer.podman) return `there is no podman command, and nothing listens at ${answer.expected}`;
  if (!answer.runtimeDir) return `the user has no runtime folder (XDG_RUNTIME_DIR, /run/user/<uid>): log in on the console once, or enable lingering`;
  return `no socket at ${answer.expected}`;
}
