import type { SlurmGpus } from '../../../shared/schemas-slurm';
import type { z } from 'zod';
import type { ContainerSpec, EngineGpuCheck, EngineHost } from '../container-engine';
import { parseScontrolRecord } from './slurm-parse';

/*
 * The GPU check of a Slurm job (issue 31): what the job was given, not nvidia-smi in a container. Slurm hands a job its
 * GPUs itself (CUDA_VISIBLE_DEVICES, the cgroup's devices); `scontrol -d show job` says which it allocated (`JOB_GRES=
 * gpu:a100:2`, `GRES=gpu:a100:2(IDX:0-1)` per node). One request to the controller, and it works where the node has
 * no nvidia-smi in the job's environment (the test bed's fake GPUs; a native job's PATH). AllocTRES would say it only
 * where the site accounts gres/gpu (AccountingStorageTRES), and `srun --overlap nvidia-smi -L` needs nvidia-smi on the
 * node's PATH and starts a job step: not used. A failure names the job's request and Slurm's tools, not Docker's or
 * Podman's fixes.
 */

/** `--gres=gpu:a100:2` / `--gpus=2`: the job's GPU option as its script wrote it. */
export function gpuOptionText(gpus: z.infer<typeof SlurmGpus>): string {
  const type = gpus.type ? `${gpus.type}:` : '';
  return gpus.flag === 'gres' ? `--gres=gpu:${type}${gpus.count}` : `--gpus=${type}${gpus.count}`;
}

/** The GPUs in a `JOB_GRES=` / `GRES=` value: `gpu:fake:1(IDX:0)`, `gpu:2,gpu:a100:1`, `gres/gpu:2`; 0 for none. */
export function allocatedGpus(gres: string | undefined): number {
  if (!gres || /^\(null\)$|^N\/A$/i.test(gres)) return 0;
  let total = 0;
  for (const part of gres.replace(/\([^)]*\)/g, '').split(',')) {
    const m = /^(?:gres[/:])?gpu(?::[^:]+)?:(\d+)$/.exec(part.trim());
    if (m) total += Number(m[1]);
  }
  return total;
}

/** The job's GPU request: its batch options, else what the spec's GPU request becomes (slurm-spec.ts); null: none. */
function requestOf(spec: Pick<ContainerSpec, 'gpus' | 'runtime' | 'batch'>): z.infer<typeof SlurmGpus> | null {
  if (spec.batch) return spec.batch.gpus;
  if (spec.gpus.mode === 'none') return null;
  return spec.gpus.mode === 'ids' ? { flag: 'gres', count: spec.gpus.ids.length, type: null } : { flag: 'gres', count: 1, type: null };
}

/** Reads job `jobId`'s allocation and compares it with what `spec` asked for. Never throws. */
export async function checkJobGpus(host: EngineHost, jobId: string, spec: Pick<ContainerSpec, 'gpus' | 'runtime' | 'batch'>): Promise<EngineGpuCheck> {
  let request: z.infer<typeof SlurmGpus> | null;
  try {
    request = requestOf(spec);
  } catch {
    request = null;
  }
  if (!request) return { status: 'skipped', reason: 'no GPUs asked for' };
  const asked = `${request.count} GPU${request.count === 1 ? '' : 's'} (${gpuOptionText(request)})`;
  const result = await host.exec(`scontrol -d -o show job ${jobId}`, { timeoutMs: 30_000 }).catch((error: unknown) => ({ code: -1, stdout: '', stderr: String((error as Error)?.message ?? error) }));
  const line = result.stdout.split('\n').find((l) => l.startsWith('JobId='));
  if (result.code !== 0 || !line) {
    return { status: 'skipped', reason: `Slurm job ${jobId} asked for ${asked}; its allocation could not be read (scontrol: ${result.stderr.trim().split('\n')[0] || `exit ${result.code}`})` };
  }
  // `-d` pads its detail fields with spaces: values are trimmed.
  const job = Object.fromEntries(Object.entries(parseScontrolRecord(line)).map(([k, v]) => [k, v.trim()]));
  if (job.JobState !== 'RUNNING') return { status: 'skipped', reason: `Slurm job ${jobId} is ${(job.JobState ?? 'gone').toLowerCase()}, not running: its GPUs were not checked (the monitor reports why it ended)` };
  // 22.05 prints JOB_GRES with -d; newer versions also GRES= per node (with the indexes).
  const given = allocatedGpus(job.JOB_GRES ?? job.GRES);
  const what = job.JOB_GRES ?? job.GRES ?? 'no GPUs';
  const node = job.NodeList ?? job.Nodes ?? 'its node';
  if (given >= request.count) return { status: 'passed', detail: `Slurm job ${jobId} asked for ${asked} and was given ${given} on ${node} (${what})` };
  return {
    status: 'failed',
    problem: `Slurm job ${jobId} asked for ${asked} but was given ${given} (scontrol -d show job ${jobId}: ${what})`,
    fix: `Check which GPUs the partition's nodes have (sinfo${job.Partition ? ` -p ${job.Partition}` : ''} -o "%N %G") and change the profile's GPU request to one they can give, or ask the cluster's admins why the allocation has no GPUs.`,
  };
}
