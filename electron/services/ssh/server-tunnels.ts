import type { Duplex } from 'node:stream';
import type { LinkHealth, TunnelView } from '../../shared/schemas-servers';
import type { SwarmReading } from '../swarm/watch-types';
import { probeFromReading, probeSwarm, type ProbeResult } from './swarm-probe';
import type { SshTunnel } from './tunnel';
import { TunnelSet, type TunnelLease } from './tunnel-set';

interface Entry {
  remotePort: number;
  requestedLocalPort: number;
  tunnel: SshTunnel | null;
  opening: Promise<SshTunnel>;
  /** The hold on the tunnel; released when the server on that port is stopped or removed. */
  lease: Promise<TunnelLease>;
  openError: string | null;
  probe: ProbeResult | null;
  /** When the tunnel was asked for (its server's start, or its rediscovery), and whether a probe ever got an answer. */
  openedAt: number;
  answered: boolean;
  /** Whether the last channel to the remote port opened: something listens there (the container's server). */
  remote: { ok: boolean; detail: string } | null;
}

export interface ServerTunnelsOptions {
  /** The local port the profile prefers (10086 by default). */
  preferredLocalPort: () => number;
  /** A channel to 127.0.0.1:<remotePort> on the server over the current connection (waits briefly during a reconnect). */
  openChannel: (remotePort: number) => Promise<Duplex>;
  onChange: () => void;
  /** How long a new tunnel's server may not answer before that degrades the server (default 20 s). */
  startGraceMs?: number;
  now?: () => number;
  /** The swarm monitor's last poll of a URL, if it watches one there: a recent one is the probe (no second request). */
  latestReading?: (url: string) => SwarmReading | null;
}

/** A swarm server's first seconds: its port opens once `ajet-swarm start` has imported its stack (2–4 s measured). */
const START_GRACE_MS = 20_000;

/**
 * The swarm tunnels of one server, one per remote port, kept for the life of the session: their
 * listeners (and so their URLs, which the monitor polls) survive reconnects; each accepted socket
 * opens its channel on whatever connection is current.
 */
export class ServerTunnels {
  private readonly entries = new Map<number, Entry>();
  private readonly set: TunnelSet;

  private readonly now: () => number;
  /** When the last connection was lost: the monitor's polls from before then do not stand for a probe. */
  private lostAt = 0;

  constructor(private readonly options: ServerTunnelsOptions) {
    this.set = new TunnelSet((remotePort) => this.channel(remotePort));
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The local URL for a remote port, opening its tunnel on first use (the preferred port, else the next free one). */
  async urlFor(remotePort: number): Promise<string> {
    let entry = this.entries.get(remotePort);
    if (!entry) {
      const requested = this.options.preferredLocalPort();
      // One lease per remote port while a swarm server may answer there: the monitor polls the URL
      // as long as it watches; `release` (its server stopped or removed) gives it back.
      const lease = this.set.acquire(remotePort, requested);
      const opening = lease.then((held) => held.tunnel);
      entry = { remotePort, requestedLocalPort: requested, tunnel: null, opening, lease, openError: null, probe: null, openedAt: this.now(), answered: false, remote: null };
      this.entries.set(remotePort, entry);
      const current = entry;
      opening.then(
        (tunnel) => {
          current.tunnel = tunnel;
          this.options.onChange();
        },
        (error: unknown) => {
          // Forget it, so the next call tries again (the user may have freed the ports).
          if (this.entries.get(remotePort) === current) this.entries.delete(remotePort);
          current.openError = (error as Error).message;
          this.options.onChange();
        },
      );
    }
    // TUNNEL_FAILED (no free port in the span) comes from SshTunnel.open as is.
    return (await entry.opening).url;
  }

  private async channel(remotePort: number): Promise<Duplex> {
    const entry = this.entries.get(remotePort);
    try {
      const channel = await this.options.openChannel(remotePort);
      if (entry && !entry.remote?.ok) {
        entry.remote = { ok: true, detail: `something listens on 127.0.0.1:${remotePort} on the server` };
        this.options.onChange();
      }
      return channel;
    } catch (error) {
      if (entry) {
        entry.remote = { ok: false, detail: (error as Error).message };
        this.options.onChange();
      }
      throw error;
    }
  }

  /**
   * No swarm server runs on `remotePort` any more: close its tunnel, so it neither holds the local
   * port nor keeps the server "degraded" on the word of a probe nothing can answer.
   */
  async release(remotePort: number): Promise<void> {
    const entry = this.entries.get(remotePort);
    if (!entry) return;
    this.entries.delete(remotePort);
    this.options.onChange();
    const lease = await entry.lease.catch(() => null);
    await lease?.release();
  }

  /** Probes every open tunnel (GET /get_engine_status through it, or the monitor's recent poll of it); true when all answered. */
  async probeAll(): Promise<boolean> {
    const entries = [...this.entries.values()].filter((e) => e.tunnel);
    const results = await Promise.all(
      entries.map(async (entry) => {
        const url = entry.tunnel!.url;
        entry.probe = probeFromReading(this.options.latestReading?.(url) ?? null, this.now(), this.lostAt) ?? (await probeSwarm(url));
        if (entry.probe.ok) entry.answered = true;
        return entry.probe.ok;
      }),
    );
    if (entries.length > 0) this.options.onChange();
    return results.every(Boolean);
  }

  /**
   * The first failing probe, to say why the server is degraded. A tunnel whose server has not answered yet within
   * `startGraceMs` of being asked for is starting, not failing: the first probe after a Start runs before the server
   * listens (every Start over SSH read "Degraded (ECONNRESET)" for about 5 s).
   */
  firstFailure(): { remotePort: number; error: string } | null {
    const now = this.now();
    for (const entry of this.entries.values()) {
      if (!entry.probe || entry.probe.ok) continue;
      if (!entry.answered && now - entry.openedAt < (this.options.startGraceMs ?? START_GRACE_MS)) continue;
      return { remotePort: entry.remotePort, error: entry.probe.error ?? 'no answer' };
    }
    return null;
  }

  /**
   * The connection under them is gone: end their sockets (the listeners stay) and forget what the
   * probes said, so no link shows green on the word of a connection that no longer exists.
   */
  connectionLost(): void {
    this.lostAt = this.now();
    for (const entry of this.entries.values()) {
      entry.tunnel?.dropSockets();
      entry.remote = null;
      entry.probe = null;
    }
  }

  views(ssh: LinkHealth, sshCommand: (localPort: number, remotePort: number) => string): TunnelView[] {
    return [...this.entries.values()].map((entry) => {
      const tunnel = entry.tunnel;
      const localPort = tunnel?.localPort ?? null;
      const taken = tunnel?.portWasTaken ?? false;
      const links: LinkHealth[] = [
        ssh,
        tunnel
          ? {
              link: 'local-port',
              ok: true,
              detail: taken
                ? `127.0.0.1:${localPort} (${entry.requestedLocalPort} was taken${tunnel.portTakenBy ? ` by ${tunnel.portTakenBy}` : ''})`
                : `127.0.0.1:${localPort}`,
            }
          : { link: 'local-port', ok: entry.openError ? false : null, detail: entry.openError },
        { link: 'remote-container', ok: entry.remote?.ok ?? null, detail: entry.remote?.detail ?? null },
        {
          link: 'swarm-api',
          ok: entry.probe?.ok ?? null,
          detail: entry.probe ? (entry.probe.ok ? `engine status ${entry.probe.engineStatus ?? 'unknown'}` : entry.probe.error) : null,
        },
      ];
      return {
        remotePort: entry.remotePort,
        requestedLocalPort: entry.requestedLocalPort,
        localPort,
        url: tunnel?.url ?? null,
        portTakenBy: tunnel?.portTakenBy ?? null,
        portHolder: tunnel?.portHolder ?? null,
        portWasTaken: taken,
        probe: entry.probe,
        links,
        sshCommand: sshCommand(localPort ?? entry.requestedLocalPort, entry.remotePort),
        openSockets: tunnel?.openSockets ?? 0,
      };
    });
  }

  async close(): Promise<void> {
    this.entries.clear();
    await this.set.closeAll();
  }
}
