import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { SwarmContainer } from '../../../../electron/shared/schemas';

/** Bursts of `swarm:containers-changed` (start = create + start + status) become one refetch. */
export const REFETCH_DEBOUNCE_MS = 300;

export type ContainerAction = 'stop' | 'remove';

/**
 * The swarm containers of one engine, refetched whenever the backend says they changed, and the
 * Stop and Remove actions on them (with their per-row busy flag and error), so rows stay dumb.
 */
export class ContainerListState {
  items = $state<SwarmContainer[]>([]);
  loaded = $state(false);
  error = $state<AppErrorShape | null>(null);
  /** The action running on each container, by container id. */
  busy = $state<Record<string, ContainerAction>>({});
  /** The last failed action's error on each container, by container id, until dismissed. */
  actionErrors = $state<Record<string, AppErrorShape>>({});
  private latestRequest = 0;
  /** The newest load (see `load`). */
  private newest: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
  ) {}

  /** Resolves once the list shown is at least as new as this load's (see `fetch`). */
  load(): Promise<void> {
    const loading = this.fetch(++this.latestRequest);
    this.newest = loading;
    return loading;
  }

  private async fetch(request: number): Promise<void> {
    const result = await this.api.swarm.list({ engineId: this.engineId });
    // Only the newest answer counts: an older, slower list must not overwrite a fresher one. Who awaits the older one
    // waits for the fresher one instead: a Remove's own reload overtaken by the refetch its change event started
    // must not resolve while the removed row is still shown (its focus rescue would find the pressed button still
    // there and keep it, and focus would fall to <body> when the row goes a moment later: seen under load).
    if (request !== this.latestRequest) return this.newest;
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

  stop(container: SwarmContainer): Promise<boolean> {
    return this.act('stop', container);
  }

  remove(container: SwarmContainer): Promise<boolean> {
    return this.act('remove', container);
  }

  dismissError(containerId: string): void {
    delete this.actionErrors[containerId];
  }

  /**
   * Runs one action and reloads the list, so the caller sees the new state when this resolves
   * (and can move focus to what is still there). True when the action succeeded.
   */
  private async act(action: ContainerAction, container: SwarmContainer): Promise<boolean> {
    // A second click while the first request runs must not send a second request.
    if (this.busy[container.id]) return false;
    this.busy[container.id] = action;
    delete this.actionErrors[container.id];
    const ref = { engineId: container.engineId, containerId: container.id };
    const result = action === 'stop' ? await this.api.swarm.stop(ref) : await this.api.swarm.remove(ref);
    delete this.busy[container.id];
    if (!result.ok) this.actionErrors[container.id] = result.error;
    // Gone already: the list is stale, so refetching shows the truth.
    if (result.ok || result.error.code === 'CONTAINER_NOT_FOUND') await this.load();
    return result.ok;
  }
}
