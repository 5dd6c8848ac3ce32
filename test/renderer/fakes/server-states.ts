import { deriveServerState } from '../../../electron/services/server-state/derive';
import type { EngineSummary, SwarmContainer, SwarmStatus } from '../../../electron/shared/schemas';
import type { ProfileView } from '../../../electron/shared/schemas-profiles';
import { serverKey, type ServerState } from '../../../electron/shared/server-state';

/** What the fake backend holds that a server's state is made of. */
export interface ServerStateSources {
  engineList: EngineSummary[];
  containers: SwarmContainer[];
  statusList: SwarmStatus[];
  profileViews: ProfileView[];
}

/**
 * TEST DOUBLE support: the fake backend's `fleet:states`, made by the backend's own reducer
 * (`deriveServerState`) from the fake's containers (also those only a profile shows), its status
 * list and the statuses a test pushed with `swarm:status` (newest wins). So the renderer under
 * test sees the phases the real store would send for the same facts.
 */
export class FakeServerStates {
  /** Statuses a test emitted, by key: they overtake the initial list, as in the backend. */
  private readonly pushed = new Map<string, SwarmStatus>();
  private readonly previous = new Map<string, ServerState>();

  constructor(private readonly sources: ServerStateSources) {}

  pushedStatus(status: SwarmStatus): void {
    this.pushed.set(serverKey(status.engineId, status.containerId), status);
  }

  all(): ServerState[] {
    const containers = new Map<string, SwarmContainer>();
    for (const c of this.sources.containers) containers.set(serverKey(c.engineId, c.id), c);
    for (const view of this.sources.profileViews) {
      const c = view.runtime.container;
      const key = c ? serverKey(view.profile.engineId, c.id) : null;
      if (c && key && !containers.has(key)) containers.set(key, { ...c, engineId: view.profile.engineId });
    }
    return [...containers.entries()].map(([key, container]) => {
      const status = this.pushed.get(key) ?? this.sources.statusList.find((s) => serverKey(s.engineId, s.containerId) === key);
      const engineKind = this.sources.engineList.find((e) => e.id === container.engineId)?.kind ?? 'local-docker';
      const state = deriveServerState({ engineKind, container: structuredClone(container), status, stopping: false }, this.previous.get(key), Date.now());
      this.previous.set(key, state);
      return state;
    });
  }

  one(engineId: string, containerId: string): ServerState | undefined {
    return this.all().find((s) => s.key === serverKey(engineId, containerId));
  }
}
