import { AppError, isAppError } from '../../shared/errors';
import type { ContainerEngine, ContainerExecResult, ContainerSpec, GpuRequest } from '../engines/container-engine';
import { CDI_GENERATE } from '../engines/podman-wording';
import { redact } from '../util/redact';

/**
 * After start, a swarm server that asked for GPUs must see them: Podman drops a Docker-API GPU
 * request without an error, and a missing NVIDIA hook leaves a container without a driver. The
 * check runs `nvidia-smi -L` where the server runs (inside its container; on the host for a native
 * server) and counts the GPUs it lists. Fast where it matters: exec of a missing binary answers in
 * about 0.1 s; the timeout is only for a hung driver.
 */
export const GPU_CHECK_COMMAND: readonly string[] = ['nvidia-smi', '-L'];
/** What the doctor allows nvidia-smi too: a driver without persistence mode can take seconds. */
export const GPU_CHECK_TIMEOUT_MS = 15_000;
/** Longest piece of nvidia-smi's text put into an error. */
const MAX_SAID_CHARS = 200;

/** `nvidia-smi -L`: one `GPU n: name (UUID: …)` line per GPU, and indented `MIG …  Device n: (UUID: …)` lines under a GPU in MIG mode. */
export interface NvidiaSmiListing {
  gpus: string[];
  migDevices: string[];
}

export function parseNvidiaSmiList(stdout: string): NvidiaSmiListing {
  const lines = stdout.split(/\r?\n/).map((line) => line.trim());
  return {
    gpus: lines.filter((line) => /^GPU \d+:/.test(line)),
    migDevices: lines.filter((line) => /^MIG\b.*\bDevice\s+\d+:/.test(line)),
  };
}

/** A requested id naming a MIG slice (`MIG-<uuid>`, or `<gpu>:<slice>` as the NVIDIA toolkit takes it), not a whole GPU. */
function isMigId(id: string): boolean {
  return /^MIG-/i.test(id) || /^\d+:\d+$/.test(id);
}

export type GpuVerdict = { ok: true; detail: string } | { ok: false; problem: string };

/** The first line of what the command said that has words in it, capped and redacted: fit for an error message. */
export function firstSaid(result: Pick<ContainerExecResult, 'stdout' | 'stderr'>): string {
  const lines = `${result.stderr}\n${result.stdout}`.split(/\r?\n/).map((line) => line.trim());
  const first = lines.find((line) => /[\p{L}\p{N}]/u.test(line)) ?? '';
  const capped = first.length > MAX_SAID_CHARS ? `${first.slice(0, MAX_SAID_CHARS - 1)}…` : first;
  return redact(capped);
}

function gpuWord(n: number): string {
  return `${n} GPU${n === 1 ? '' : 's'}`;
}

/**
 * Whether `nvidia-smi -L`'s result shows the GPUs `request` asked for. `all` needs at least one
 * GPU. `ids` needs as many GPUs as whole-GPU ids were asked for (the engine renumbers them from 0
 * inside, so only the count and named UUIDs can be compared) and as many MIG devices as MIG ids.
 */
export function judgeGpuCheck(request: GpuRequest, result: ContainerExecResult, timeoutMs = GPU_CHECK_TIMEOUT_MS): GpuVerdict {
  if (request.mode === 'none') return { ok: true, detail: 'no GPUs asked for' };
  if (result.code === null) return { ok: false, problem: `nvidia-smi -L did not answer within ${Math.round(timeoutMs / 1000)} s (a hung NVIDIA driver?)` };
  const said = firstSaid(result);
  if (result.code !== 0) {
    // 126/127: the runtime could not run it (Docker says 126 with "executable file not found").
    const missing = result.code === 126 || result.code === 127 || /not found|no such file/i.test(said);
    const what = missing ? 'nvidia-smi is not there, so the NVIDIA driver was not handed in' : `nvidia-smi -L failed (exit ${result.code})`;
    return { ok: false, problem: said ? `${what}: "${said}"` : what };
  }
  const listing = parseNvidiaSmiList(result.stdout);
  if (listing.gpus.length === 0) {
    return { ok: false, problem: `nvidia-smi -L lists no GPU${said ? `: "${said}"` : ''}` };
  }
  const seen = `${gpuWord(listing.gpus.length)}${listing.migDevices.length > 0 ? ` (${listing.migDevices.length} MIG devices)` : ''}`;
  if (request.mode === 'all') return { ok: true, detail: `sees ${seen}` };
  const migIds = request.ids.filter(isMigId);
  const wholeIds = request.ids.filter((id) => !isMigId(id));
  const uuidsMissing = request.ids.filter((id) => /^(GPU|MIG)-/i.test(id) && !result.stdout.includes(id));
  // A MIG slice shows as its GPU's line plus a MIG line: whole GPUs then number at most the GPU lines.
  const countsMatch =
    migIds.length === 0 ? listing.gpus.length === wholeIds.length : listing.migDevices.length === migIds.length && listing.gpus.length >= wholeIds.length;
  if (!countsMatch || uuidsMissing.length > 0) {
    const asked = `GPU ${request.ids.join(', ')}`;
    const why = uuidsMissing.length > 0 ? `, and not ${uuidsMissing.join(', ')}` : '';
    return { ok: false, problem: `it asked for ${asked} but nvidia-smi -L lists ${seen}${why}` };
  }
  return { ok: true, detail: `sees ${seen}, as asked (GPU ${request.ids.join(', ')})` };
}

/** How each engine product gives a container its GPUs, and so what to fix when it did not. */
const GPU_FIXES: Readonly<Record<string, (where: string) => string>> = {
  podman: (where) =>
    `Podman gives GPUs to containers through CDI: generate a CDI spec on ${where} (${CDI_GENERATE}; "nvidia-ctk cdi list" then shows nvidia.com/gpu devices) and start again.`,
  docker: (where) =>
    `Docker gives GPUs to containers through the NVIDIA Container Toolkit: install it on ${where} and register it with Docker (sudo nvidia-ctk runtime configure --runtime=docker, then restart Docker), so that --gpus hands the container the driver and nvidia-smi.`,
};

/** `podman` or `docker` for the engines whose GPU fix we know; null for others. */
export function gpuProductOf(engine: Pick<ContainerEngine, 'summary' | 'wording'>): string | null {
  if (engine.summary.kind === 'podman') return 'podman';
  const product = engine.wording.product.toLowerCase();
  return product in GPU_FIXES ? product : null;
}

/** GPU_NOT_VISIBLE for a container (or native server) that started without its GPUs and was removed. */
export function gpuNotVisibleError(engine: Pick<ContainerEngine, 'summary' | 'wording' | 'host'>, problem: string, native: boolean, cause?: unknown): AppError {
  const where = engine.host?.label ?? "the engine's host";
  const product = gpuProductOf(engine);
  const fix = native
    ? `Install the NVIDIA driver on ${where} (then nvidia-smi -L lists the GPUs), and start again.`
    : product
      ? GPU_FIXES[product]!(where)
      : engine.wording.noGpuRuntime();
  const subject = native
    ? `The native swarm server on ${engine.summary.label} started without the GPUs it asked for (checked with nvidia-smi -L on ${where})`
    : `The swarm server's container on ${engine.summary.label} (${engine.wording.product}) started without the GPUs it asked for (checked with nvidia-smi -L inside it)`;
  return new AppError(
    'GPU_NOT_VISIBLE',
    `${subject}: ${problem}. It was stopped and removed before it ran any training. ${fix} Or start with GPUs off.`,
    cause === undefined ? undefined : { cause },
  );
}

export type GpuCheckOutcome =
  | { status: 'skipped'; reason: string }
  | { status: 'passed'; detail: string; ms: number }
  | { status: 'failed'; error: AppError; ms: number };

/**
 * Runs the check on a container that just started from `spec`. Never throws: the caller removes a
 * failed container and throws `error`. A container that already exited is `skipped`: it is not
 * GPU-less but crashed, and the monitor reports that crash with its exit code and log.
 */
export async function verifyGpus(
  engine: ContainerEngine,
  containerId: string,
  spec: Pick<ContainerSpec, 'gpus' | 'runtime'> & Partial<Pick<ContainerSpec, 'batch'>>,
  options: { timeoutMs?: number } = {},
): Promise<GpuCheckOutcome> {
  // A scheduler checks what the job was given (a native Slurm job asks for GPUs in its batch options, not in `gpus`).
  if (engine.verifyGpus) return engineGpuCheck(engine, containerId, spec);
  if (spec.gpus.mode === 'none') return { status: 'skipped', reason: 'no GPUs asked for' };
  const native = spec.runtime === 'native';
  const timeoutMs = options.timeoutMs ?? GPU_CHECK_TIMEOUT_MS;
  const started = Date.now();
  let result: ContainerExecResult;
  try {
    // A native server's "inside" is its host: the native engine runs the command there.
    result = await engine.execInContainer(containerId, [...GPU_CHECK_COMMAND], { timeoutMs });
  } catch (error) {
    const running = await engine
      .inspectContainer(containerId)
      .then((c) => c.state === 'running')
      .catch(() => false);
    if (!running) return { status: 'skipped', reason: 'the server ended before its GPUs could be checked (the monitor reports why)' };
    const refused = isAppError(error) ? error.message : String(error);
    return { status: 'failed', error: gpuNotVisibleError(engine, `its GPUs could not be checked, as the engine refused to run nvidia-smi in it (${redact(refused)})`, native, error), ms: Date.now() - started };
  }
  const verdict = judgeGpuCheck(spec.gpus, result, timeoutMs);
  const ms = Date.now() - started;
  return verdict.ok ? { status: 'passed', detail: verdict.detail, ms } : { status: 'failed', error: gpuNotVisibleError(engine, verdict.problem, native), ms };
}

/** The engine's own check (Slurm: the job's allocation), its failure worded with the engine's fix, not Docker's or Podman's. */
async function engineGpuCheck(engine: ContainerEngine, containerId: string, spec: Pick<ContainerSpec, 'gpus' | 'runtime'> & Partial<Pick<ContainerSpec, 'batch'>>): Promise<GpuCheckOutcome> {
  const started = Date.now();
  const outcome = await engine.verifyGpus!(containerId, { gpus: spec.gpus, runtime: spec.runtime, ...(spec.batch === undefined ? {} : { batch: spec.batch }) });
  const ms = Date.now() - started;
  if (outcome.status === 'skipped') return outcome;
  if (outcome.status === 'passed') return { status: 'passed', detail: outcome.detail, ms };
  const error = new AppError('GPU_NOT_VISIBLE', `The swarm server on ${engine.summary.label} started without the GPUs it asked for: ${redact(outcome.problem)}. It was stopped and removed before it ran any training. ${outcome.fix} Or start with GPUs off.`);
  return { status: 'failed', error, ms };
}
