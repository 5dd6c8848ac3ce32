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

  /**
   * Loads the snapshot and subscribes to updates; returns the unsubscribe for teardown. In the browser
   * host the list comes over HTTP and events over the socket, so an event may arrive before a list
   * that was taken earlier: what an event said while the list was on its way wins over the list (a
   * dry run's first "online" was once dropped by a late list that did not have it yet, and nothing
   * changed after to bring it back).
   */
  start(): () => void {
    let listing = true;
    // Keys, not reactive state: plain records (a handful of entries while one request is on its way).
    const changedMeanwhile: Record<string, true> = {};
    const removedMeanwhile: Record<string, true> = {};
    const offs = [
      this.api.events.on('fleet:state-changed', (state) => {
        if (listing) {
          changedMeanwhile[state.key] = true;
          delete removedMeanwhile[state.key];
        }
        this.putServer(state);
      }),
      this.api.events.on('fleet:state-removed', ({ key }) => {
        if (listing) {
          removedMeanwhile[key] = true;
          delete changedMeanwhile[key];
        }
        delete this.servers[key];
      }),
    ];
    void this.api.fleet.states().then((result) => {
      listing = false;
      if (!result.ok) {
        this.loadFailed = true;
        return;
      }
      this.serversLoaded = true;
      this.loadFailed = false;
      // The list is the whole truth at its moment: servers it lacks are gone (removed while the page was away),
      // unless an event told of them since.
      const listed = result.value.map((s) => s.key);
      for (const key of Object.keys(this.servers)) if (!listed.includes(key) && !changedMeanwhile[key]) delete this.servers[key];
      for (const state of result.value) if (!removedMeanwhile[state.key]) this.putServer(state);
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
