import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape, ErrorCode } from '../../../../electron/shared/errors';
import type { EngineHealth, EngineProduct, EngineSummary } from '../../../../electron/shared/schemas';

/** Errors that describe the Docker engine itself rather than the request that met them. */
const ENGINE_PROBLEMS: ReadonlySet<ErrorCode> = new Set(['ENGINE_UNREACHABLE', 'ENGINE_PERMISSION_DENIED']);

/**
 * One container engine as the Servers page shows it: its summary and last health check. The
 * engine card shows an engine problem once; the start form and the container list hand engine
 * problems they meet to `absorb`, so one Docker error never appears in three alert banners.
 */
export class EngineState {
  engine = $state<EngineSummary | null>(null);
  health = $state<EngineHealth | null>(null);
  requestError = $state<AppErrorShape | null>(null);
  checking = $state(true);
  missing = $state(false);
  /**
   * What the engine said it is the last time it answered (Docker or Podman). Kept while it is
   * unreachable, so a Podman server that drops its link is not relabelled as the Docker it was added as.
   */
  product = $state<EngineProduct | null>(null);
  /** Bumped by every check and by `absorb`: only the newest word on the engine counts. */
  private generation = 0;

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
  ) {}

  async check(): Promise<void> {
    const generation = ++this.generation;
    this.checking = true;
    this.requestError = null;
    const list = await this.api.engines.list();
    // A check that started before a newer check or an absorbed error must not overwrite it.
    if (generation !== this.generation) return;
    if (!list.ok) {
      this.requestError = list.error;
      this.checking = false;
      return;
    }
    this.engine = list.value.find((e) => e.id === this.engineId) ?? null;
    this.missing = this.engine === null;
    if (this.engine) {
      const result = await this.api.engines.health({ engineId: this.engineId });
      if (generation !== this.generation) return;
      if (result.ok) {
        this.health = result.value;
        if (result.value.product) this.product = result.value.product;
      } else {
        this.requestError = result.error;
      }
    }
    this.checking = false;
  }

  /**
   * Takes over an error another part of the page met, when it is about the engine itself: the
   * engine card then shows it (with its newest wording) and the caller shows no banner of its own.
   */
  absorb(error: AppErrorShape): boolean {
    if (!ENGINE_PROBLEMS.has(error.code)) return false;
    this.generation += 1;
    this.checking = false;
    this.health = { id: this.engineId, reachable: false, version: null, apiVersion: null, error };
    this.requestError = null;
    return true;
  }

  /** True while the card shows an engine problem with this error's code. */
  shows(error: AppErrorShape): boolean {
    return ENGINE_PROBLEMS.has(error.code) && this.health?.reachable === false && this.health.error?.code === error.code;
  }
}
