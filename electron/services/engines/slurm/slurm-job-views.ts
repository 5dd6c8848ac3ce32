import type { SlurmJob, SlurmJobView } from '../../../shared/schemas-slurm';
import { LABEL_PORT, LABEL_PROFILE } from '../container-engine';
import { JOB_LINE_MARK, slurmJobName, slurmOutputPath } from './job-script';
import type { SlurmClient } from './slurm-client';
import { isEndedState } from './slurm-parse';
import type { SlurmQueueAnswer } from './slurm-queue-watch';
import { containerStateOf, type SlurmJobRecord } from './slurm-state';

/** Lines of output kept for a job that ended badly: enough for a traceback's end. */
const FAILED_TAIL_LINES = 30;
/** Ended states that need no explanation from the output. */
const PLAIN_ENDS = new Set(['COMPLETED', 'CANCELLED']);
/** The node's clock and the controller's may differ a little: a warning this much before the start is still the job's. */
const CLOCK_SLACK_MS = 5000;
/** Slurm's own line in the output when it ends a job: `*** JOB 12 ON vm CANCELLED AT 2026-… DUE TO TIME LIMIT ***`. */
const SLURM_END_LINE = /\*\*\* JOB \d+ ON \S+ CANCELLED AT \S+(?: DUE TO (TIME LIMIT|PREEMPTION|NODE FAILURE))?/;
const SCRIPT_EXIT_LINE = new RegExp(`\\${JOB_LINE_MARK.slice(0, -1)}\\] (?:ajet-swarm|the container) exited with code (\\d+)`);
/** Lines the job script writes just before it gives up (exit 1, or 127 when ajet-swarm is missing). */
const SCRIPT_FAILURE_LINE = new RegExp(`\\${JOB_LINE_MARK.slice(0, -1)}\\] (?:the activate line failed|ajet-swarm is not on PATH|no free port|cannot enter the working folder|podman run failed)`);

export interface SlurmJobViewSources {
  engineId: string;
  /** The queue poll's newest answer (slurm-queue-watch.ts): no squeue of its own. */
  answer: () => Promise<SlurmQueueAnswer>;
  client: Pick<SlurmClient, 'jobFiles' | 'outputTail' | 'job'>;
  /** Output tails of badly ended jobs already read, by job id (an ended job's output does not change). */
  tails: Map<string, string[]>;
}

/**
 * The app's jobs as the Slurm server card shows them: Slurm's view (state, reason, position, node, time
 * left, GPUs) with what the job's folder adds (profile and port labels, the time-limit warning, the
 * output's tail for a job that ended badly). A removed job (no labels file, already ended) is left out,
 * as the container list leaves it out. A job Slurm has forgotten (MinJobAge after its end) whose folder
 * is kept is shown with the end its output tells (see `endFromOutput`), as long as the output tells one.
 * The queue poll's answer (no squeue), one exec per running job (its warning file), one per badly ended job once.
 */
export async function slurmJobViews(sources: SlurmJobViewSources): Promise<SlurmJobView[]> {
  const { jobs, records, at } = await sources.answer();
  // Time left counts from when Slurm was asked, not from now.
  const readAt = new Date(at).toISOString();
  const shown = jobs.filter((job) => records.has(job.id) || !isEndedState(job.state));
  const listed = new Set(jobs.map((j) => j.id));
  const forgotten = [...records.values()].filter((r) => !listed.has(r.jobId));
  const [views, remembered] = await Promise.all([
    Promise.all(shown.map((job) => viewOf(sources, job, records.get(job.id) ?? null, readAt))),
    Promise.all(forgotten.map((record) => forgottenView(sources, record, readAt))),
  ]);
  return [...views, ...remembered.filter((v): v is SlurmJobView => v !== null)];
}

async function viewOf(sources: SlurmJobViewSources, listedJob: SlurmJob, record: SlurmJobRecord | null, readAt: string): Promise<SlurmJobView> {
  const key = record?.key ?? null;
  const ended = isEndedState(listedJob.state);
  // The queue's format has no exit code: an ended job of ours is asked once with scontrol (kept by the client, shared
  // with the engine's own ask), so the panel never shows an end without its code while the engine's poll catches up.
  const job = ended && record && listedJob.exitCode === null ? ((await sources.client.job(listedJob.id).catch(() => null)) ?? listedJob) : listedJob;
  // Only a job on its node can have been warned (a pending one would show the previous job's leftover file).
  const files = key && containerStateOf(job.state) === 'running' ? await sources.client.jobFiles(key).catch(() => null) : null;
  const outputTail = ended && !PLAIN_ENDS.has(job.state) && key ? await endedTail(sources, job.id, job.outputPath ?? slurmOutputPath(key, job.id)) : [];
  return { ...job, ...labelsOf(sources, record), limitWarning: files ? ownWarning(job, files) : null, outputTail, readAt };
}

/** The output's end of an ended job: read once, then kept (a failed read is tried again next time). */
async function endedTail(sources: SlurmJobViewSources, jobId: string, path: string): Promise<string[]> {
  const kept = sources.tails.get(jobId);
  if (kept) return kept;
  const tail = await sources.client.outputTail(path, FAILED_TAIL_LINES).catch(() => undefined);
  if (tail === undefined) return [];
  sources.tails.set(jobId, tail ?? []);
  return tail ?? [];
}

/**
 * The warning file belongs to the folder's newest job: this job's only if the endpoint is this job's
 * (or not written yet) and the warning came after this job started (a job killed hard leaves its file).
 */
function ownWarning(job: SlurmJob, files: Awaited<ReturnType<SlurmClient['jobFiles']>>): SlurmJobView['limitWarning'] {
  if (!files.warning) return null;
  if (files.endpoint !== null && files.endpoint.jobId !== job.id) return null;
  const started = job.startTime ? Date.parse(job.startTime) : NaN;
  if (Number.isFinite(started) && Date.parse(files.warning.at) < started - CLOCK_SLACK_MS) return null;
  return files.warning;
}

function labelsOf(sources: SlurmJobViewSources, record: SlurmJobRecord | null): Pick<SlurmJobView, 'engineId' | 'profileId' | 'port'> {
  const port = Number(record?.labels[LABEL_PORT]);
  return { engineId: sources.engineId, profileId: record?.labels[LABEL_PROFILE] ?? null, port: Number.isInteger(port) ? port : null };
}

/**
 * How a job ended, from the last lines of its output: Slurm's own `*** JOB … CANCELLED AT … ***` line
 * (with DUE TO TIME LIMIT / PREEMPTION / NODE FAILURE), else the job script's exit line, else one of the
 * script's failure lines. null when the output tells nothing (then the job is left out, as before).
 */
export function endFromOutput(tail: readonly string[]): { state: string; exitCode: number | null } | null {
  const newest = (pattern: RegExp) => [...tail].reverse().map((line) => pattern.exec(line)).find((m) => m !== null) ?? null;
  // The script's exit line follows Slurm's (the server's answer to Slurm's SIGTERM): Slurm's says why.
  const slurm = newest(SLURM_END_LINE);
  const exited = newest(SCRIPT_EXIT_LINE);
  const exitCode = exited ? Number(exited[1]) : null;
  if (slurm) {
    const why = slurm[1];
    return { state: why === 'TIME LIMIT' ? 'TIMEOUT' : why === 'PREEMPTION' ? 'PREEMPTED' : why === 'NODE FAILURE' ? 'NODE_FAIL' : 'CANCELLED', exitCode };
  }
  if (exited) return { state: exitCode === 0 ? 'COMPLETED' : 'FAILED', exitCode };
  const failure = newest(SCRIPT_FAILURE_LINE);
  if (failure) return { state: 'FAILED', exitCode: /ajet-swarm is not on PATH/.test(failure[0]) ? 127 : 1 };
  return null;
}

/** A job Slurm no longer lists, its folder kept: what its record and output still tell. */
async function forgottenView(sources: SlurmJobViewSources, record: SlurmJobRecord, readAt: string): Promise<SlurmJobView | null> {
  const outputPath = slurmOutputPath(record.key, record.jobId);
  const tail = await endedTail(sources, record.jobId, outputPath);
  const end = endFromOutput(tail);
  if (!end) return null;
  const job: SlurmJob = {
    id: record.jobId,
    name: slurmJobName(record.key),
    comment: null,
    user: null,
    partition: null,
    state: end.state,
    // Slurm's reason is gone with the job; the output is the only witness left.
    reason: null,
    node: null,
    exitCode: end.exitCode,
    signal: null,
    timeLimitSeconds: null,
    timeLeftSeconds: null,
    submitTime: record.createdAt,
    startTime: null,
    endTime: null,
    outputPath,
    gres: null,
    priority: null,
    pendingPosition: null,
  };
  return { ...job, ...labelsOf(sources, record), limitWarning: null, outputTail: PLAIN_ENDS.has(end.state) ? [] : tail, readAt };
}
