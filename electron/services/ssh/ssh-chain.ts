import { EventEmitter } from 'node:events';
import { AppError } from '../../shared/errors';
import type { AskSecret, SecretRequest, SshAuthAttempt, SshAuthOutcome } from './ssh-auth';
import { SecretMemory } from './ssh-auth';
import { withHostKeyOrder } from './host-key-algorithms';
import { ProxyCommandProcess, proxyCommandError } from './proxy-command';
import { SshConnection, type HostKeyInfo, type SshConnectionOptions } from './ssh-connection';

/** One machine of a ProxyJump chain; the target is the last hop. */
export interface ChainHop {
  host: string;
  port: number;
  username: string;
  /** Tried in this order (see hopsOfProfile in profile-hops.ts). */
  auth: SshAuthAttempt[];
  /** Ways of logging in the profile asked for but that cannot be tried here, with why (e.g. no ssh-agent). */
  skippedAuth?: string[];
  /** The first hop only: a ProxyCommand (tokens expanded) whose stdin/stdout replace TCP. */
  proxyCommand?: string;
}

export interface SshChainOptions {
  /** Jump hosts first, the target last (at least one hop). */
  hops: ChainHop[];
  /** `hop` is the index in `hops` of the machine asking (the target is `hops.length - 1`). */
  askSecret: (hop: number, request: SecretRequest) => Promise<string | null>;
  verifyHostKey: (hop: number, info: HostKeyInfo) => Promise<boolean>;
  readyTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** Secrets typed for this chain (keyed per hop by SshConnection), kept across reconnects. */
  memory?: SecretMemory;
  onAuthAttempt?: (hop: number, outcome: SshAuthOutcome) => void;
  /** ssh2 algorithm preferences (cipher order …), used for every hop. */
  algorithms?: SshConnectionOptions['algorithms'];
  /**
   * The host key types known_hosts trusts for a hop: asked for first when negotiating (host-key-algorithms.ts),
   * so a server that has a known key shows it and one that shows another type has none of them.
   */
  knownKeyTypes?: (hop: number, host: string, port: number) => Promise<string[]>;
}

/** `user@host:port` of a hop, as messages and prompts name it. */
export function hopTarget(hop: ChainHop): string {
  return `${hop.username}@${hop.host}:${hop.port}`;
}

/**
 * An AppError of one hop of a chain: the code stays the hop's own (SSH_HOST_KEY_UNKNOWN, SSH_AUTH_FAILED …),
 * `hop` says which machine (index in the chain, target last). A jump host's message starts with
 * "via jump host user@host:port (hop 1 of 2): "; the target's message already names the target.
 */
export class HopError extends AppError {
  constructor(
    error: AppError,
    readonly hop: number,
    readonly hopCount: number,
    readonly hopTarget: string,
  ) {
    // Its params stay: the connection test words a failure from them.
    super(error.code, hopMessage(error.message, hop, hopCount, hopTarget), { cause: error, ...(error.params ? { params: error.params } : {}) });
    this.name = 'HopError';
  }
}

function hopMessage(message: string, hop: number, hopCount: number, target: string): string {
  return hop < hopCount - 1 ? `via jump host ${target} (hop ${hop + 1} of ${hopCount}): ${message}` : message;
}

/** Wraps what a hop raised so it names the hop; a HopError passes through unchanged. */
export function hopError(error: unknown, hop: number, hops: readonly ChainHop[]): HopError {
  if (error instanceof HopError) return error;
  const app = error instanceof AppError ? error : new AppError('SSH_DISCONNECTED', String((error as Error)?.message ?? error), { cause: error });
  return new HopError(app, hop, hops.length, hopTarget(hops[hop]!));
}

/**
 * A stream to hop `index` through the previous hop's connection (direct-tcpip). A refusal means the
 * previous hop cannot reach the next one: SSH_UNREACHABLE, named after the hop that could not be reached.
 */
export async function streamToHop(previous: SshConnection, hops: readonly ChainHop[], index: number) {
  const hop = hops[index]!;
  try {
    return await previous.forwardOut(hop.host, hop.port);
  } catch (error) {
    const why = error instanceof AppError ? error.message : String(error);
    throw hopError(
      new AppError('SSH_UNREACHABLE', `Cannot open an SSH connection to ${hopTarget(hop)} from ${previous.target}: ${why.replace(/^Cannot reach [^:]+:\d+ from [^:]+:\d+: /, '')} Check the host and port as seen from the jump host, and that sshd runs there.`, { cause: error }),
      index,
      hops,
    );
  }
}

/** Connects hop `index` (over `previous` when it is a jump), with its errors naming the hop. */
export async function connectHop(options: SshChainOptions, index: number, previous: SshConnection | undefined, memory: SecretMemory): Promise<SshConnection> {
  const hops = options.hops;
  const hop = hops[index]!;
  let knownKeyTypes: string[];
  try {
    knownKeyTypes = options.knownKeyTypes ? await options.knownKeyTypes(index, hop.host, hop.port) : [];
  } catch (error) {
    throw hopError(error, index, hops);
  }
  const algorithms = withHostKeyOrder(options.algorithms, knownKeyTypes);
  const proxy = !previous && hop.proxyCommand ? new ProxyCommandProcess(hop.proxyCommand) : null;
  const sock = proxy ? proxy.stream : previous ? await streamToHop(previous, hops, index) : undefined;
  const askSecret: AskSecret = (request) => options.askSecret(index, request);
  try {
    const connection = await SshConnection.connect({
      host: hop.host,
      port: hop.port,
      username: hop.username,
      auth: hop.auth,
      askSecret,
      verifyHostKey: (info) => options.verifyHostKey(index, info),
      memory,
      ...(sock ? { sock } : {}),
      ...(proxy ? { transportError: () => proxy.failure(hopTarget(hop)) } : {}),
      ...(options.readyTimeoutMs !== undefined ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
      ...(options.keepaliveIntervalMs !== undefined ? { keepaliveIntervalMs: options.keepaliveIntervalMs } : {}),
      ...(options.keepaliveCountMax !== undefined ? { keepaliveCountMax: options.keepaliveCountMax } : {}),
      ...(algorithms ? { algorithms } : {}),
      ...(options.onAuthAttempt ? { onAuthAttempt: (outcome: SshAuthOutcome) => options.onAuthAttempt!(index, outcome) } : {}),
    });
    // The command lives as long as its connection: stopped when it closes, whoever closed it.
    if (proxy) connection.once('closed', () => proxy.stop());
    return connection;
  } catch (error) {
    sock?.destroy();
    throw hopError(proxy ? await proxyFailure(proxy, error, hopTarget(hop)) : error, index, hops);
  }
}

/**
 * What to report when a connect through a ProxyCommand failed: our own refusal (host key, login) as it
 * is; otherwise, when the command ended by itself, its exit code and stderr, which say far more than
 * "connection closed during login". Either way the command is stopped.
 */
async function proxyFailure(proxy: ProxyCommandProcess, error: unknown, target: string): Promise<unknown> {
  const ours = error instanceof AppError && /^SSH_(HOST_KEY|AUTH|PASSPHRASE|KNOWN_HOSTS)/.test(error.code);
  const exit = ours ? null : await proxy.exitedWithin(2000);
  proxy.stop();
  return exit ? proxyCommandError(exit, target) : error;
}

/**
 * A connection to the last hop, each next hop reached over `forwardOut` of the previous one
 * (OpenSSH's ProxyJump). `closed` fires once when any hop's connection goes away: the target is
 * unreachable then, and every other hop is closed too. Errors name the hop that failed (HopError).
 */
export class SshChain extends EventEmitter<{ closed: [reason: AppError | null] }> {
  private closedEmitted = false;
  private closing = false;
  /** Why each hop's connection went away, by hop index (null: we closed it). */
  private readonly reasons = new Map<number, AppError | null>();

  private constructor(
    readonly connections: SshConnection[],
    private readonly hops: readonly ChainHop[],
  ) {
    super();
    connections.forEach((connection, index) => {
      connection.once('closed', (reason) => {
        this.reasons.set(index, reason);
        this.onHopClosed();
      });
    });
  }

  /** The connection to the target (the last hop): exec, Docker and tunnels run on it. */
  get target(): SshConnection {
    return this.connections[this.connections.length - 1]!;
  }

  get isOpen(): boolean {
    return this.connections.every((c) => c.isOpen);
  }

  static async connect(options: SshChainOptions): Promise<SshChain> {
    if (options.hops.length === 0) throw new Error('SshChain.connect needs at least one hop');
    const memory = options.memory ?? new SecretMemory();
    const connections: SshConnection[] = [];
    try {
      for (let index = 0; index < options.hops.length; index++) {
        connections.push(await connectHop(options, index, connections[index - 1], memory));
      }
    } catch (error) {
      await Promise.allSettled([...connections].reverse().map((c) => c.close()));
      throw error;
    }
    return new SshChain(connections, options.hops);
  }

  /**
   * When a jump host drops, the target's connection (a channel inside it) goes down with it, with a
   * vaguer reason. Which of them reports first is up to ssh2 (today: the jump host, see ssh-jump.spec.ts);
   * waiting one turn of the event loop lets every hop that went down report, so the cause named is the
   * first hop (closest to us) whatever that order is.
   */
  private onHopClosed(): void {
    if (this.closedEmitted) return;
    this.closedEmitted = true;
    setImmediate(() => {
      const first = [...this.reasons.keys()].sort((a, b) => a - b)[0] ?? this.connections.length - 1;
      const raw = this.closing ? null : (this.reasons.get(first) ?? null);
      void this.close().finally(() => this.emit('closed', raw ? hopError(raw, first, this.hops) : null));
    });
  }

  /** Closes the target first, then each jump host. */
  async close(): Promise<void> {
    this.closing = true;
    for (const connection of [...this.connections].reverse()) await connection.close();
  }
}
