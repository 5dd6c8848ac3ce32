import type { SlurmJob, SlurmJobView } from '../../../shared/schemas-slurm';
import { LABEL_PORT, LABEL_PROFILE } from '../container-engine';
import { slurmOutputPath } from './job-script';
import type { SlurmClient } from './slurm-client';
import { isEndedState } from './slurm-parse';
import type { SlurmJobRecord } from './slurm-state';

/** Lines of output kept for a job that ended badly: enough for a traceback's end. */
const FAILED_TAIL_LINES = 30;
/** Ended states that need no explanation from the output. */
const PLAIN_ENDS = new Set(['COMPLETED', 'CANCELLED']);

export interface SlurmJobViewSources {
  engineId: string;
  client: Pick<SlurmClient, 'jobs' | 'jobFiles' | 'outputTail'>;
  records: () => Promise<Map<string, SlurmJobRecord>>;
  now: () => number;
}

/**
 * The app's jobs as the Slurm server card shows them: Slurm's view (state, reason, position, node, time
 * left, GPUs) with what the job's folder adds (profile and port labels, the time-limit warning, the
 * output's tail for a job that ended badly). A removed job (no labels file, already ended) is left out,
 * as the container list leaves it out. One squeue, one exec for the labels, one per active or failed job.
 */
export async function slurmJobViews(sources: SlurmJobViewSources): Promise<SlurmJobView[]> {
  const [jobs, records] = await Promise.all([sources.client.jobs(), sources.records()]);
  const readAt = new Date(sources.now()).toISOString();
  const shown = jobs.filter((job) => records.has(job.id) || !isEndedState(job.state));
  return Promise.all(shown.map((job) => viewOf(sources, job, records.get(job.id) ?? null, readAt)));
}

async function viewOf(sources: SlurmJobViewSources, job: SlurmJob, record: SlurmJobRecord | null, readAt: string): Promise<SlurmJobView> {
  const key = record?.key ?? null;
  const ended = isEndedState(job.state);
  const port = Number(record?.labels[LABEL_PORT]);
  // The warning file belongs to the folder's newest job: only this job's if the folder is this job's.
  const files = key && !ended ? await sources.client.jobFiles(key).catch(() => null) : null;
  const ownWarning = files?.endpoint?.jobId === job.id || files?.endpoint === null ? (files?.warning ?? null) : null;
  const outputTail =
    ended && !PLAIN_ENDS.has(job.state) && key ? ((await sources.client.outputTail(job.outputPath ?? slurmOutputPath(key, job.id), FAILED_TAIL_LINES).catch(() => null)) ?? []) : [];
  return {
    ...job,
    engineId: sources.engineId,
    profileId: record?.labels[LABEL_PROFILE] ?? null,
    port: Number.isInteger(port) ? port : null,
    limitWarning: ownWarning,
    outputTail,
    readAt,
  };
}
