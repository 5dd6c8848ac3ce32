import type { ExposedApi } from '../../../../electron/shared/api';
import { serverKey, type ServerState } from '../../../../electron/shared/server-state';

/**
 * What the app knows about every swarm server: the backend's one state per server (issue 31),
 * keyed by engine and container, from `fleet:states` and kept current by its events (each state
 * carries the monitor's status). The status bar, the Servers page, profile cards, the jobs panel
 * and the wizard all read it, so they never disagree.
 */
export class SwarmStatuses {
  /** Every server's state by `engineId:containerId`. */
  servers = $state<Record<string, ServerState>>({});
  /** Set when the initial request failed, i.e. we do not know anything. */
  loadFailed = $state(false);
  /** False until the servers' states answered: until then "none watched" would be a guess. */
  serversLoaded = $state(false);

  constructor(private readonly api: ExposedApi) {}

  /** Loads the snapshot and subscribes to updates; returns the unsubscribe for teardown. */
  start(): () => void {
    const offs = [
      this.api.events.on('fleet:state-changed', (state) => this.putServer(state)),
      this.api.events.on('fleet:state-removed', ({ key }) => delete this.servers[key]),
    ];
    void this.api.fleet.states().then((result) => {
      if (!result.ok) {
        this.loadFailed = true;
        return;
      }
      this.serversLoaded = true;
      this.loadFailed = false;
      // The list is the whole truth at its moment: servers it lacks are gone (removed while the page was away).
      const listed = result.value.map((s) => s.key);
      for (const key of Object.keys(this.servers)) if (!listed.includes(key)) delete this.servers[key];
      for (const state of result.value) this.putServer(state);
    });
    return () => {
      for (const off of offs) off();
    };
  }

  /** Keeps the newest snapshot: an event may overtake the slower initial list. */
  putServer(state: ServerState): void {
    const known = this.servers[state.key];
    if (known && known.updatedAt > state.updatedAt) return;
    this.servers[state.key] = state;
  }

  /** The state of one server; undefined until the backend has listed it. */
  server(engineId: string, containerId: string): ServerState | undefined {
    return this.servers[serverKey(engineId, containerId)];
  }
}
