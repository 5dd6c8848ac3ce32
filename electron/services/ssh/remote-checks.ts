import { AppError } from '../../shared/errors';
import type { DiagnosticSay } from '../../shared/schemas-servers';
import { findUserPodmanSocket, missingUserSocketDetail, type UserSocketAnswer } from '../engines/podman-socket';
import { ROOTFUL_SOCKET_START, rootlessServiceDown } from '../engines/podman-wording';
import { shellQuote } from './profile-hops';
import type { SshConnection } from './ssh-connection';
import { words, type StageResult } from './stage-result';

/**
 * The checks "Test connection" runs as commands on the server, each turned into a stage result
 * with an actionable fix. Commands are POSIX sh, the server's login shell may be anything sh-like.
 * Each result carries its facts as data too (`say`, `sayFix`) for the renderer's words.
 */

/** A command that could not run (the SSH layer's error, worded there): only the fix is ours to word. */
function failed(error: unknown, fix: string, sayFix: DiagnosticSay): StageResult {
  const app = error instanceof AppError ? error : new AppError('SSH_DISCONNECTED', String((error as Error)?.message ?? error));
  return { status: 'fail', detail: null, error: { code: app.code, message: app.message }, fix, sayFix };
}

const RELOGIN = 'then reconnect the server here: group changes only apply to new SSH logins.';

/**
 * Why the user can or cannot use the engine: missing socket, not a socket, permission, no docker
 * CLI (dial-stdio), or no rootless Podman service (user socket).
 */
export async function checkDockerAccess(
  server: SshConnection,
  docker: { engine?: 'docker' | 'podman'; transport: 'socket' | 'dial-stdio' | 'user-socket'; socketPath: string },
  user: string,
  timeoutMs: number,
): Promise<StageResult> {
  const host = server.target;
  if (docker.transport === 'dial-stdio') return checkDockerCli(server, user, timeoutMs);
  if (docker.transport === 'user-socket') return checkUserSocket(server, user, timeoutMs);
  const path = docker.socketPath;
  const script =
    `p=${shellQuote(path)}; if [ ! -e "$p" ]; then echo missing; elif [ ! -S "$p" ]; then echo not-a-socket; ` +
    `elif [ -r "$p" ] && [ -w "$p" ]; then echo ok; else echo denied; fi; id -nG; stat -c '%U:%G %a' "$p" 2>/dev/null || echo '?'`;
  let lines: string[];
  try {
    const result = await server.exec(script, { timeoutMs });
    lines = result.stdout.split('\n').map((l) => l.trim());
  } catch (error) {
    return failed(error, `Run \`ls -l ${path}\` on ${host} to see the socket.`, words('lsSocket', { path, host }));
  }
  return socketAccessResult(lines, path, user, host, docker.engine ?? 'docker');
}

/** Which of the missing-socket cases `missingUserSocketDetail` words, as a key of the renderer's words. */
function userSocketMissingKey(answer: Extract<UserSocketAnswer, { found: false }> | null): string {
  if (!answer) return 'userSocketNoAnswer';
  if (!answer.podman && !answer.runtimeDir) return 'userSocketNoPodmanNoRuntime';
  if (!answer.podman) return 'userSocketNoPodman';
  if (!answer.runtimeDir) return 'userSocketNoRuntime';
  return 'userSocketNone';
}

/** The rootless Podman socket of `user`: found and a socket, or the service is not running (and how to start it). */
export async function checkUserSocket(server: SshConnection, user: string, timeoutMs: number): Promise<StageResult> {
  const host = server.target;
  let answer;
  try {
    answer = await findUserPodmanSocket(server, timeoutMs);
  } catch (error) {
    return failed(error, `Run \`podman info\` as ${user} on ${host} to see why it hangs.`, words('podmanInfoHangs', { user, host }));
  }
  if (answer?.found) return { status: 'pass', detail: `${user}'s rootless Podman socket is ${answer.path}`, say: words('userSocketOk', { user, path: answer.path }) };
  const notInstalled = answer !== null && !answer.podman;
  return {
    status: 'fail',
    detail: missingUserSocketDetail(answer),
    error: { code: 'ENGINE_UNREACHABLE', message: `The Podman API service is not running for ${user} on ${host}.` },
    fix: notInstalled ? `Podman is not installed on ${host} for ${user}: install it (sudo apt-get install podman catatonit, or sudo dnf install podman), then: ${rootlessServiceDown(host, user)}` : rootlessServiceDown(host, user),
    say: words(userSocketMissingKey(answer), { user, host, expected: answer?.expected ?? '' }),
    sayFix: words(notInstalled ? 'podmanNotInstalled' : 'rootlessDown', { user, host }),
  };
}

/**
 * Reads the output of the socket check script: its verdict line, `id -nG`, then the socket's
 * `owner:group mode`.
 */
export function socketAccessResult(lines: string[], path: string, user: string, host: string, product: 'docker' | 'podman' = 'docker'): StageResult {
  const [verdict, groups = '', owner = '?'] = lines;
  if (product === 'podman') return podmanSocketResult(verdict, groups, owner, path, user, host);
  const facts = { path, user, host, owner, groups: groups || '–' };
  switch (verdict) {
    case 'ok':
      return { status: 'pass', detail: `${user} may use ${path} (${owner}; groups: ${groups})`, say: words('socketOk', facts) };
    case 'missing':
      return {
        status: 'fail',
        detail: `${path} does not exist on ${host}`,
        error: { code: 'ENGINE_UNREACHABLE', message: `There is no Docker socket at ${path} on ${host}.` },
        fix: `Is Docker installed and running on the server (\`sudo systemctl start docker\`)? If it runs rootless or its socket is elsewhere, set that path in the server's settings (e.g. /run/user/<uid>/docker.sock) or choose "docker system dial-stdio".`,
        say: words('socketMissing', facts),
        sayFix: words('dockerSocketMissing'),
      };
    case 'not-a-socket':
      return {
        status: 'fail',
        detail: `${path} on ${host} is ${owner}, not a socket`,
        error: { code: 'ENGINE_UNREACHABLE', message: `${path} on ${host} exists but is not a unix socket.` },
        fix: `Set the Docker socket path in the server's settings to the socket Docker listens on (\`docker context inspect\` on the server shows it).`,
        say: words('socketNotSocket', facts),
        sayFix: words('dockerNotSocket'),
      };
    case 'denied': {
      const inGroup = groups.split(/\s+/).includes('docker');
      return {
        status: 'fail',
        detail: `${path} is ${owner}; ${user} is in: ${groups || 'no groups'}`,
        error: { code: 'ENGINE_PERMISSION_DENIED', message: `${user} may not use ${path} on ${host} (permission denied).` },
        fix: inGroup
          ? `${user} is in the docker group, but the socket does not belong to it (${owner}): fix its group on the server (\`sudo chgrp docker ${path}\`), ${RELOGIN}`
          : `On the server run \`sudo usermod -aG docker ${user}\`, ${RELOGIN}`,
        say: words('socketDenied', facts),
        sayFix: words(inGroup ? 'dockerSocketGroup' : 'dockerAddGroup', facts),
      };
    }
    default:
      return unknownVerdict(verdict, path, host);
  }
}

/** The check script printed something it never prints: quote it, and say how to look by hand. */
function unknownVerdict(verdict: string | undefined, path: string, host: string): StageResult {
  return {
    ...failed(new AppError('ENGINE_UNREACHABLE', `Could not check ${path} on ${host} (the shell printed "${verdict ?? ''}").`), `Run \`ls -l ${path}; id\` on ${host} to see why.`, words('lsId', { path, host })),
    say: words('socketUnknown', { path, host, said: verdict ?? '' }),
  };
}

/** The same verdicts for a Podman socket: Podman has no docker group; rootless users use their own socket. */
function podmanSocketResult(verdict: string | undefined, groups: string, owner: string, path: string, user: string, host: string): StageResult {
  const rootless = `choose "user socket" (the rootless Podman of ${user}) in the server's settings`;
  const facts = { path, user, host, owner, groups: groups || '–' };
  switch (verdict) {
    case 'ok':
      return { status: 'pass', detail: `${user} may use ${path} (${owner}; groups: ${groups})`, say: words('socketOk', facts) };
    case 'missing':
      return {
        status: 'fail',
        detail: `${path} does not exist on ${host}`,
        error: { code: 'ENGINE_UNREACHABLE', message: `There is no Podman socket at ${path} on ${host}.` },
        fix: `Start Podman's API service on the server (${ROOTFUL_SOCKET_START}), or ${rootless}.`,
        say: words('socketMissing', facts),
        sayFix: words('podmanSocketMissing', facts),
      };
    case 'not-a-socket':
      return {
        status: 'fail',
        detail: `${path} on ${host} is ${owner}, not a socket`,
        error: { code: 'ENGINE_UNREACHABLE', message: `${path} on ${host} exists but is not a unix socket.` },
        fix: `Set the socket path in the server's settings to the one Podman serves (\`podman info --format '{{.Host.RemoteSocket.Path}}'\` on the server shows it).`,
        say: words('socketNotSocket', facts),
        sayFix: words('podmanNotSocket'),
      };
    case 'denied':
      return {
        status: 'fail',
        detail: `${path} is ${owner}; ${user} is in: ${groups || 'no groups'}`,
        error: { code: 'ENGINE_PERMISSION_DENIED', message: `${user} may not use ${path} on ${host} (permission denied).` },
        fix: `The rootful Podman socket belongs to root: ${rootless}, or log in as a user who may use it.`,
        say: words('socketDenied', facts),
        sayFix: words('podmanSocketDenied', facts),
      };
    default:
      return unknownVerdict(verdict, path, host);
  }
}

async function checkDockerCli(server: SshConnection, user: string, timeoutMs: number): Promise<StageResult> {
  const host = server.target;
  let result;
  try {
    result = await server.exec(`docker version --format '{{.Server.Version}}'`, { timeoutMs });
  } catch (error) {
    return failed(error, `Run \`docker version\` on ${host} to see why.`, words('dockerVersionBy', { host }));
  }
  return dockerCliResult(result, user, host);
}

/** What `docker version --format '{{.Server.Version}}'` answered on the server, as the permission stage of dial-stdio. */
export function dockerCliResult(result: { stdout: string; stderr: string; code: number | null }, user: string, host: string): StageResult {
  if (result.code === 0) return { status: 'pass', detail: `docker CLI on ${host} reaches Docker ${result.stdout.trim()}`, say: words('cliOk', { host, version: result.stdout.trim() }) };
  const stderr = result.stderr.trim().split('\n').slice(-1)[0] ?? '';
  if (result.code === 127) {
    return {
      status: 'fail',
      detail: null,
      error: { code: 'ENGINE_UNREACHABLE', message: `There is no docker command on ${host} (dial-stdio needs it).` },
      fix: 'Install the docker CLI on the server, or choose the socket transport with the path of the Docker socket.',
      say: words('cliMissing', { host }),
      sayFix: words('installCli'),
    };
  }
  if (/permission denied/i.test(stderr)) {
    return {
      status: 'fail',
      detail: stderr,
      error: { code: 'ENGINE_PERMISSION_DENIED', message: `${user} may not use Docker on ${host}: ${stderr}` },
      fix: `On the server run \`sudo usermod -aG docker ${user}\`, ${RELOGIN}`,
      say: words('cliDenied', { user, host, said: stderr }),
      sayFix: words('dockerAddGroup', { user }),
    };
  }
  return {
    status: 'fail',
    detail: stderr,
    error: { code: 'ENGINE_UNREACHABLE', message: `\`docker version\` failed on ${host}: ${stderr || `exit code ${result.code}`}` },
    fix: `Is Docker running on the server (\`sudo systemctl start docker\`, or \`systemctl --user start docker\` when rootless)?`,
    say: stderr ? words('cliFailed', { host, said: stderr }) : words('cliFailedCode', { host, code: result.code ?? '?' }),
    sayFix: words('dockerRunning'),
  };
}

/** The GPUs `nvidia-smi -L` lists. Missing nvidia-smi is a warning: the swarm can still run without GPUs. */
export async function checkGpus(server: SshConnection, timeoutMs: number): Promise<StageResult> {
  const host = server.target;
  let result;
  try {
    result = await server.exec('nvidia-smi -L', { timeoutMs });
  } catch (error) {
    return failed(error, `Run \`nvidia-smi -L\` on ${host} to see why it hangs (a stuck driver).`, words('nvidiaSmiHangs', { host }));
  }
  return gpuResult(result, host);
}

/** What `nvidia-smi -L` printed, as the gpus stage. */
export function gpuResult(result: { stdout: string; stderr: string; code: number | null }, host: string): StageResult {
  const gpus = result.stdout.split('\n').map((l) => l.trim()).filter((l) => /^GPU \d+:/.test(l));
  const warn = (message: string, fix: string, say: DiagnosticSay, sayFix: DiagnosticSay): StageResult => ({ status: 'warn', detail: null, error: { code: 'GPU_UNAVAILABLE', message }, fix, say, sayFix });
  if (result.code === 0 && gpus.length > 0) {
    const names = gpus.map((g) => g.replace(/^GPU \d+:\s*/, '').replace(/\s*\(UUID:.*\)$/, ''));
    return { status: 'pass', detail: `${gpus.length} GPU${gpus.length === 1 ? '' : 's'}: ${names.join(', ')}`, say: words('gpus', { n: gpus.length, names: names.join(', ') }) };
  }
  if (result.code === 127 || /not found/i.test(result.stderr)) {
    return warn(
      `nvidia-smi is not installed on ${host}: no NVIDIA driver was found, so containers there get no GPU.`,
      'Install the NVIDIA driver and the NVIDIA Container Toolkit on the server, or start the swarm with "GPUs" off.',
      words('noNvidiaSmi', { host }),
      words('installNvidia'),
    );
  }
  const why = ((result.stderr.trim() || result.stdout.trim()).split('\n')[0] ?? '').replace(/\.$/, '');
  return warn(
    `nvidia-smi on ${host} lists no GPU${why ? `: ${why}` : ''}.`,
    'Check the NVIDIA driver on the server (`nvidia-smi`; a reboot after a driver update often helps), or start the swarm with "GPUs" off.',
    why ? words('noGpuListedSaid', { host, said: why }) : words('noGpuListed', { host }),
    words('checkNvidia'),
  );
}
