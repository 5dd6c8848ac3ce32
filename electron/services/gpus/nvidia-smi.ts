import type { GpuReading, GpuSample } from '../../shared/schemas-fleet';
import { shellQuote, type HostExecResult } from '../engines/container-engine';
import { firstSaid } from '../swarm/gpu-verify';

/** What the fleet home asks every GPU host: one CSV line per GPU, no header, no units. */
export const GPU_QUERY_ARGS: readonly string[] = ['--query-gpu=index,uuid,utilization.gpu,memory.used,memory.total', '--format=csv,noheader,nounits'];
/** A hung driver must not hold a sampling round: the doctor allows nvidia-smi as long. */
export const GPU_SAMPLE_TIMEOUT_MS = 15_000;

/** `[N/A]`, `[Not Supported]` and blanks are no number. */
function numberOrNull(field: string | undefined): number | null {
  if (field === undefined) return null;
  const value = Number(field.trim());
  return field.trim() !== '' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** The GPUs in nvidia-smi's CSV: `0, GPU-8f…, 97, 40120, 81920` per line; lines that are not such are skipped. */
export function parseGpuQuery(stdout: string): GpuReading[] {
  const gpus: GpuReading[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const fields = line.split(',').map((f) => f.trim());
    if (fields.length < 5 || !/^\d+$/.test(fields[0]!)) continue;
    gpus.push({
      index: Number(fields[0]),
      uuid: fields[1]!,
      utilizationPct: numberOrNull(fields[2]),
      memoryUsedMiB: numberOrNull(fields[3]),
      memoryTotalMiB: numberOrNull(fields[4]),
    });
  }
  return gpus;
}

/**
 * The script run on the host (`sh -c`): `nvidia-smi` with the query, or inside a Slurm job's allocation
 * (`srun --jobid=<id> --overlap`: a step that shares the job's GPUs instead of waiting for free ones, so it
 * sees the GPUs the job holds). `command` is `nvidia-smi` unless the caller knows better.
 */
export function sampleScript(command: string, slurmJobId: string | null): string {
  const query = [command, ...GPU_QUERY_ARGS].map(shellQuote).join(' ');
  if (slurmJobId === null) return query;
  return `srun --jobid=${shellQuote(slurmJobId)} --overlap --ntasks=1 --quiet ${query}`;
}

/** What one run of the script says: the GPUs, or why there are none. */
export function readSample(result: HostExecResult): Pick<GpuSample, 'gpus' | 'error'> {
  if (result.code === null) return { gpus: [], error: { kind: 'failed', message: `nvidia-smi did not answer within ${GPU_SAMPLE_TIMEOUT_MS / 1000} s (a hung NVIDIA driver?)` } };
  const said = firstSaid(result);
  if (result.code === 127 || (result.code !== 0 && /not found|no such file/i.test(said))) {
    return { gpus: [], error: { kind: 'no-nvidia-smi', message: said || 'nvidia-smi: command not found' } };
  }
  if (result.code !== 0) return { gpus: [], error: { kind: 'failed', message: said ? `nvidia-smi failed (exit ${result.code}): ${said}` : `nvidia-smi failed (exit ${result.code})` } };
  return { gpus: parseGpuQuery(result.stdout), error: null };
}
