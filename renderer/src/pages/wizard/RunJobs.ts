import type { JobKindName, JobViewData } from '../../../../electron/shared/schemas-jobs';

const LIVE = new Set<JobViewData['state']>(['starting', 'running', 'cancelling']);

/** The job still runs (or is being stopped): its outcome is not known yet. */
export function isRunning(job: JobViewData): boolean {
  return LIVE.has(job.state);
}

/** The wizard's newest job of a kind (by start time), or null. */
export function newestJob(jobs: Record<string, JobViewData>, kind: JobKindName): JobViewData | null {
  let newest: JobViewData | null = null;
  for (const job of Object.values(jobs)) {
    if (job.kind === kind && (newest === null || job.startedAt > newest.startedAt)) newest = job;
  }
  return newest;
}

/** A reward as people read it: at most three decimals, no float noise (0.30000000000000004 → 0.3). */
export function rewardText(reward: number): string {
  return String(Math.round(reward * 1000) / 1000);
}
