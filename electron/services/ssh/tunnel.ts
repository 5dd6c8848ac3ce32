import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { AppError } from '../../shared/errors';
import type { PortHolder } from '../../shared/port-holder';
import { listenOnLoopback, type LoopbackBinding } from './loopback-listen';

export interface SshTunnelOptions {
  /**
   * Opens one channel to the swarm port as seen from the server (e.g. forwardOut to
   * 127.0.0.1:<remotePort>) on whatever SSH connection is current, so the listener survives a
   * reconnect: sockets accepted after it use the new connection.
   */
  openChannel: () => Promise<Duplex>;
  remotePort: number;
  /** The local port to listen on, on 127.0.0.1 only (the swarm API has no authentication). 0: any. */
  localPort: number;
  /** When `localPort` is taken, how many ports after it are tried (default 50). */
  portSpan?: number;
}

/**
 * A loopback listener forwarding every accepted socket through its own SSH channel (like
 * `ssh -N -L 127.0.0.1:<local>:127.0.0.1:<remote>`). Each socket waits, paused, until its channel
 * is open; one socket whose channel fails is closed alone, the tunnel keeps listening.
 * Emits `change` when sockets come and go or a channel fails.
 */
export class SshTunnel extends EventEmitter<{ change: [] }> {
  private readonly sockets = new Set<net.Socket>();
  private failures = 0;
  private lastFailure: AppError | null = null;
  private closed = false;

  private constructor(
    private readonly server: net.Server,
    private readonly options: SshTunnelOptions,
    private readonly binding: LoopbackBinding,
  ) {
    super();
  }

  get localPort(): number {
    return this.binding.port;
  }

  get remotePort(): number {
    return this.options.remotePort;
  }

  /** The port the caller asked for; `localPort` differs from it when it was taken. */
  get requestedLocalPort(): number {
    return this.binding.requestedPort;
  }

  get portWasTaken(): boolean {
    return this.binding.portWasTaken;
  }

  /** Who held the requested port, e.g. "python3 (pid 4242)"; null when the OS does not say. */
  get portTakenBy(): string | null {
    return this.binding.portTakenBy;
  }

  /** The same holder as data (e.g. the app's own dry run), for the renderer to word. */
  get portHolder(): PortHolder | null {
    return this.binding.portHolder;
  }

  get url(): string {
    return `http://127.0.0.1:${this.localPort}`;
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  /** How many accepted sockets got no channel, and why the last one did not (for link health). */
  get channelFailures(): number {
    return this.failures;
  }

  get lastChannelError(): AppError | null {
    return this.lastFailure;
  }

  /** Listens on 127.0.0.1 (the next free port when `localPort` is taken); TUNNEL_FAILED when none is free. */
  static async open(options: SshTunnelOptions): Promise<SshTunnel> {
    // allowHalfOpen like `ssh -L`: a client that shuts down its sending side still gets the answer.
    // Not pauseOnConnect: a new socket is a paused stream anyway (no consumer until its channel is
    // open), and letting Node buffer its first bytes (at most one highWaterMark, 16 KiB) while the
    // channel opens sends the request in the same turn as the confirmation instead of one loop
    // turn later; that took the fresh-connection p50 from ~1.5x to ~1.2x of OpenSSH's.
    const server = net.createServer({ allowHalfOpen: true, noDelay: true });
    const binding = await listenOnLoopback(server, options.localPort, options.portSpan);
    const tunnel = new SshTunnel(server, options, binding);
    server.on('connection', (socket) => tunnel.accept(socket));
    // A listener error after binding (rare: EMFILE on accept) must not crash the app; sockets already open go on.
    server.on('error', () => undefined);
    return tunnel;
  }

  private accept(socket: net.Socket): void {
    if (this.closed) return void socket.destroy();
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      this.emit('change');
    });
    // A reset from the local client ends this socket only; 'close' follows and cleans up.
    socket.on('error', () => socket.destroy());
    this.emit('change');
    this.options.openChannel().then(
      (channel) => this.connect(socket, channel),
      (error: unknown) => {
        this.failures += 1;
        this.lastFailure =
          error instanceof AppError
            ? error
            : new AppError('TUNNEL_FAILED', `No channel to port ${this.remotePort} on the server: ${String((error as Error)?.message ?? error)}.`, { cause: error });
        socket.destroy();
        this.emit('change');
      },
    );
  }

  /**
   * Joins a socket to its channel, both ways. Until now the socket had no consumer: what the client
   * sent waited in its buffer (bounded by backpressure), so no byte is lost or forwarded early.
   */
  private connect(socket: net.Socket, channel: Duplex): void {
    if (socket.destroyed) return void channel.destroy();
    channel.on('error', () => socket.destroy());
    // ssh2 emits 'close' only after 'end', so pipe() has already passed every byte on and called
    // socket.end(). Nothing can be forwarded any more: once those bytes are flushed, close the
    // socket even if the client keeps its own side open (allowHalfOpen would keep it forever).
    channel.once('close', () => {
      if (socket.writableFinished) socket.destroy();
      else socket.once('finish', () => socket.destroy()).end();
    });
    socket.once('close', () => channel.destroy());
    socket.pipe(channel).pipe(socket);
  }

  /** Ends every open socket (the connection under them is gone) but keeps listening. */
  dropSockets(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** Stops listening and ends every socket; idempotent. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.dropSockets();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
