import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import ssh2, { type Client, type ClientChannel, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { AppError } from '../../shared/errors';
import { AuthPlan, SecretMemory, type AskSecret, type SshAuthAttempt, type SshAuthOutcome } from './ssh-auth';
import { closeReason, mapSshError } from './ssh-errors';

/** What the host-key check is shown: the key as the server sent it and its OpenSSH fingerprint. */
export interface HostKeyInfo {
  host: string;
  port: number;
  /** e.g. "ssh-ed25519", read from the key blob itself. */
  keyType: string;
  keyBlob: Buffer;
  /** `SHA256:<base64 without padding>`, exactly as `ssh-keygen -l` prints it. */
  fingerprint: string;
}

/**
 * Decides whether to trust the server. Resolve true to go on, false to refuse
 * (SSH_HOST_KEY_REJECTED), or throw an AppError (e.g. SSH_HOST_KEY_CHANGED) that connect() rethrows.
 */
export type VerifyHostKey = (info: HostKeyInfo) => Promise<boolean>;

export interface SshConnectionOptions {
  host: string;
  port: number;
  username: string;
  /** Tried in this order; see defaultAuthAttempts(). */
  auth: SshAuthAttempt[];
  askSecret: AskSecret;
  verifyHostKey: VerifyHostKey;
  /** Time for TCP + handshake + login, not counting time spent waiting for the user. Default 20 s. */
  readyTimeoutMs?: number;
  /** Default 15 s; the connection counts as lost after `keepaliveCountMax` (default 3) unanswered ones. */
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** Secrets typed for this server, kept across reconnects (memory only). */
  memory?: SecretMemory;
  /** A ready stream to the server instead of TCP (the next ProxyJump hop, a ProxyCommand). */
  sock?: Duplex;
  /**
   * Why the stream under the connection ended, when it knows better than ssh2 (a ProxyCommand that
   * exited: its code and stderr); null when it has nothing to say. Asked when the connection closes.
   */
  transportError?: () => AppError | null;
  onAuthAttempt?: (outcome: SshAuthOutcome) => void;
  /**
   * Algorithm preferences passed to ssh2 (cipher order etc.); default: ssh2's own order, which
   * puts aes128-gcm@openssh.com first on CPUs with AES instructions.
   */
  algorithms?: ConnectConfig['algorithms'];
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** The exit code, or null when the command died by a signal (see `signal`). */
  code: number | null;
  signal: string | null;
}

/** `SHA256:` + unpadded base64 of the SHA-256 of the key blob, like `ssh-keygen -l`. */
export function sshFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type is the first string of the SSH wire-format blob. */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const length = keyBlob.readUInt32BE(0);
  return length > 0 && 4 + length <= keyBlob.length ? keyBlob.subarray(4, 4 + length).toString('latin1') : 'unknown';
}

/**
 * A login deadline that stops while the user is being asked something (host key, passphrase):
 * ssh2's own readyTimeout would fire while a dialog is open.
 */
class PausableDeadline {
  private timer: NodeJS.Timeout | null = null;
  private remaining: number;
  private startedAt = 0;
  constructor(ms: number, private readonly onExpire: () => void) {
    this.remaining = ms;
  }
  resume(): void {
    if (this.timer || this.remaining <= 0) return;
    this.startedAt = Date.now();
    this.timer = setTimeout(this.onExpire, this.remaining);
  }
  pause(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.remaining -= Date.now() - this.startedAt;
  }
  async around<T>(work: Promise<T>): Promise<T> {
    this.pause();
    try {
      return await work;
    } finally {
      this.resume();
    }
  }
  stop(): void {
    this.pause();
    this.remaining = 0;
  }
}

/**
 * ssh2 writes every SSH packet to its socket on its own (one syscall and, with TCP_NODELAY, one
 * TCP segment each). Corking until the current batch of I/O callbacks has run sends the packets
 * of many busy channels in one writev, as OpenSSH does once per poll loop. Only for a TCP socket
 * ssh2 opened itself; a ProxyJump hop's channel is left as it is.
 */
function coalesceWrites(client: Client): void {
  const sock = (client as unknown as { _sock?: unknown })._sock;
  if (!(sock instanceof net.Socket)) return;
  const write = sock.write.bind(sock) as (...args: unknown[]) => boolean;
  let corked = false;
  const flush = () => {
    corked = false;
    sock.uncork();
  };
  sock.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      sock.cork();
      process.nextTick(flush);
    }
    return write(...args);
  }) as typeof sock.write;
}

/**
 * One SSH connection to one server. Everything for that server (exec, the Docker socket, port
 * forwards) is a channel on it. Emits `closed` once, with an AppError reason (null when we closed it).
 */
export class SshConnection extends EventEmitter<{ closed: [reason: AppError | null] }> {
  /** user@host:port, safe to show. */
  readonly target: string;
  private closing = false;
  private closedReason: AppError | null = null;
  private open = true;

  private constructor(
    private readonly client: Client,
    target: string,
    /** What each auth attempt did, for diagnostics. */
    readonly authOutcomes: readonly SshAuthOutcome[],
    readonly hostKey: HostKeyInfo,
    private readonly transportError?: () => AppError | null,
  ) {
    super();
    this.target = target;
    client.on('error', (error) => {
      if (!this.closing) this.closedReason = closeReason(error, target);
    });
    client.on('close', () => {
      this.open = false;
      const reason = this.closing ? null : (this.transportError?.() ?? this.closedReason ?? closeReason(undefined, target));
      this.emit('closed', reason);
    });
  }

  get isOpen(): boolean {
    return this.open;
  }

  static connect(options: SshConnectionOptions): Promise<SshConnection> {
    const target = `${options.username}@${options.host}:${options.port}`;
    const readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
    const memory = options.memory ?? new SecretMemory();
    const client = new ssh2.Client();
    let hostKey: HostKeyInfo | null = null;
    let hostKeyError: AppError | null = null;
    let settled = false;

    return new Promise<SshConnection>((resolve, reject) => {
      const fail = (error: AppError): void => {
        if (settled) return;
        settled = true;
        deadline.stop();
        client.removeAllListeners('ready');
        client.on('error', () => undefined); // late errors of a dead attempt have no one to tell
        client.end();
        reject(error);
      };
      const deadline = new PausableDeadline(readyTimeoutMs, () =>
        fail(mapSshError(new Error('Timed out while waiting for handshake'), target, readyTimeoutMs)),
      );
      const askSecret: AskSecret = (request) => deadline.around(options.askSecret(request));
      const plan = new AuthPlan({
        username: options.username,
        target,
        attempts: options.auth,
        askSecret,
        memory,
        // ssh2 already verifies the host before it asks for auth; this makes it a rule of ours too.
        mayAuthenticate: () => hostKey !== null,
        ...(options.onAuthAttempt ? { onAttempt: options.onAuthAttempt } : {}),
      });

      const hostVerifier = (keyBlob: Buffer, verify: (ok: boolean) => void): void => {
        const info: HostKeyInfo = {
          host: options.host,
          port: options.port,
          keyType: keyTypeOf(keyBlob),
          keyBlob: Buffer.from(keyBlob),
          fingerprint: sshFingerprint(keyBlob),
        };
        deadline.around(options.verifyHostKey(info)).then(
          (ok) => {
            if (ok) hostKey = info;
            else hostKeyError = new AppError('SSH_HOST_KEY_REJECTED', `The host key of ${target} (${info.keyType} ${info.fingerprint}) was not accepted; no credential was sent.`);
            verify(ok);
          },
          (error: unknown) => {
            hostKeyError =
              error instanceof AppError
                ? error
                : new AppError('SSH_HOST_KEY_REJECTED', `The host key check for ${target} failed; no credential was sent.`, { cause: error });
            verify(false);
          },
        );
      };

      client.once('ready', () => {
        if (settled) return;
        settled = true;
        // ssh2 leaves Nagle on. Every channel message is a small packet (a channel open, a 13-byte
        // answer, an EOF), and Nagle holds each one back until the previous is acknowledged:
        // that alone made a new tunnel connection several times slower than OpenSSH's.
        client.setNoDelay(true);
        coalesceWrites(client);
        deadline.stop();
        client.removeAllListeners('error');
        resolve(new SshConnection(client, target, plan.outcomes, hostKey!, options.transportError));
      });
      client.on('error', (error: Error & { level?: string }) => {
        if (hostKeyError) return fail(hostKeyError);
        if (error.level === 'client-authentication') return fail(plan.finalError());
        fail(mapSshError(error, target, readyTimeoutMs));
      });
      client.on('close', () => fail(hostKeyError ?? plan.failure ?? mapSshError(new Error('connection closed during login'), target, readyTimeoutMs)));

      const config: ConnectConfig = {
        host: options.host,
        port: options.port,
        username: options.username,
        readyTimeout: 0, // our PausableDeadline replaces it
        keepaliveInterval: options.keepaliveIntervalMs ?? 15_000,
        keepaliveCountMax: options.keepaliveCountMax ?? 3,
        hostVerifier,
        authHandler: plan.handler,
        ...(options.sock ? { sock: options.sock } : {}),
        ...(options.algorithms ? { algorithms: options.algorithms } : {}),
      };
      deadline.resume();
      try {
        client.connect(config);
      } catch (error) {
        fail(mapSshError(error, target, readyTimeoutMs));
      }
    });
  }

  /** Runs `command` on the server and collects its output (for short commands: ss, docker version). */
  exec(command: string, options: { timeoutMs?: number } = {}): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      this.client.exec(command, (error, channel) => {
        if (error) return reject(mapSshError(error, this.target, 0));
        const stdout: Buffer[] = [];
        const stderr: Buffer[] = [];
        const timer =
          options.timeoutMs === undefined
            ? null
            : setTimeout(() => {
                channel.close();
                reject(new AppError('SSH_TIMEOUT', `\`${command.split(' ')[0]}\` on ${this.target} did not finish within ${options.timeoutMs} ms.`));
              }, options.timeoutMs);
        channel.on('data', (chunk: Buffer) => stdout.push(chunk));
        channel.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
        channel.on('close', (code: number | null | undefined, signal?: string) => {
          if (timer) clearTimeout(timer);
          resolve({
            stdout: Buffer.concat(stdout).toString('utf8'),
            stderr: Buffer.concat(stderr).toString('utf8'),
            code: typeof code === 'number' ? code : null,
            signal: signal ?? null,
          });
        });
      });
    });
  }

  /**
   * A command's stdin/stdout as one stream (stderr kept apart), e.g. `docker system dial-stdio`.
   * A command that fails to start shows up as the stream ending; its stderr says why.
   */
  execStream(command: string): Promise<ClientChannel> {
    return new Promise((resolve, reject) => {
      this.client.exec(command, (error, channel) => {
        if (error) return reject(mapSshError(error, this.target, 0));
        resolve(channel);
      });
    });
  }

  /** A stream to a unix socket on the server (OpenSSH's direct-streamlocal), e.g. /var/run/docker.sock. */
  openStreamLocal(socketPath: string): Promise<ClientChannel> {
    return new Promise((resolve, reject) => {
      this.client.openssh_forwardOutStreamLocal(socketPath, (error, channel) => {
        if (error) return reject(new AppError('SSH_DISCONNECTED', `Cannot open ${socketPath} on ${this.target}: ${error.message}.`, { cause: error }));
        resolve(channel);
      });
    });
  }

  /** A stream to host:port as seen from the server (direct-tcpip); the tunnel builds on it. */
  forwardOut(dstHost: string, dstPort: number, src: { host: string; port: number } = { host: '127.0.0.1', port: 0 }): Promise<ClientChannel> {
    return new Promise((resolve, reject) => {
      this.client.forwardOut(src.host, src.port, dstHost, dstPort, (error, channel) => {
        if (error) return reject(new AppError('SSH_DISCONNECTED', `Cannot reach ${dstHost}:${dstPort} from ${this.target}: ${error.message}.`, { cause: error }));
        resolve(channel);
      });
    });
  }

  /** An SFTP session on this connection (rollout workers' project copy); end it when done. */
  sftp(): Promise<SFTPWrapper> {
    return new Promise((resolve, reject) => {
      this.client.sftp((error, sftp) => {
        if (error) return reject(new AppError('SSH_DISCONNECTED', `SFTP is not available on ${this.target}: ${error.message}.`, { cause: error }));
        resolve(sftp);
      });
    });
  }

  /**
   * A reverse tunnel: the server listens on its loopback (a free port it picks) and every connection
   * to it reaches `to` as seen from this computer (`remotePort` 0: a free port the server picks, else
   * that port again, as after a reconnect). Resolves with the server-side port and a close.
   */
  forwardIn(to: { host: string; port: number }, remotePort = 0): Promise<{ port: number; close: () => void }> {
    return new Promise((resolve, reject) => {
      this.client.forwardIn('127.0.0.1', remotePort, (error, given) => {
        // ssh2 reports the port only when the server picked it (remotePort 0).
        const port = remotePort === 0 ? given : remotePort;
        if (error) return reject(new AppError('TUNNEL_FAILED', `${this.target} refused a reverse tunnel (AllowTcpForwarding?): ${error.message}.`, { cause: error }));
        const onConnection = (info: { destPort: number }, accept: () => ClientChannel, refuse: () => void): void => {
          if (info.destPort !== port) return;
          const socket = net.connect(to.port, to.host);
          socket.once('error', () => refuse());
          socket.once('connect', () => {
            const channel = accept();
            channel.pipe(socket).pipe(channel);
            const end = (): void => {
              socket.destroy();
              channel.close();
            };
            channel.once('close', end);
            socket.once('close', end);
          });
        };
        this.client.on('tcp connection', onConnection);
        resolve({
          port,
          close: () => {
            this.client.off('tcp connection', onConnection);
            if (this.open) this.client.unforwardIn('127.0.0.1', port, () => undefined);
          },
        });
      });
    });
  }

  /** Ends the connection; `closed` fires with reason null. */
  close(): Promise<void> {
    if (!this.open) return Promise.resolve();
    this.closing = true;
    return new Promise((resolve) => {
      this.client.once('close', () => resolve());
      this.client.end();
    });
  }
}
