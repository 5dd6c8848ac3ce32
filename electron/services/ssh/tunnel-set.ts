import type { Duplex } from 'node:stream';
import { SshTunnel } from './tunnel';

/** A hold on one tunnel; the tunnel closes when its last lease is released. */
export interface TunnelLease {
  tunnel: SshTunnel;
  /** Gives the hold back; idempotent, so a double release never closes a tunnel others hold. */
  release(): Promise<void>;
}

interface Entry {
  /** Shared while the listener is being bound, so two acquires at once get one tunnel. */
  opening: Promise<SshTunnel>;
  leases: number;
}

/**
 * The tunnels of one server, one per remote port, reference-counted: the monitor, a job and the
 * link-health probe of the same swarm port share one local listener (and so one URL), and it goes
 * away only when none of them needs it.
 */
export class TunnelSet {
  private readonly entries = new Map<number, Entry>();

  /**
   * `openChannel(remotePort)` opens a channel on the server's *current* connection (looked up at
   * each call), so the listeners outlive a reconnect.
   */
  constructor(private readonly openChannel: (remotePort: number) => Promise<Duplex>) {}

  /**
   * The tunnel to `remotePort`, opened on `preferredLocalPort` (or the next free one) the first
   * time; later acquires get the same tunnel whatever port they prefer.
   */
  async acquire(remotePort: number, preferredLocalPort: number): Promise<TunnelLease> {
    let entry = this.entries.get(remotePort);
    if (!entry) {
      const opening = SshTunnel.open({ openChannel: () => this.openChannel(remotePort), remotePort, localPort: preferredLocalPort });
      entry = { opening, leases: 0 };
      this.entries.set(remotePort, entry);
      // A failed open leaves no entry behind, so the next acquire tries again.
      opening.catch(() => {
        if (this.entries.get(remotePort) === entry) this.entries.delete(remotePort);
      });
    }
    entry.leases += 1;
    let tunnel: SshTunnel;
    try {
      tunnel = await entry.opening;
    } catch (error) {
      entry.leases -= 1;
      throw error;
    }
    let released = false;
    return {
      tunnel,
      release: async () => {
        if (released) return;
        released = true;
        entry.leases -= 1;
        if (entry.leases > 0 || this.entries.get(remotePort) !== entry) return;
        this.entries.delete(remotePort);
        await tunnel.close();
      },
    };
  }

  /** The open tunnels, for the server's view. */
  async tunnels(): Promise<SshTunnel[]> {
    const settled = await Promise.allSettled([...this.entries.values()].map((e) => e.opening));
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }

  /** Ends every socket of every tunnel (the connection went away); the listeners stay. */
  async dropSockets(): Promise<void> {
    for (const tunnel of await this.tunnels()) tunnel.dropSockets();
  }

  /** Closes every tunnel whatever its leases (the server is removed or the app quits). */
  async closeAll(): Promise<void> {
    const tunnels = await this.tunnels();
    this.entries.clear();
    await Promise.all(tunnels.map((t) => t.close()));
  }
}
