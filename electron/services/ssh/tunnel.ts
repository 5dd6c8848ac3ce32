import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';

export interface SshTunnelOptions {
  /**
   * Opens one channel to the swarm port as seen from the server (e.g. forwardOut to
   * 127.0.0.1:<remotePort>) on whatever SSH connection is current, so the listener survives a
   * reconnect: sockets accepted after it use the new connection.
   */
  openChannel: () => Promise<Duplex>;
  remotePort: number;
  /** The local port to listen on, on 127.0.0.1 only (the swarm API has no authentication). */
  localPort: number;
}

/**
 * A loopback listener forwarding every accepted socket through its own SSH channel (like
 * `ssh -N -L 127.0.0.1:<local>:127.0.0.1:<remote>`). Each socket waits paused until its channel
 * is open; one socket whose channel fails is closed alone, the tunnel keeps listening.
 */
export class SshTunnel extends EventEmitter<{ change: [] }> {
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    private readonly options: SshTunnelOptions,
    readonly localPort: number,
  ) {
    super();
  }

  get remotePort(): number {
    return this.options.remotePort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.localPort}`;
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  static open(options: SshTunnelOptions): Promise<SshTunnel> {
    return new Promise((resolve, reject) => {
      const server = net.createServer({ pauseOnConnect: true });
      let tunnel: SshTunnel | null = null;
      server.on('connection', (socket) => tunnel?.accept(socket));
      server.once('error', reject);
      server.listen(options.localPort, '127.0.0.1', () => {
        server.removeListener('error', reject);
        tunnel = new SshTunnel(server, options, (server.address() as net.AddressInfo).port);
        resolve(tunnel);
      });
    });
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    socket.once('close', () => {
      this.sockets.delete(socket);
      this.emit('change');
    });
    socket.on('error', () => socket.destroy());
    this.emit('change');
    this.options.openChannel().then(
      (channel) => {
        if (socket.destroyed) return void channel.destroy();
        channel.on('error', () => socket.destroy());
        channel.once('close', () => socket.destroy());
        socket.once('close', () => channel.destroy());
        socket.pipe(channel).pipe(socket);
        socket.resume();
      },
      () => socket.destroy(),
    );
  }

  /** Ends every open socket (the connection under them is gone) but keeps listening. */
  dropSockets(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  close(): Promise<void> {
    this.dropSockets();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
