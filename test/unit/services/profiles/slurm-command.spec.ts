import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ContainerEngine } from '../../../../electron/services/engines/container-engine';
import { EngineRegistry } from '../../../../electron/services/engines/engine-registry';
import { EventHub } from '../../../../electron/services/events';
import { ProfileRuntime } from '../../../../electron/services/profiles/profile-runtime';
import { ProfileStore } from '../../../../electron/services/profiles/profile-store';
import { slurmProfileCommand } from '../../../../electron/services/profiles/slurm-command';
import type { SwarmContainers } from '../../../../electron/services/swarm/swarm-containers';
import { Profile, ProfileInput } from '../../../../electron/shared/schemas-profiles';

const base = { id: 'qwen', label: 'Qwen on the cluster', engineId: 'ssh-hpc', mode: 'native', image: 'ghcr.io/modelscope/agentjet:main', port: 10086, createdAt: 'x', updatedAt: 'x' } as const;

describe('"Show the command" for a Slurm profile', () => {
  it('is the job script with the profile\'s options, then the sbatch line; notes say where it runs, where output and the port file go, and the warnings', () => {
    const profile = Profile.parse({
      ...base,
      env: [{ name: 'NCCL_NVLS_ENABLE', value: '0' }],
      secretEnv: ['SWANLAB_API_KEY'],
      slurm: { partition: 'gpu', account: 'proj1', qos: 'normal', timeLimit: '2:00:00', gpus: { flag: 'gres', count: 2, type: 'a100' }, cpusPerTask: 8, memoryGb: 64, warnBeforeLimitSeconds: 600, run: { mode: 'native', activate: 'conda activate ajet' } },
    });
    const { command, notes } = slurmProfileCommand(profile, { appVersion: '1.2.3', loginNode: 'hpc-login' });
    expect(command.startsWith('#!/bin/bash -l\n')).toBe(true);
    for (const line of ['#SBATCH --job-name=agentswarm-qwen', '#SBATCH --partition=gpu', '#SBATCH --account=proj1', '#SBATCH --qos=normal', '#SBATCH --time=2:00:00', '#SBATCH --gres=gpu:a100:2', '#SBATCH --cpus-per-task=8', '#SBATCH --mem=64G', '#SBATCH --signal=B:USR1@600']) {
      expect(command.split('\n')).toContain(line);
    }
    expect(command).toContain("eval 'conda activate ajet'");
    // The script is followed by how it is submitted, as its last line.
    expect(command.trimEnd().split('\n').at(-1)).toBe('mkdir -p ~/.agentswarm/slurm/agentswarm-qwen/out && cd ~/.agentswarm/slurm/agentswarm-qwen && sbatch --parsable job.sh');
    // Names only: no value of a variable (plain or secret, masked or not) is in the script.
    expect(command).not.toContain('****');
    expect(command).not.toContain('NCCL_NVLS_ENABLE=0');
    const text = notes.join('\n');
    expect(text).toContain('login node hpc-login');
    expect(text).toContain('~/.agentswarm/slurm/agentswarm-qwen/out/<job id>.out');
    expect(text).toContain('~/.agentswarm/slurm/agentswarm-qwen/endpoint');
    expect(text).toContain('NCCL_NVLS_ENABLE, SWANLAB_API_KEY');
    expect(text).toContain('its time limit (2:00:00)');
    expect(text).toContain('600 s before');
    expect(text).toContain('every network interface');
    expect(text).toContain('no authentication');
  });

  it('without Slurm options uses what the engine derives (Podman with the image for a container profile; the partition\'s limit)', () => {
    const profile = Profile.parse({ ...base, mode: 'container', gpus: { mode: 'ids', ids: ['0', '1'] } });
    const { command, notes } = slurmProfileCommand(profile, { appVersion: '1.2.3', loginNode: 'hpc-login' });
    expect(command).toContain("IMAGE='ghcr.io/modelscope/agentjet:main'");
    expect(command.split('\n')).toContain('#SBATCH --gres=gpu:2');
    expect(command).not.toContain('#SBATCH --time=');
    expect(notes.join('\n')).toContain("the partition's time limit");
  });

  it('is what ProfileRuntime.command answers for a profile on a Slurm engine', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'slurm-command-'));
    try {
      const engines = new EngineRegistry();
      // TEST DOUBLE: only the summary is read on this path (the job script is built without the cluster).
      engines.add({ summary: { id: 'ssh-hpc', kind: 'slurm', label: 'hpc-login', endpoint: 'ssh://u@hpc' }, host: null } as unknown as ContainerEngine);
      const store = new ProfileStore(dataDir);
      const runtime = new ProfileRuntime({
        store,
        engines,
        containers: {} as SwarmContainers,
        runDoctor: () => Promise.reject(new Error('not used')),
        events: new EventHub(),
        logger: { warn: () => undefined },
        appVersion: '1.2.3',
      });
      const profile = await store.add(ProfileInput.parse({ label: 'Qwen', engineId: 'ssh-hpc', mode: 'native', image: 'x/y:1', slurm: { partition: 'debug', timeLimit: '30', run: { mode: 'native', activate: null } } }));
      const shown = await runtime.command(profile.id);
      expect(shown.command.split('\n')).toContain('#SBATCH --partition=debug');
      expect(shown.command).toContain('sbatch --parsable job.sh');
      expect(shown.notes[0]).toContain('login node hpc-login');
      runtime.dispose();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
