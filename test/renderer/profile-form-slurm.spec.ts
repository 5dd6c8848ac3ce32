import { describe, expect, it } from 'vitest';
import { Profile } from '../../electron/shared/schemas-profiles';
import { checkProfileDraft, draftFromProfile } from '../../renderer/src/lib/profile-form';
import { emptySlurmDraft } from '../../renderer/src/lib/profile-form-slurm';
import { SLURM_CUSTOM_PRESETS } from '../../electron/shared/schemas-slurm';

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

// On a Slurm login node the form's Slurm section holds the options: an edit shows them and sends them back unchanged.
describe('profile form: the Slurm section on a Slurm login node', () => {
  const base = { label: 'On the cluster', engineId: 'ssh-hpc', mode: 'native', image: 'ghcr.io/modelscope/agentjet:main', id: 'on-the-cluster', createdAt: 'x', updatedAt: 'x' } as const;

  it('round-trips every option of a Slurm profile through the section', () => {
    const slurm = { partition: 'gpu,gpu-long', account: 'proj1', qos: 'high', timeLimit: '1-12:00:00', gpus: { flag: 'gpus', count: 4, type: 'a100' }, cpusPerTask: 16, memoryGb: 128, warnBeforeLimitSeconds: 900, workDir: '~/work', run: { mode: 'podman', image: 'ghcr.io/modelscope/agentjet:main' } } as const;
    const profile = Profile.parse({ ...base, mode: 'container', slurm });
    const draft = draftFromProfile(profile);
    expect(draft.slurmJob).toMatchObject({ partition: 'gpu,gpu-long', gpuFlag: 'gpus', gpuCount: '4', gpuType: 'a100', memoryGb: '128', runMode: 'podman', workDir: '~/work' });
    const checked = checkProfileDraft(draft, 'ssh-hpc', true);
    expect(checked.errors).toEqual({});
    expect(checked.profile?.slurm).toEqual(profile.slurm);
    expect(checked.profile?.mode).toBe('container');
  });

  it('a profile without options starts from what the engine would derive (its mode, activate line, GPUs as a count)', () => {
    const profile = Profile.parse({ ...base, nativeActivate: 'source ~/venv/bin/activate', gpus: { mode: 'ids', ids: ['0', '1'] } });
    const checked = checkProfileDraft(draftFromProfile(profile), 'ssh-hpc', true);
    expect(checked.errors).toEqual({});
    expect(checked.profile?.slurm).toMatchObject({ partition: null, timeLimit: null, gpus: { flag: 'gres', count: 2, type: null }, run: { mode: 'native', activate: 'source ~/venv/bin/activate' } });
  });

  it('puts the schema\'s messages on the Slurm fields, the warning\'s cross-check on its own field', () => {
    const draft = draftFromProfile(Profile.parse({ ...base, slurm: { timeLimit: '30', run: { mode: 'native', activate: null } } }));
    draft.slurmJob = { ...draft.slurmJob, account: 'has space', qos: '', timeLimit: '10', warnBeforeLimitSeconds: '900', memoryGb: 'lots', workDir: 'relative/dir' };
    const { errors, profile } = checkProfileDraft(draft, 'ssh-hpc', true);
    expect(profile).toBeNull();
    expect(errors.slurmAccount).toMatch(/^account may only hold letters/);
    expect(errors.slurmMemory).toBeTruthy();
    expect(errors.slurmWorkDir).toContain('path must be absolute');
    // Empty means "the cluster's default", not an error.
    expect(errors.slurmQos).toBeUndefined();
    // The cross-check of warning and limit runs once the fields themselves are valid.
    draft.slurmJob = { ...draft.slurmJob, account: 'proj1', memoryGb: '', workDir: '' };
    expect(checkProfileDraft(draft, 'ssh-hpc', true).errors).toEqual({ slurmWarn: expect.stringContaining('must come after the start: make it shorter than the time limit (600 s)') });
  });

  it('custom lines: kept through an edit, refused without $PORT on the run field, the Apptainer template by default', () => {
    const draft = draftFromProfile(Profile.parse({ ...base, slurm: { timeLimit: '30', run: { mode: 'custom', script: 'apptainer exec x.sif ajet-swarm start --swarm-port "$PORT"' } } }));
    expect(draft.slurmJob).toMatchObject({ runMode: 'custom', customScript: 'apptainer exec x.sif ajet-swarm start --swarm-port "$PORT"' });
    expect(checkProfileDraft(draft, 'ssh-hpc', true).profile?.slurm?.run).toEqual({ mode: 'custom', script: 'apptainer exec x.sif ajet-swarm start --swarm-port "$PORT"' });
    draft.slurmJob = { ...draft.slurmJob, customScript: 'apptainer exec x.sif ajet-swarm start' };
    expect(checkProfileDraft(draft, 'ssh-hpc', true).errors).toEqual({ slurmRun: expect.stringContaining('must pass "$PORT" to the server') });
    expect(emptySlurmDraft().customScript).toBe(SLURM_CUSTOM_PRESETS.apptainer);
  });
});
