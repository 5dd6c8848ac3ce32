import { describe, expect, it } from 'vitest';
import { slurmWording } from '../../../../../electron/services/engines/slurm/slurm-wording';

describe('slurmWording', () => {
  const w = slurmWording('hpc-login', 'alice');

  it('names Slurm and its own tools on the login node, in whole sentences', () => {
    expect(w.product).toBe('Slurm');
    const sentences = [w.pullImage('ghcr.io/x/swarm:1'), w.unreachable('ssh://alice@hpc'), w.permissionDenied('ssh://alice@hpc'), w.noGpuRuntime()];
    for (const s of sentences) {
      expect(s).toMatch(/\.$/);
      expect(s).toContain('hpc-login');
      expect(s).not.toMatch(/docker/i);
    }
    expect(w.unreachable('x')).toContain('Is Slurm installed on hpc-login');
    expect(w.unreachable('x')).toContain('sinfo');
    expect(w.permissionDenied('x')).toContain('alice');
  });
});
