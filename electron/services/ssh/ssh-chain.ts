import { EventEmitter } from 'node:events';
import type { AppError } from '../../shared/errors';
import type { AskSecret, SecretRequest, SshAuthAttempt, SshAuthOutcome } from './ssh-auth';
import { SecretMemory } from './ssh-auth';
import { SshConnection, type HostKeyInfo } from './ssh-connection';

/** One machine of a ProxyJump chain; the target is the last hop. */
export interface ChainHop {
  host: string;
  port: number;
  username: string;
  auth: SshAuthAttempt[];
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
}

/** `user@host:port` of a hop, as messages and prompts name it. */
export function hopTarget(hop: ChainHop): string {
  return `${hop.username}@${hop.host}:${hop.port}`;
}

/**
 * A connection to the last hop, each next hop reached over `forwardOut` of the previous one
 * (OpenSSH's ProxyJump). `closed` fires once when any hop's connection goes away: the target is
 * unreachable then. Errors name the hop that failed.
 */
export class SshChain extends EventEmitter<{ closed: [reason: AppError | null] }> {
  private closedEmitted = false;

  private constructor(readonly connections: SshConnection[]) {
    super();
    for (const connection of connections) {
      connection.once('closed', (reason) => {
        if (this.closedEmitted) return;
        this.closedEmitted = true;
        void this.close();
        this.emit('closed', reason);
      });
    }
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
      for (const [index, hop] of options.hops.entries()) {
        const previous = connections[connections.length - 1];
        const sock = previous ? await previous.forwardOut(hop.host, hop.port) : undefined;
        const askSecret: AskSecret = (request) => options.askSecret(index, request);
        connections.push(
          await SshConnection.connect({
            host: hop.host,
            port: hop.port,
            username: hop.username,
            auth: hop.auth,
            askSecret,
            verifyHostKey: (info) => options.verifyHostKey(index, info),
            memory,
            ...(sock ? { sock } : {}),
            ...(options.readyTimeoutMs !== undefined ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
            ...(options.keepaliveIntervalMs !== undefined ? { keepaliveIntervalMs: options.keepaliveIntervalMs } : {}),
            ...(options.keepaliveCountMax !== undefined ? { keepaliveCountMax: options.keepaliveCountMax } : {}),
            ...(options.onAuthAttempt ? { onAuthAttempt: (outcome: SshAuthOutcome) => options.onAuthAttempt!(index, outcome) } : {}),
          }),
        );
      }
    } catch (error) {
      await Promise.allSettled(connections.map((c) => c.close()));
      throw error;
    }
    return new SshChain(connections);
  }

  /** Closes the target first, then each jump host. */
  async close(): Promise<void> {
    for (const connection of [...this.connections].reverse()) await connection.close();
  }
}
