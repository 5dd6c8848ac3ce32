// The slurm stage of "Test connection" from the check script's output: texts as the test bed's Slurm 22.05 prints
// them (the real runs are in test/integration/slurm-diagnostics.spec.ts), plus what a bigger cluster prints.
import { describe, expect, it } from 'vitest';
import { describePartitions, parsePartitionLines, slurmStageResult } from '../../../../electron/services/ssh/slurm-check';

const HOST = 'alice@login1:22';

describe('the slurm stage', () => {
  it('passes with the version, each partition (default starred), its nodes by state and its GPUs', () => {
    const result = slurmStageResult('@@version 0\nslurm-wlm 22.05.8\n@@partitions 0\ndebug*|up|1|idle|gpu:fake:2\n', HOST, 'alice');
    expect(result).toEqual({
      status: 'pass',
      detail: 'Slurm 22.05.8; partitions: debug* (1 node idle; GPUs gpu:fake:2)',
      // The same facts for the renderer's words (issue 32); the partitions in sinfo's own terms, quoted as they are.
      say: { key: 'slurmOk', params: { version: '22.05.8', host: HOST, said: 'debug* 1×idle gpu:fake:2' } },
    });
  });

  it('several partitions and node states; a down partition is said; no GPU anywhere is a warning', () => {
    const lines = parsePartitionLines('gpu*|up|3|mix|gpu:a100:4\ngpu*|up|1|idle|gpu:a100:4\ncpu|down|8|idle|(null)\n');
    expect(describePartitions(lines)).toBe('gpu* (3 nodes mix, 1 node idle; GPUs gpu:a100:4), cpu (8 nodes idle, partition down; no GPUs)');
    const cpuOnly = slurmStageResult('@@version 0\nslurm 23.11.4\n@@partitions 0\ncpu*|up|8|idle|(null)\n', HOST, 'alice');
    expect(cpuOnly).toMatchObject({ status: 'warn', detail: 'Slurm 23.11.4; partitions: cpu* (8 nodes idle; no GPUs)', error: { code: 'GPU_UNAVAILABLE' } });
  });

  it('fails with the cause: no sinfo, a SLURM_CONF naming nothing, a controller that does not answer, no partition', () => {
    expect(slurmStageResult('@@missing\n', HOST, 'alice')).toMatchObject({ status: 'fail', error: { message: expect.stringMatching(/^Not a Slurm login node: sinfo is not found/) } });
    expect(slurmStageResult('@@noconf /opt/slurm/etc/slurm.conf\n', HOST, 'alice')).toMatchObject({
      status: 'fail',
      error: { message: expect.stringContaining('SLURM_CONF on alice@login1:22 names /opt/slurm/etc/slurm.conf') },
    });
    const down = slurmStageResult('@@version 0\nslurm-wlm 22.05.8\n@@partitions 1\nslurm_load_partitions: Unable to contact slurm controller (connect failure)\n', HOST, 'alice');
    expect(down).toMatchObject({ status: 'fail', error: { code: 'ENGINE_UNREACHABLE' }, fix: expect.stringMatching(/^Slurm 22\.05\.8 is installed, but slurmctld does not answer/) });
    const slow = slurmStageResult('@@version 0\nslurm-wlm 22.05.8\n@@partitions 124\n', HOST, 'alice');
    expect(slow).toMatchObject({ status: 'fail', error: { message: expect.stringContaining('did not answer sinfo within 25 s') } });
    expect(slurmStageResult('@@version 0\nslurm-wlm 22.05.8\n@@partitions 0\n', HOST, 'alice')).toMatchObject({ status: 'warn', detail: 'Slurm 22.05.8; no partition is visible to alice' });
  });
});
