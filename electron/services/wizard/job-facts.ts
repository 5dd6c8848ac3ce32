import type { JobViewData } from '../../shared/schemas-jobs';
import type { WizardFactsData, PendingJobData } from './wizard-facts';
import { clearStale } from './wizard-steps';

const ENDED = new Set<JobViewData['state']>(['succeeded', 'failed', 'cancelled']);

export function hasEnded(job: JobViewData): boolean {
  return ENDED.has(job.state);
}

/** A number the script reported as its reward, from a run that succeeded; else null. */
function rewardOf(job: JobViewData): number | null {
  const reward = job.result?.reward;
  if (isPlaceholder(job.result?.raw)) return null;
  return job.state === 'succeeded' && typeof reward === 'number' && Number.isFinite(reward) ? reward : null;
}

/**
 * The scaffolded episode runner with no agent command yet answers reward 0 marked `"placeholder": true`
 * (the debug script passes it on in `metadata`): no agent ran, so it proves nothing and completes no step.
 */
function isPlaceholder(raw: Record<string, unknown> | undefined): boolean {
  if (!raw) return false;
  const metadata = raw.metadata;
  return raw.placeholder === true || (typeof metadata === 'object' && metadata !== null && (metadata as Record<string, unknown>).placeholder === true);
}

/**
 * Records what an ended job proved. The newest run decides: a test that fails after one that
 * passed takes the fact away (the files as they are now do not pass), and the job's own view
 * (log, traceback) says why. Returns the facts without the job in `pending`.
 */
export function recordJobEnd(facts: WizardFactsData, pending: PendingJobData, job: JobViewData): WizardFactsData {
  let next: WizardFactsData = { ...facts, pending: facts.pending.filter((p) => p.jobId !== pending.jobId) };
  const at = job.endedAt ?? new Date().toISOString();
  switch (pending.purpose) {
    case 'dataset': {
      if (!next.project) return next;
      const count = job.state === 'succeeded' ? (job.result?.count ?? null) : null;
      const dataset = count !== null && count >= 1 ? { jobId: job.id, count, first: job.result?.items ?? [], at } : null;
      return { ...next, project: { ...next.project, dataset } };
    }
    case 'episode': {
      if (!next.project) return next;
      const reward = rewardOf(job);
      const episode = reward === null ? null : { jobId: job.id, itemId: pending.itemId ?? '', reward, durationMs: Math.round(job.durationMs ?? 0), at };
      next = { ...next, project: { ...next.project, episode } };
      // A reward with the LLM as it is now: the project step is current again.
      return episode && next.project?.dataset ? clearStale(next, 'project') : next;
    }
    case 'debug': {
      const reward = rewardOf(job);
      const choice = pending.choice ?? next.swarm?.choice ?? { kind: 'dry-run' as const };
      next = { ...next, debug: { jobId: job.id, choice, reward, passed: reward !== null, at } };
      return reward !== null ? clearStale(next, 'debug') : next;
    }
    case 'train':
      // Started is the fact (recorded at start); its progress is the dashboard's.
      return next;
  }
}
