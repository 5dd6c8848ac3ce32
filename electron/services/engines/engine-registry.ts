import { AppError } from '../../shared/errors';
import type { EngineSummary } from '../../shared/schemas';
import type { ContainerEngine } from './container-engine';

/** All engines the app knows, by id. SSH, Podman and Slurm engines register here later. */
export class EngineRegistry {
  private readonly engines = new Map<string, ContainerEngine>();

  add(engine: ContainerEngine): void {
    if (this.engines.has(engine.summary.id)) throw new Error(`engine ${engine.summary.id} is registered twice`);
    this.engines.set(engine.summary.id, engine);
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
  }
}
