import type { ExposedApi } from '../../../../electron/shared/api';
import type { SwarmStatus } from '../../../../electron/shared/schemas';

/**
 * What the app knows about every watched swarm server, keyed by container id. Filled from
 * `swarm:statuses` on start and kept current by `swarm:status` events; the status bar and the
 * Servers page both read it, so they never disagree.
 */
export class SwarmStatuses {
  byContainer = $state<Record<string, SwarmStatus>>({});
  /** Set when the initial `swarm:statuses` request failed, i.e. we do not know anything. */
  loadFailed = $state(false);
  /** False until the initial snapshot answered: until then "none watched" would be a guess. */
  loaded = $state(false);

  constructor(private readonly api: ExposedApi) {}

  /** Loads the snapshot and subscribes to updates; returns the unsubscribe for teardown. */
  start(): () => void {
    const off = this.api.events.on('swarm:status', (status) => this.put(status));
    void this.api.swarm.statuses().then((result) => {
      if (!result.ok) {
        this.loadFailed = true;
        return;
      }
      this.loaded = true;
      this.loadFailed = false;
      for (const status of result.value) this.put(status);
    });
    return off;
  }

  /** Keeps the newest report: an event may overtake the slower initial snapshot. */
  put(status: SwarmStatus): void {
    const known = this.byContainer[status.containerId];
    if (known && known.checkedAt > status.checkedAt) return;
    this.byContainer[status.containerId] = status;
  }

  get(containerId: string): SwarmStatus | undefined {
    return this.byContainer[containerId];
  }

  /** Servers that are being watched (not stopped), newest check first. */
  get active(): SwarmStatus[] {
    return Object.values(this.byContainer)
      .filter((status) => status.connection !== 'stopped')
      .sort((a, b) => b.checkedAt.localeCompare(a.checkedAt));
  }
}
