import type { Duplex } from 'node:stream';
import { SshTunnel } from '../../ssh/tunnel';

/** Where a swarm port of ours answers: the compute node as the login node reaches it, and the port the job chose. */
export interface NodeTarget {
  jobId: string;
  address: string;
  port: number;
}

interface Entry {
  target: NodeTarget;
  opening: Promise<SshTunnel>;
}

/**
 * Loopback listeners that reach a job's node:port through the login node's SSH connection
 * (`ssh -L 127.0.0.1:<local>:<node>:<port> login`), one per swarm port label. Unlike the SSH server's
 * tunnels (always 127.0.0.1:<port> on the server), the far end moves: a new job of the same port may
 * land on another node or choose another port, so a target that changed replaces the tunnel.
 */
export class SlurmTunnels {
  private readonly entries = new Map<number, Entry>();

  /** `openChannel` opens one channel on the login node's *current* connection (forwardOut), so listeners outlive a reconnect. */
  constructor(private readonly openChannel: (address: string, port: number) => Promise<Duplex>) {}

  /** The local URL for `labelPort`'s job at `target`; the preferred local port is the label's (the next free one when taken). */
  async urlFor(labelPort: number, target: NodeTarget): Promise<string> {
    const entry = this.entries.get(labelPort);
    if (entry && sameTarget(entry.target, target)) return (await entry.opening).url;
    if (entry) await this.release(labelPort);
    const opening = SshTunnel.open({ openChannel: () => this.openChannel(target.address, target.port), remotePort: target.port, localPort: labelPort });
    const fresh = { target, opening };
    this.entries.set(labelPort, fresh);
    // A failed open leaves no entry behind, so the next call tries again.
    opening.catch(() => {
      if (this.entries.get(labelPort) === fresh) this.entries.delete(labelPort);
    });
    return (await opening).url;
  }

  /** The job of `labelPort` stopped (or was removed): close its listener. */
  async release(labelPort: number): Promise<void> {
    const entry = this.entries.get(labelPort);
    if (!entry) return;
    this.entries.delete(labelPort);
    const tunnel = await entry.opening.catch(() => null);
    await tunnel?.close();
  }

  /** Closes the tunnels of job `jobId`, whatever port label they serve. */
  async releaseJob(jobId: string): Promise<void> {
    const ports = [...this.entries].filter(([, e]) => e.target.jobId === jobId).map(([port]) => port);
    await Promise.all(ports.map((port) => this.release(port)));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((port) => this.release(port)));
  }
}

function sameTarget(a: NodeTarget, b: NodeTarget): boolean {
  return a.jobId === b.jobId && a.address === b.address && a.port === b.port;
}
