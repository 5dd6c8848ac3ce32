import type { DiskReading, GpuReading, GpuSample } from '../../shared/schemas-fleet';
import { hostPathWord } from '../doctor/check-kit';
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

/** Marks where one folder's `df -P` begins in the script's output (nvidia-smi's CSV never holds it). */
const DF_FENCE = '@@agentswarm-df';

/** A folder as a sh word: `~` and `~/x` from the home folder (a quoted `~` would not expand), anything else quoted. */
function folderWord(path: string): string {
  return path === '~' ? '"$HOME"' : hostPathWord(path);
}

/**
 * The script run on the host (`sh -c`): `nvidia-smi` with the query, or inside a Slurm job's allocation
 * (`srun --jobid=<id> --overlap`: a step that shares the job's GPUs instead of waiting for free ones, so it
 * sees the GPUs the job holds). `command` is `nvidia-smi` unless the caller knows better.
 *
 * `folders`: the checkpoint and experiment folders of the servers there, whose disks are read in the same visit
 * (`df -P` each, after a fence line; issue 33's disk alert costs no extra connection or round trip). The script
 * still ends with nvidia-smi's exit code, which says whether the GPUs were read. Without folders it is the query alone.
 */
export function sampleScript(command: string, slurmJobId: string | null, folders: readonly string[] = []): string {
  const query = [command, ...GPU_QUERY_ARGS].map(shellQuote).join(' ');
  const script = folders.length === 0 ? query : [`${query}`, 'rc=$?', ...folders.map((f, i) => `echo ${DF_FENCE} ${i}; df -P ${folderWord(f)} 2>/dev/null`), 'exit $rc'].join('\n');
  if (slurmJobId === null) return script;
  const inside = folders.length === 0 ? script : `sh -c ${shellQuote(script)}`;
  return `srun --jobid=${shellQuote(slurmJobId)} --overlap --ntasks=1 --quiet ${inside}`;
}

/** The disks of `folders` from the script's output: each folder's `df -P` after its fence, null where it said nothing readable. */
export function readDisks(stdout: string, folders: readonly string[]): DiskReading[] {
  const parts = stdout.split(`${DF_FENCE} `).slice(1);
  const byIndex = new Map(parts.map((part) => [Number(part.slice(0, part.indexOf('\n'))), part.slice(part.indexOf('\n') + 1)]));
  return folders.map((path, i) => ({ path, usedPct: parseDfPercent(byIndex.get(i) ?? '') }));
}

/** `df -P <dir>`'s use of the folder's file system, in percent; null when it said nothing readable. */
export function parseDfPercent(stdout: string): number | null {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const match = /\s(\d{1,3})%\s/.exec(`${line} `);
  return match ? Number(match[1]) : null;
}

/** What one run of the script says: the GPUs, or why there are none; and the folders' disks when asked. */
export function readSample(result: HostExecResult, folders: readonly string[] = []): Pick<GpuSample, 'gpus' | 'error' | 'disks'> {
  const disks = folders.length > 0 ? { disks: readDisks(result.stdout, folders) } : {};
  const gpuPart = { ...result, stdout: result.stdout.split(`${DF_FENCE} `)[0] ?? '' };
  return { ...readGpus(gpuPart), ...disks };
}

function readGpus(result: HostExecResult): Pick<GpuSample, 'gpus' | 'error'> {
  if (result.code === null) return { gpus: [], error: { kind: 'failed', message: `nvidia-smi did not answer within ${GPU_SAMPLE_TIMEOUT_MS / 1000} s (a hung NVIDIA driver?)` } };
  const said = firstSaid(result);
  if (result.code === 127 || (result.code !== 0 && /not found|no such file/i.test(said))) {
    return { gpus: [], error: { kind: 'no-nvidia-smi', message: said || 'nvidia-smi: command not found' } };
  }
  if (result.code !== 0) return { gpus: [], error: { kind: 'failed', message: said ? `nvidia-smi failed (exit ${result.code}): ${said}` : `nvidia-smi failed (exit ${result.code})` } };
  return { gpus: parseGpuQuery(result.stdout), error: null };
}
