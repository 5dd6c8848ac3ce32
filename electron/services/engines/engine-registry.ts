import { AppError } from '../../shared/errors';
import type { EngineSummary } from '../../shared/schemas';
import type { ContainerEngine } from './container-engine';

/**
 * What happened to an engine: added or removed (the engine list changed), or `reconnected`: an
 * engine that was out of reach answers again (an SSH server came up, at start or after a drop),
 * so whoever watches its containers should find them again.
 */
export interface EngineChange {
  kind: 'added' | 'removed' | 'reconnected';
  engineId: string;
}

type EngineListener = (change: EngineChange) => void;

/** All engines the app knows, by id: Local Docker, one per SSH server, later Podman and Slurm. */
export class EngineRegistry {
  private readonly engines = new Map<string, ContainerEngine>();
  private readonly listeners = new Set<EngineListener>();

  add(engine: ContainerEngine): void {
    if (this.engines.has(engine.summary.id)) throw new Error(`engine ${engine.summary.id} is registered twice`);
    this.engines.set(engine.summary.id, engine);
    this.notify({ kind: 'added', engineId: engine.summary.id });
  }

  /** Takes an engine out and disposes it; unknown ids are ignored (removing twice is not an error). */
  async remove(id: string): Promise<void> {
    const engine = this.engines.get(id);
    if (!engine) return;
    this.engines.delete(id);
    this.notify({ kind: 'removed', engineId: id });
    await engine.dispose();
  }

  /** Announces that an engine answers again after it could not be reached. */
  reconnected(id: string): void {
    if (this.engines.has(id)) this.notify({ kind: 'reconnected', engineId: id });
  }

  /** Calls `listener` on every change; returns the unsubscribe. */
  onChange(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  has(id: string): boolean {
    return this.engines.has(id);
  }

  get(id: string): ContainerEngine {
    const engine = this.engines.get(id);
    if (!engine) throw new AppError('ENGINE_NOT_FOUND', `No engine with id "${id}". Choose one from the Servers page.`);
    return engine;
  }

  all(): ContainerEngine[] {
    return [...this.engines.values()];
  }

  summaries(): EngineSummary[] {
    return this.all().map((e) => e.summary);
  }

  async dispose(): Promise<void> {
    await Promise.allSettled(this.all().map((e) => e.dispose()));
    this.engines.clear();
    this.listeners.clear();
  }

  private notify(change: EngineChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch {
        // One listener's bug must not keep the others (or the caller) from going on.
      }
    }
  }
}
