import http from 'node:http';
import type { Duplex } from 'node:stream';
import { inspect } from 'node:util';
import Docker from 'dockerode';
import { AppError } from '../../shared/errors';
import { PODMAN_ROOTFUL_SOCKET } from '../../shared/schemas-servers';
import type { SshConnection } from '../ssh/ssh-connection';
import { DockerApiEngine } from './docker-api-engine';
import { detectedDialect } from './engine-dialect';
import { SshHost } from './engine-host';
import type { EngineWording } from './engine-wording';
import { sshPodmanWording } from './podman-wording';

export const DEFAULT_REMOTE_DOCKER_SOCKET = '/var/run/docker.sock';

/** The fixes a user of Docker on a server reached over SSH can act on: commands run there, not here. */
export function sshDockerWording(server: string, user: string, socketPath?: string): EngineWording {
  return {
    product: 'Docker',
    pullImage: (image) => `Pull it on ${server} first (on ${server}: docker pull ${image}).`,
    unreachable: () =>
      `Is Docker running on ${server}${socketPath ? `, with its socket at ${socketPath}` : ''}? Check with "docker version" on ${server}.`,
    permissionDenied: () =>
      `On ${server}, add ${user} to the "docker" group (sudo usermod -aG docker ${user}), then reconnect.`,
    noGpuRuntime: () =>
      `Docker on ${server} cannot give GPUs to containers (no NVIDIA Container Toolkit). Install it on ${server}, or untick "GPUs" to start without them.`,
  };
}

/**
 * What Node's http client and Agent call on a socket. An ssh2 channel is a plain Duplex without
 * them; TCP options mean nothing inside an SSH channel, so they are no-ops here.
 */
function asSocket(channel: Duplex): Duplex {
  const socket = channel as Duplex & Record<string, unknown>;
  // Node's Agent drops a closed *free* socket only when it is `destroyed`; ssh2 closes a channel
  // without marking it so, and the Agent would hand the dead channel to the next request (which
  // then hangs, e.g. the first Docker call after a reconnect). Mark it before the Agent hears of it.
  socket.prependListener('close', () => {
    socket.destroyed = true;
  });
  for (const name of ['setKeepAlive', 'setNoDelay', 'ref', 'unref']) {
    if (typeof socket[name] !== 'function') socket[name] = () => socket;
  }
  if (typeof socket.setTimeout !== 'function') {
    let timer: NodeJS.Timeout | null = null;
    socket.setTimeout = (ms: number, onTimeout?: () => void) => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (onTimeout) socket.once('timeout', onTimeout);
      if (ms > 0) timer = setTimeout(() => socket.emit('timeout'), ms).unref();
      return socket;
    };
    socket.once('close', () => timer && clearTimeout(timer));
  }
  return socket;
}

/**
 * An http.Agent whose "sockets" are SSH channels opened by `open`, all on one SSH connection.
 * Keep-alive reuses channels between calls, so a Docker call costs one round trip, not a channel
 * open (and never a new SSH login, unlike docker-modem's `ssh` protocol).
 */
export function createChannelAgent(
  open: () => Promise<Duplex>,
  label: string,
  describeFailure: (message: string) => AppError,
): http.Agent {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16, maxFreeSockets: 4 });
  // Node's Agent calls createConnection with a callback and accepts an asynchronous answer.
  (agent as unknown as { createConnection: unknown }).createConnection = (
    _options: unknown,
    callback: (error: Error | null, socket?: Duplex) => void,
  ): undefined => {
    open().then(
      (channel) => callback(null, asSocket(channel)),
      (error: unknown) =>
        callback(
          error instanceof AppError && error.code !== 'SSH_DISCONNECTED'
            ? error
            : describeFailure(String((error as Error).message ?? error)),
        ),
    );
    return undefined;
  };
  // docker-modem runs util.inspect(options, {showHidden, depth: null}) on every request, even with
  // debugging off; through `options.agent` that walked the whole SSH connection and cost ~1.5 ms a call.
  Object.defineProperty(agent, inspect.custom, { value: () => label });
  return agent;
}

/**
 * A connection, or a getter of the current one: a server session that reconnects hands out its
 * live connection at each call, so channels opened after a reconnect use the new one.
 */
export type ConnectionSource = SshConnection | (() => Promise<SshConnection>);

function currentOf(source: ConnectionSource): () => Promise<SshConnection> {
  return typeof source === 'function' ? source : () => Promise.resolve(source);
}

function openOn(source: ConnectionSource, open: (connection: SshConnection) => Promise<Duplex>): () => Promise<Duplex> {
  const current = currentOf(source);
  return async () => {
    return open(await current());
  };
}

/** Channels to the Docker socket on the server (OpenSSH direct-streamlocal). */
export function createStreamLocalAgent(
  connection: ConnectionSource,
  socketPath: string,
  describeFailure: (message: string) => AppError,
): http.Agent {
  return createChannelAgent(openOn(connection, (c) => c.openStreamLocal(socketPath)), `StreamLocalAgent(${socketPath})`, describeFailure);
}

/**
 * Channels that each run `docker system dial-stdio` on the server: the docker CLI finds the
 * engine itself (rootless Docker, DOCKER_HOST, contexts) when the socket path is not the default.
 */
export function createDialStdioAgent(connection: ConnectionSource, describeFailure: (message: string) => AppError): http.Agent {
  return createChannelAgent(openOn(connection, (c) => c.execStream('docker system dial-stdio')), 'DialStdioAgent', describeFailure);
}

/** dockerode options whose every request goes through `agent`; the host name is never resolved. */
export function dockerOptionsOverAgent(agent: http.Agent): Docker.DockerOptions {
  // @types/dockerode omits `agent`, which docker-modem passes on to http.request.
  const options: Docker.DockerOptions & { agent: http.Agent } = { protocol: 'http', host: 'docker.invalid', port: 80, agent };
  return options;
}

export interface SshDockerEngineOptions {
  /** The engine id in the EngineRegistry, e.g. "ssh:gpu-box". */
  id: string;
  /**
   * What the user said the server runs (default Docker): the engine's kind, and its wording until
   * it answered. The engine's `/version` decides after that (a "Docker" that is Podman speaks Podman).
   */
  engine?: 'docker' | 'podman';
  /** What the Servers page shows, e.g. "gpu-box". */
  label: string;
  /**
   * The connection, or (for a session that reconnects) where to get the current one: then `target`
   * (user@host:port) names it in the endpoint, and a getter that is not connected rejects with an
   * AppError that is passed on as is.
   */
  connection: SshConnection | { target: string; current: () => Promise<SshConnection> };
  /**
   * How to reach Docker on the server: its socket (default /var/run/docker.sock) through
   * streamlocal, or `dial-stdio` to let the server's docker CLI find it (rootless, contexts).
   */
  transport?: { kind: 'socket'; path: string } | { kind: 'dial-stdio' };
  /**
   * The URL the app uses to reach a port on the server. The self-healing tunnel provides it; until
   * it lands, callers pass their own (the test bed shares loopback with this machine).
   */
  urlForHostPort: (port: number) => Promise<string>;
  /** Closes what `urlForHostPort` opened for `port` (the tunnel), once no server runs behind it. */
  releaseHostPort?: (port: number) => Promise<void>;
  /** Close the SSH connection when the engine is disposed (true when the engine owns it). */
  closeConnectionOnDispose?: boolean;
}

/** True when no socket on the server listens on `port` (any address), per `ss -ltnH`. */
export function portListedByShow(ssOutput: string, port: number): boolean {
  return ssOutput.split('\n').some((line) => {
    const local = line.trim().split(/\s+/)[3];
    return local !== undefined && local.endsWith(`:${port}`);
  });
}

/**
 * Asks the server whether its loopback port is free: `ss -ltnH` where it exists, else a
 * direct-tcpip probe (a refused channel means nothing listens on 127.0.0.1:port there).
 */
export async function isRemotePortFree(source: ConnectionSource, port: number): Promise<boolean> {
  const connection = await currentOf(source)();
  const ss = await connection.exec('ss -ltnH', { timeoutMs: 10_000 });
  if (ss.code === 0) return !portListedByShow(ss.stdout, port);
  try {
    const probe = await connection.forwardOut('127.0.0.1', port);
    probe.close();
    return false;
  } catch {
    return true;
  }
}

/**
 * Docker on a server reached over SSH: the same DockerApiEngine as Local Docker, with its HTTP
 * sent through streamlocal channels of `connection` and host checks run on the server.
 */
export function createSshDockerEngine(options: SshDockerEngineOptions): DockerApiEngine {
  const { connection } = options;
  const source: ConnectionSource = 'current' in connection ? connection.current : connection;
  const transport = options.transport ?? { kind: 'socket', path: DEFAULT_REMOTE_DOCKER_SOCKET };
  const server = options.label;
  const user = connection.target.split('@')[0] ?? 'your user';
  const where = transport.kind === 'socket' ? transport.path : 'docker system dial-stdio';
  const socketPath = transport.kind === 'socket' ? transport.path : undefined;
  const product = options.engine ?? 'docker';
  const podmanWording = (rootless: boolean | null) =>
    sshPodmanWording(server, user, { rootless: rootless ?? socketPath !== PODMAN_ROOTFUL_SOCKET, ...(socketPath ? { path: socketPath } : {}) });
  const dialect = detectedDialect(product, { docker: () => sshDockerWording(server, user, socketPath), podman: podmanWording });
  const wording = dialect.assumed.wording;
  const endpoint = `ssh://${connection.target}${transport.kind === 'socket' ? transport.path : ' (docker system dial-stdio)'}`;
  // OpenSSH answers "open failed" both for a missing socket and for one the user may not open.
  const describeFailure = (message: string): AppError =>
    new AppError(
      'ENGINE_UNREACHABLE',
      `Cannot open ${where} on ${server} over SSH (${message}). ${wording.unreachable(endpoint)} If it is, ${wording.permissionDenied(endpoint)}`,
    );
  const agent =
    transport.kind === 'socket'
      ? createStreamLocalAgent(source, transport.path, describeFailure)
      : createDialStdioAgent(source, describeFailure);
  const docker = new Docker(dockerOptionsOverAgent(agent));
  return new DockerApiEngine({
    summary: { id: options.id, kind: product === 'podman' ? 'podman' : 'ssh-docker', label: options.label, endpoint },
    docker,
    wording,
    dialect,
    isHostPortFree: (port) => isRemotePortFree(source, port),
    urlForHostPort: options.urlForHostPort,
    host: new SshHost(`${options.label} (${connection.target})`, currentOf(source)),
    ...(options.releaseHostPort ? { releaseHostPort: options.releaseHostPort } : {}),
    onDispose: async () => {
      agent.destroy();
      if (options.closeConnectionOnDispose && !('current' in connection)) await connection.close();
    },
  });
}
