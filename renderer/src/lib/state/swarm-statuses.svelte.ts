import type { ExposedApi } from '../../../../electron/shared/api';
import type { SwarmStatus } from '../../../../electron/shared/schemas';
import { serverKey, type ServerState } from '../../../../electron/shared/server-state';

/**
 * What the app knows about every swarm server: the backend's one state per server (issue 31),
 * keyed by engine and container, from `fleet:states` and kept current by its events, and
 * the monitor's statuses it carries. The status bar, the Servers page, profile cards and the
 * wizard all read it, so they never disagree.
 */
export class SwarmStatuses {
  byContainer = $state<Record<string, SwarmStatus>>({});
  /** Every server's state by `engineId:containerId`. */
  servers = $state<Record<string, ServerState>>({});
  /** Set when the initial request failed, i.e. we do not know anything. */
  loadFailed = $state(false);
  /** False until the initial snapshot answered: until then "none watched" would be a guess. */
  loaded = $state(false);
  /** False until the servers' states answered. */
  serversLoaded = $state(false);

  constructor(private readonly api: ExposedApi) {}

  /** Loads the snapshots and subscribes to updates; returns the unsubscribe for teardown. */
  start(): () => void {
    const offs = [
      this.api.events.on('swarm:status', (status) => this.put(status)),
      this.api.events.on('fleet:state-changed', (state) => this.putServer(state)),
      this.api.events.on('fleet:state-removed', ({ key }) => delete this.servers[key]),
    ];
    void this.api.swarm.statuses().then((result) => {
      if (!result.ok) {
        this.loadFailed = true;
        return;
      }
      this.loaded = true;
      this.loadFailed = false;
      for (const status of result.value) this.put(status);
    });
    void this.api.fleet.states().then((result) => {
      if (!result.ok) {
        this.loadFailed = true;
        return;
      }
      this.serversLoaded = true;
      // The list is the whole truth at its moment: servers it lacks are gone (removed while the page was away).
      const listed = result.value.map((s) => s.key);
      for (const key of Object.keys(this.servers)) if (!listed.includes(key)) delete this.servers[key];
      for (const state of result.value) this.putServer(state);
    });
    return () => {
      for (const off of offs) off();
    };
  }

  /** Keeps the newest report: an event may overtake the slower initial snapshot. */
  put(status: SwarmStatus): void {
    const known = this.byContainer[status.containerId];
    if (known && known.checkedAt > status.checkedAt) return;
    this.byContainer[status.containerId] = status;
  }

  putServer(state: ServerState): void {
    const known = this.servers[state.key];
    if (known && known.updatedAt > state.updatedAt) return;
    this.servers[state.key] = state;
  }

  get(containerId: string): SwarmStatus | undefined {
    return this.byContainer[containerId];
  }

  /** The state of one server; undefined until the backend has listed it. */
  server(engineId: string, containerId: string): ServerState | undefined {
    return this.servers[serverKey(engineId, containerId)];
  }

  /** Servers that are being watched (not stopped), newest check first. */
  get active(): SwarmStatus[] {
    return Object.values(this.byContainer)
      .filter((status) => status.connection !== 'stopped')
      .sort((a, b) => b.checkedAt.localeCompare(a.checkedAt));
  }
}
