import type { EngineKind, SwarmContainer, SwarmStatus } from '../../shared/schemas';
import { serverKey, type ServerState, type ServerStateRemoved } from '../../shared/server-state';
import type { Logger } from '../util/logger';
import { deriveServerState, sameState } from './derive';

export interface ServerStateStoreOptions {
  /** The engines the app knows now, with their kind. */
  engines: () => { id: string; kind: EngineKind }[];
  /** Our swarm servers on one engine (the same listing `swarm:list` answers). */
  list: (engineId: string) => Promise<SwarmContainer[]>;
  /** The monitor's statuses now (those it watches and those it keeps after an end). */
  statuses: () => SwarmStatus[];
  changed: (state: ServerState) => void;
  removed: (removed: ServerStateRemoved) => void;
  logger: Logger;
  /** Listings after a change event are gathered for this long (ms; default 200). */
  debounceMs?: number;
  /** A failed listing is tried again after this, doubling up to `retryMaxMs` (ms; defaults 2000 and 60 000). */
  retryMs?: number;
  retryMaxMs?: number;
  now?: () => number;
}

type Entry = { engineKind: EngineKind; container: SwarmContainer };

/**
 * Keeps one `ServerState` per swarm server, from the engines' listings (refreshed when they say
 * something changed) and the monitor's statuses, and tells `changed` only when a snapshot says
 * something new. The one owner of "what state is this server in, and why" in the backend.
 */
export class ServerStateStore {
  private readonly entries = new Map<string, Entry>();
  private readonly statuses = new Map<string, SwarmStatus>();
  private readonly states = new Map<string, ServerState>();
  private readonly stopping = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** The newest listing request per engine: an older, slower answer must not overwrite a newer one. */
  private readonly listingSeq = new Map<string, number>();
  /** Failed listings in a row per engine: the wait before the next try doubles with them. */
  private readonly failures = new Map<string, number>();
  private readonly listeners = new Set<(state: ServerState, previous: ServerState | undefined) => void>();
  private disposed = false;

  constructor(private readonly options: ServerStateStoreOptions) {
    for (const status of options.statuses()) this.statuses.set(serverKey(status.engineId, status.containerId), status);
  }

  /** Lists every engine once; later listings follow change events. */
  async start(): Promise<void> {
    await Promise.all(this.options.engines().map((engine) => this.refresh(engine.id)));
  }

  all(): ServerState[] {
    return [...this.states.values()];
  }

  get(key: string): ServerState | undefined {
    return this.states.get(key);
  }

  /** Calls `listener` with every new snapshot (and the one before it); returns the unsubscribe. */
  onChange(listener: (state: ServerState, previous: ServerState | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  statusChanged(status: SwarmStatus): void {
    const key = serverKey(status.engineId, status.containerId);
    this.statuses.set(key, status);
    // A status of a server we have not listed yet (just started): its listing tells the rest.
    if (this.entries.has(key)) this.recompute(key);
    else this.scheduleRefresh(status.engineId);
  }

  /** The app's Stop began (true) or returned (false) for one server. */
  setStopping(engineId: string, containerId: string, stopping: boolean): void {
    const key = serverKey(engineId, containerId);
    if (stopping) this.stopping.add(key);
    else this.stopping.delete(key);
    if (this.entries.has(key)) this.recompute(key);
  }

  /** An engine's servers changed (started, stopped, removed, a queued job moved): list it again soon. */
  scheduleRefresh(engineId: string, afterMs = this.options.debounceMs ?? 200): void {
    if (this.disposed) return;
    clearTimeout(this.timers.get(engineId));
    this.timers.set(
      engineId,
      setTimeout(() => {
        this.timers.delete(engineId);
        void this.refresh(engineId);
      }, afterMs),
    );
  }

  /** The engine is gone: so are its servers. */
  engineRemoved(engineId: string): void {
    clearTimeout(this.timers.get(engineId));
    this.timers.delete(engineId);
    this.failures.delete(engineId);
    for (const [key, entry] of [...this.entries]) if (entry.container.engineId === engineId) this.drop(key);
  }

  async refresh(engineId: string): Promise<void> {
    const engine = this.options.engines().find((e) => e.id === engineId);
    if (!engine || this.disposed) return;
    const seq = (this.listingSeq.get(engineId) ?? 0) + 1;
    this.listingSeq.set(engineId, seq);
    let containers: SwarmContainer[];
    try {
      containers = await this.options.list(engineId);
    } catch (error) {
      // Out of reach (an SSH server down, a login node too slow to answer): what we knew stays, and the engine is
      // asked again. Without a retry a server started just before (a queued job, which sends no later event while it
      // waits) stayed unknown to every surface until something else changed on that engine.
      const failures = (this.failures.get(engineId) ?? 0) + 1;
      this.failures.set(engineId, failures);
      const waitMs = Math.min((this.options.retryMs ?? 2000) * 2 ** (failures - 1), this.options.retryMaxMs ?? 60_000);
      this.options.logger.info?.('could not list the swarm servers of an engine', { engineId, retryInMs: waitMs, message: error instanceof Error ? error.message : String(error) });
      if (this.listingSeq.get(engineId) === seq && !this.timers.has(engineId)) this.scheduleRefresh(engineId, waitMs);
      return;
    }
    this.failures.delete(engineId);
    if (this.disposed || this.listingSeq.get(engineId) !== seq) return;
    const listed = new Set<string>();
    for (const container of containers) {
      const key = serverKey(engineId, container.id);
      listed.add(key);
      this.entries.set(key, { engineKind: engine.kind, container });
      this.recompute(key);
    }
    // A queued job's new place comes as a change event too (the Slurm engine's queue poll): no timer of our own.
    for (const [key, entry] of [...this.entries]) if (entry.container.engineId === engineId && !listed.has(key)) this.drop(key);
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.listeners.clear();
  }

  private drop(key: string): void {
    const state = this.states.get(key);
    this.entries.delete(key);
    this.states.delete(key);
    this.statuses.delete(key);
    this.stopping.delete(key);
    if (state) this.options.removed({ key, engineId: state.engineId, containerId: state.containerId });
  }

  private recompute(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    const previous = this.states.get(key);
    const now = this.options.now?.() ?? Date.now();
    const next = deriveServerState(
      { engineKind: entry.engineKind, container: entry.container, status: this.statuses.get(key), stopping: this.stopping.has(key) },
      previous,
      now,
    );
    if (sameState(previous, next)) return;
    this.states.set(key, next);
    this.options.changed(next);
    for (const listener of this.listeners) {
      try {
        listener(next, previous);
      } catch (error) {
        this.options.logger.warn('a server-state listener failed', { message: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}
