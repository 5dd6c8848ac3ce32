import { describe, expect, it } from 'vitest';
import { Profile } from '../../electron/shared/schemas-profiles';
import { checkProfileDraft, draftFromProfile } from '../../renderer/src/lib/profile-form';

// The profile form has no Slurm fields yet: an edit must carry a profile's Slurm job options through unchanged.
describe('profile form: Slurm options survive an edit', () => {
  it('keeps them, and a profile without them stays without', () => {
    const base = { label: 'On the cluster', engineId: 'ssh-hpc', mode: 'native', image: 'ghcr.io/modelscope/agentjet:main', id: 'on-the-cluster', createdAt: 'x', updatedAt: 'x' } as const;
    const withSlurm = Profile.parse({ ...base, slurm: { partition: 'debug', timeLimit: '30', run: { mode: 'native', activate: null } } });
    const edited = checkProfileDraft({ ...draftFromProfile(withSlurm), label: 'Renamed' }, 'ssh-hpc');
    expect(edited.errors).toEqual({});
    expect(edited.profile?.label).toBe('Renamed');
    expect(edited.profile?.slurm).toEqual(withSlurm.slurm);
    expect(checkProfileDraft(draftFromProfile(Profile.parse(base)), 'ssh-hpc').profile?.slurm).toBeNull();
  });
});
