import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { SwarmContainer } from '../../../../electron/shared/schemas';

/** Bursts of `swarm:containers-changed` (start = create + start + status) become one refetch. */
export const REFETCH_DEBOUNCE_MS = 300;

/** The swarm containers of one engine, refetched whenever the backend says they changed. */
export class ContainerListState {
  items = $state<SwarmContainer[]>([]);
  loaded = $state(false);
  error = $state<AppErrorShape | null>(null);
  private latestRequest = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
  ) {}

  async load(): Promise<void> {
    // Only the newest answer counts: an older, slower list must not overwrite a fresher one.
    const request = ++this.latestRequest;
    const result = await this.api.swarm.list({ engineId: this.engineId });
    if (request !== this.latestRequest) return;
    this.loaded = true;
    if (result.ok) {
      this.items = result.value;
      this.error = null;
    } else {
      this.error = result.error;
    }
  }

  scheduleLoad(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.load(), REFETCH_DEBOUNCE_MS);
  }

  /** Loads now and on every change event for this engine; returns the teardown. */
  start(): () => void {
    void this.load();
    const off = this.api.events.on('swarm:containers-changed', ({ engineId }) => {
      if (engineId === this.engineId) this.scheduleLoad();
    });
    return () => {
      off();
      clearTimeout(this.timer);
    };
  }
}
