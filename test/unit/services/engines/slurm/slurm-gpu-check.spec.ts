// The GPU check of a Slurm job reads what the job was given (`scontrol -d -o show job`). The login node is a TEST
// DOUBLE answering with the test bed's real 22.05 output (fake GPUs: `JOB_GRES=gpu:fake:1`, `GRES=gpu:fake:1(IDX:0)`);
// the real Slurm runs in test/integration/slurm-queue.spec.ts.
import { describe, expect, it } from 'vitest';
import type { EngineHost, HostExecResult } from '../../../../../electron/services/engines/container-engine';
import { allocatedGpus, checkJobGpus } from '../../../../../electron/services/engines/slurm/slurm-gpu-check';
import { verifyGpus } from '../../../../../electron/services/swarm/gpu-verify';
import { SlurmJobOptions } from '../../../../../electron/shared/schemas-slurm';
import type { ContainerEngine } from '../../../../../electron/services/engines/container-engine';

/** Real `scontrol -d -o show job` of a running job with --gres=gpu:1 on the test bed (trimmed to the fields read). */
const SHOWN = 'JobId=140 JobName=agentswarm-p1 UserId=swarmtest(1001) JobState=RUNNING Reason=None Partition=debug NodeList=vm TRES=cpu=1,node=1,billing=1 JOB_GRES=gpu:fake:1 Nodes=vm CPU_IDs=0 Mem=0 GRES=gpu:fake:1(IDX:0) TresPerNode=gres:gpu:1\n';

function host(stdout: string, code = 0): EngineHost & { scripts: string[] } {
  const scripts: string[] = [];
  return { kind: 'ssh', label: 'login (alice@hpc)', scripts, exec: (script: string): Promise<HostExecResult> => (scripts.push(script), Promise.resolve({ code, stdout, stderr: code ? 'slurm_load_jobs error: Invalid job id specified' : '' })) };
}
const native = (count: number, type: string | null = null) => ({ gpus: { mode: 'none' as const }, runtime: 'native' as const, batch: SlurmJobOptions.parse({ gpus: { flag: 'gres', count, type }, run: { mode: 'native', activate: null } }) });

describe("a Slurm job's GPU check: what it asked for and what it was given", () => {
  it('counts the GPUs of JOB_GRES / GRES in every form', () => {
    expect(allocatedGpus('gpu:fake:1(IDX:0)')).toBe(1);
    expect(allocatedGpus('gpu:2,gpu:a100:1(IDX:0-2)')).toBe(3);
    expect(allocatedGpus('gres/gpu:4')).toBe(4);
    expect(allocatedGpus('(null)')).toBe(0);
    expect(allocatedGpus(undefined)).toBe(0);
  });

  it('passes when the allocation holds what was asked, saying both (one scontrol, no nvidia-smi)', async () => {
    const login = host(SHOWN);
    expect(await checkJobGpus(login, '140', native(1))).toEqual({ status: 'passed', detail: 'Slurm job 140 asked for 1 GPU (--gres=gpu:1) and was given 1 on vm (gpu:fake:1)' });
    expect(login.scripts).toEqual(['scontrol -d -o show job 140']);
  });

  it('fails naming the request and Slurm\'s tools when the job got fewer GPUs; the error has no Docker or Podman fix', async () => {
    const outcome = await checkJobGpus(host(SHOWN), '140', native(2, 'fake'));
    expect(outcome).toMatchObject({ status: 'failed', problem: 'Slurm job 140 asked for 2 GPUs (--gres=gpu:fake:2) but was given 1 (scontrol -d show job 140: gpu:fake:1)' });
    const engine = { summary: { label: 'hpc' }, verifyGpus: () => Promise.resolve(outcome) } as unknown as ContainerEngine;
    const checked = await verifyGpus(engine, '140', native(2, 'fake'));
    expect(checked.status).toBe('failed');
    const message = checked.status === 'failed' ? checked.error.message : '';
    expect(message).toMatch(/^The swarm server on hpc started without the GPUs it asked for: Slurm job 140 asked for 2 GPUs \(--gres=gpu:fake:2\) but was given 1/);
    expect(message).toContain('sinfo -p debug -o "%N %G"');
    expect(message).not.toMatch(/Docker|Podman|CDI|nvidia-ctk/);
  });

  it('skips a job that asked for none, one that no longer runs, and says why', async () => {
    expect(await checkJobGpus(host(SHOWN), '140', { gpus: { mode: 'none' }, runtime: 'native' })).toEqual({ status: 'skipped', reason: 'no GPUs asked for' });
    expect(await checkJobGpus(host(SHOWN.replace('JobState=RUNNING', 'JobState=FAILED')), '140', native(1))).toMatchObject({ status: 'skipped', reason: expect.stringContaining('is failed, not running') });
    expect(await checkJobGpus(host('', 1), '140', native(1))).toMatchObject({ status: 'skipped', reason: expect.stringContaining('asked for 1 GPU (--gres=gpu:1); its allocation could not be read') });
  });
});
