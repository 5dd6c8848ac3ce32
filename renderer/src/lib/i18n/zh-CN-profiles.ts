import type { enProfiles } from './en-profiles';

/** Simplified Chinese of `en-profiles.ts`: the same keys (checked by type). */
export const zhCNProfiles: Record<keyof typeof enProfiles, string> = {
  'profiles.placeholder': 'Profiles',
};
