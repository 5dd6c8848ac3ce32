import type { ContainerState } from '../../../shared/schemas';
import type { SlurmJob } from '../../../shared/schemas-slurm';
import { LABEL_MANAGED, carriesLabels, containerStatusText, type ContainerEvent, type ContainerSummary } from '../container-engine';
import { SLURM_JOB_PREFIX } from './job-script';
import { isEndedState } from './slurm-parse';

/**
 * Pure parts of the Slurm engine: the labels record kept next to each job script, Slurm job states as
 * Docker-style container summaries, and the diff of two polls as Docker-style events. Unit-tested
 * with TEST DOUBLE jobs; the engine (slurm-engine.ts) feeds them real squeue answers.
 */

/** What the engine writes to `~/.agentswarm/slurm/agentswarm-<key>/labels.json` at create (Slurm keeps no labels). */
export interface SlurmJobRecord {
  jobId: string;
  /** The container name the spec asked for. */
  name: string;
  /** The job folder's key: the job is `agentswarm-<key>`, its folder `~/.agentswarm/slurm/agentswarm-<key>`. */
  key: string;
  labels: Record<string, string>;
  /** The spec's image (a native run has none to speak of: kept for display). */
  image: string;
  createdAt: string;
}

/** Separates the records of one `cat` over every job folder. */
export const RECORD_MARK = '@@agentswarm-record';

/** The records in the output of `recordsScript()`, by job id; unreadable ones are skipped (a half-written file cannot be: it is renamed into place). */
export function parseRecords(stdout: string): Map<string, SlurmJobRecord> {
  const records = new Map<string, SlurmJobRecord>();
  for (const chunk of stdout.split(`${RECORD_MARK}\n`)) {
    const text = chunk.trim();
    if (text === '') continue;
    try {
      const r = JSON.parse(text) as Partial<SlurmJobRecord>;
      if (typeof r.jobId !== 'string' || typeof r.key !== 'string' || typeof r.name !== 'string') continue;
      const labels = r.labels && typeof r.labels === 'object' ? Object.fromEntries(Object.entries(r.labels).filter(([, v]) => typeof v === 'string')) : {};
      records.set(r.jobId, { jobId: r.jobId, name: r.name, key: r.key, labels, image: typeof r.image === 'string' ? r.image : '', createdAt: typeof r.createdAt === 'string' ? r.createdAt : new Date(0).toISOString() });
    } catch {
      // Not JSON (edited by hand): that folder's job is not listed as ours.
    }
  }
  return records;
}

/** The folder key of one of our jobs from its name (`agentswarm-<key>`); null for any other job. */
export function keyOfJobName(name: string): string | null {
  return name.startsWith(SLURM_JOB_PREFIX) && name.length > SLURM_JOB_PREFIX.length ? name.slice(SLURM_JOB_PREFIX.length) : null;
}

const RUNNING = new Set(['CONFIGURING', 'RUNNING', 'COMPLETING', 'SIGNALING', 'STAGE_OUT', 'RESIZING']);
const PAUSED = new Set(['SUSPENDED', 'STOPPED']);
const QUEUED = new Set(['PENDING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD']);

/** Slurm's job state as a container state: queued → created, on a node → running, ended → exited. */
export function containerStateOf(slurmState: string): ContainerState {
  if (QUEUED.has(slurmState)) return 'created';
  if (RUNNING.has(slurmState)) return 'running';
  if (PAUSED.has(slurmState)) return 'paused';
  // COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE, …
  return 'exited';
}

/**
 * Docker's exit code for an ended job: the script's code, or 128 + the signal that killed it (a job
 * killed by SIGTERM is 0:15 in Slurm, 143 in Docker's words).
 */
export function exitCodeOf(job: Pick<SlurmJob, 'exitCode' | 'signal'>): number | null {
  if (job.exitCode === null) return null;
  if (job.exitCode === 0 && job.signal) return 128 + job.signal;
  return job.exitCode;
}

/** "queued: Resources (position 2)", "queued: held until started" (sbatch --hold before start). */
export function queuedText(job: Pick<SlurmJob, 'reason' | 'pendingPosition'>): string {
  // A held job has no place in the queue until it is released.
  if (job.reason === 'JobHeldUser') return 'queued: held until started';
  return `queued: ${job.reason ?? 'waiting'}${job.pendingPosition ? ` (position ${job.pendingPosition})` : ''}`;
}

/** Slurm's ends that the scheduler decided, as the engine-neutral names (exit-reason.ts words them; a stop the app asked for stays 'stopped'). */
const SCHEDULER_ENDS: Readonly<Record<string, NonNullable<ContainerSummary['schedulerEnd']>>> = {
  TIMEOUT: 'time-limit',
  NODE_FAIL: 'node-failure',
  PREEMPTED: 'preempted',
  CANCELLED: 'cancelled',
};

export function schedulerEndOf(slurmState: string): ContainerSummary['schedulerEnd'] {
  return SCHEDULER_ENDS[slurmState];
}

/** Labels of a job the app did not create through this engine (no labels file): enough to be ours. */
function fallbackLabels(): Record<string, string> {
  return { [LABEL_MANAGED]: 'true' };
}

/**
 * One job as a container. `job` null: Slurm has forgotten it (MinJobAge after its end) but its folder
 * still holds the record: exited, with what is known (`lastExitCode` read from the output by the caller, or null).
 */
export function toContainerSummary(job: SlurmJob | null, record: SlurmJobRecord | null, now: number, lastExitCode: number | null = null, lastState: string | null = null): ContainerSummary {
  const id = job?.id ?? record!.jobId;
  const base = {
    id,
    name: record?.name ?? job!.name,
    image: record?.image ?? '',
    labels: record?.labels ?? fallbackLabels(),
    createdAt: record?.createdAt ?? job?.submitTime ?? new Date(0).toISOString(),
  };
  if (job === null) {
    // Its output's last lines may still say which end Slurm chose (slurm-job-views.ts endFromOutput): kept across restarts.
    const end = lastState === null ? undefined : schedulerEndOf(lastState);
    const known = { state: 'exited' as const, startedAt: null, finishedAt: null, exitCode: lastExitCode, ...(end ? { schedulerEnd: end } : {}) };
    return { ...base, ...known, oomKilled: false, statusText: `Exited${lastExitCode === null ? '' : ` (${lastExitCode})`}: Slurm no longer lists the job` };
  }
  const state = containerStateOf(job.state);
  const ended = state === 'exited';
  const summary = {
    ...base,
    state,
    startedAt: state === 'created' ? null : job.startTime,
    finishedAt: ended ? job.endTime : null,
    exitCode: ended ? exitCodeOf(job) : null,
    oomKilled: job.state === 'OUT_OF_MEMORY',
    // Only when Slurm ended it: the summaries of other engines (and of other ends) carry no such field.
    ...(ended && schedulerEndOf(job.state) ? { schedulerEnd: schedulerEndOf(job.state) } : {}),
    // Only while it waits: why, and its place (null while held or not known).
    ...(state === 'created' ? { queue: { reason: job.reason, position: job.pendingPosition } } : {}),
  };
  let statusText = state === 'created' ? queuedText(job) : containerStatusText(summary, now);
  if (ended && job.state !== 'COMPLETED') statusText += ` [${job.state}${job.reason ? `: ${job.reason}` : ''}]`;
  return { ...summary, statusText };
}

/**
 * Our jobs at one moment as containers, those carrying every label of `labels` (Docker's label filter): Slurm's jobs
 * with their records, and the kept ends of jobs it no longer lists. An ended job without its record was removed (Slurm
 * still lists it for MinJobAge): gone, as in Docker.
 */
export function summariesOf({ jobs, records }: { jobs: SlurmJob[]; records: Map<string, SlurmJobRecord> }, labels: Record<string, string>, now: number): ContainerSummary[] {
  const listed = jobs.filter((job) => records.has(job.id) || !isEndedState(job.state)).map((job) => toContainerSummary(job, records.get(job.id) ?? null, now));
  const seen = new Set(jobs.map((j) => j.id));
  for (const record of records.values()) if (!seen.has(record.jobId)) listed.push(toContainerSummary(null, record, now));
  return listed.filter((c) => carriesLabels(c.labels, labels));
}

/**
 * What two polls of our jobs tell, as Docker would have reported it: `start` when a job reached a node,
 * `die` (with its exit code; `oom` first when out of memory) when it ended, `destroy` when it left the
 * list (removed). A job that started and ended between two polls gets both `start` and `die`.
 */
export function diffEvents(before: ReadonlyMap<string, ContainerSummary>, after: ReadonlyMap<string, ContainerSummary>, at: number): ContainerEvent[] {
  const events: ContainerEvent[] = [];
  const event = (c: ContainerSummary, action: ContainerEvent['action'], exitCode: number | null = null) =>
    events.push({ containerId: c.id, action, exitCode, at, labels: c.labels });
  for (const [id, now] of after) {
    const was = before.get(id);
    const wasState = was?.state ?? 'created';
    if (now.state === 'running' && wasState !== 'running' && wasState !== 'paused') event(now, 'start');
    if (now.state === 'exited' && wasState !== 'exited' && !(was === undefined && now.startedAt === null && now.exitCode === null)) {
      if (wasState === 'created' && now.startedAt !== null) event(now, 'start');
      if (now.oomKilled) event(now, 'oom');
      event(now, 'die', now.exitCode);
    }
  }
  for (const [id, was] of before) if (!after.has(id)) event(was, 'destroy');
  return events;
}
