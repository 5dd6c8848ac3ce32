import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { EngineSummary } from '../../../../electron/shared/schemas';

/**
 * The engines the backend knows (`engines:list`). Pages take their engine ids from here, never
 * from a constant: every request names its engine, and SSH, Podman or Slurm engines appear here
 * without a change to the pages.
 */
export class EngineListState {
  items = $state<EngineSummary[]>([]);
  loaded = $state(false);
  error = $state<AppErrorShape | null>(null);

  constructor(private readonly api: ExposedApi) {}

  async load(): Promise<void> {
    const result = await this.api.engines.list();
    this.loaded = true;
    if (result.ok) {
      this.items = result.value;
      this.error = null;
    } else {
      this.error = result.error;
    }
  }
}
