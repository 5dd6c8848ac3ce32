import type { ExposedApi } from '../../../../electron/shared/api';
import type { Result } from '../../../../electron/shared/result';
import type { ProfileView } from '../../../../electron/shared/schemas-profiles';
import { SnapshotList } from './snapshot-list.svelte';

/**
 * Every swarm profile of every engine (the Servers page's ProfilesState keeps one engine's): the
 * same `profiles:list` snapshot and `profiles:changed` events, read-only. The wizard's steps only
 * list and name profiles; starting one goes through the wizard's backend.
 */
export class AllSwarmProfiles extends SnapshotList<ProfileView> {
  constructor(private readonly api: ExposedApi) {
    super();
  }

  protected subscribe(listener: (views: ProfileView[]) => void): () => void {
    return this.api.events.on('profiles:changed', listener);
  }

  protected fetch(): Promise<Result<ProfileView[]>> {
    return this.api.profiles.list();
  }
}
