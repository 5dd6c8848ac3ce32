import type { SwarmChoiceData } from '../../../../electron/shared/schemas-wizard';
import { t } from '../../lib/i18n';
import type { AllSwarmProfiles } from '../../lib/state/all-profiles';

/** "the dry run on this computer" / `the profile "Qwen 7B"` (the id while the list is not there yet). */
export function describeTarget(choice: SwarmChoiceData | null | undefined, profiles: AllSwarmProfiles): string {
  if (!choice) return t('wizard.run.target.none');
  if (choice.kind === 'dry-run') return t('wizard.run.target.dryRun');
  return t('wizard.run.target.profile', { label: profiles.find(choice.profileId)?.profile.label ?? choice.profileId });
}
