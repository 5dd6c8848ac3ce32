/** English strings of the swarm profiles part (issue 13), spread into `en.ts`; zh-CN-profiles.ts has the same keys. */
export const enProfiles = {
  'profiles.placeholder': 'Profiles',
} as const;
