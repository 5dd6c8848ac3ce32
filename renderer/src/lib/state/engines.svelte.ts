import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { EngineSummary } from '../../../../electron/shared/schemas';

/**
 * The engines the backend knows (`engines:list`). Pages take their engine ids from here, never
 * from a constant: every request names its engine, and SSH, Podman or Slurm engines appear here
 * without a change to the pages. `engines:changed` (a server added or removed) refetches the list.
 */
export class EngineListState {
  items = $state<EngineSummary[]>([]);
  loaded = $state(false);
  error = $state<AppErrorShape | null>(null);
  private latestRequest = 0;

  constructor(private readonly api: ExposedApi) {}

  async load(): Promise<void> {
    // Only the newest answer counts: two quick changes must not end on the older list.
    const request = ++this.latestRequest;
    const result = await this.api.engines.list();
    if (request !== this.latestRequest) return;
    this.loaded = true;
    if (result.ok) {
      this.items = result.value;
      this.error = null;
    } else {
      this.error = result.error;
    }
  }

  /** Loads now and on every `engines:changed`; returns the teardown. */
  start(): () => void {
    void this.load();
    return this.api.events.on('engines:changed', () => void this.load());
  }
}
