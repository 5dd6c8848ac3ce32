import type { ExposedApi } from '../../../../electron/shared/api';
import type { Result } from '../../../../electron/shared/result';
import type { ProfileView } from '../../../../electron/shared/schemas-profiles';
import type { SwarmChoiceData } from '../../../../electron/shared/schemas-wizard';
import { t } from '../../lib/i18n';
import { SnapshotList } from '../../lib/state/snapshot-list.svelte';

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

/** "the dry run on this computer" / `the profile "Qwen 7B"` (the id while the list is not there yet). */
export function describeTarget(choice: SwarmChoiceData | null | undefined, profiles: AllSwarmProfiles): string {
  if (!choice) return t('wizard.run.target.none');
  if (choice.kind === 'dry-run') return t('wizard.run.target.dryRun');
  return t('wizard.run.target.profile', { label: profiles.find(choice.profileId)?.profile.label ?? choice.profileId });
}
