import type { SlurmJob } from '../../../shared/schemas-slurm';
import { isEndedState } from './slurm-parse';

/*
 * What `SlurmEngine.startContainer` waits for after `scontrol release`, as pure decisions. A job on a real
 * cluster may queue for hours, so start waits only briefly: a job still queued (or running but without its
 * endpoint yet) is kept and start returns; the swarm services adopt it when it runs. Only a job Slurm will
 * never run is given up (cancelled and removed), as a failed release is.
 */

/** Pending reasons that do not clear by waiting: the job as submitted cannot run on this cluster (squeue(1), "JOB REASON CODES"). */
const NEVER_RUNS = new Set(['BadConstraints', 'PartitionNodeLimit', 'PartitionTimeLimit', 'InvalidAccount', 'InvalidQOS']);

export function neverRuns(reason: string | null): boolean {
  return reason !== null && NEVER_RUNS.has(reason);
}

export type StartProgress =
  /** RUNNING and its server has written the endpoint: reachable now. */
  | { kind: 'serving' }
  /** Ended at once: kept, like a container that exits right after `docker start` (its exit code and output show). */
  | { kind: 'ended' }
  /** Slurm will not run it (or no longer lists it): the start failed. */
  | { kind: 'rejected'; why: string }
  /** Queued, or running without its endpoint yet: kept, adopted when it serves. */
  | { kind: 'waiting'; why: string };

/** One look at the released job: `endpointIsOurs` when its folder's endpoint file names this job. */
export function startProgress(job: SlurmJob | null, endpointIsOurs: boolean): StartProgress {
  if (job === null) return { kind: 'rejected', why: 'Slurm no longer lists it' };
  if (isEndedState(job.state)) return { kind: 'ended' };
  if (job.state === 'RUNNING') return endpointIsOurs ? { kind: 'serving' } : { kind: 'waiting', why: 'it runs, its server has not chosen a port yet' };
  if (job.state === 'PENDING' && neverRuns(job.reason)) return { kind: 'rejected', why: `Slurm will not run it as submitted: ${job.reason}` };
  return { kind: 'waiting', why: `${job.state.toLowerCase()}${job.reason ? `: ${job.reason}` : ''}` };
}

export interface StartWait {
  /**
   * The job as Slurm lists it now, and whether its endpoint file is its own (asked only when it runs); or `unknown`
   * (why) when asking failed: that is waiting, never a reason to give the job up.
   */
  look: () => Promise<{ job: SlurmJob | null; endpointIsOurs: boolean } | { unknown: string }>;
  waitMs: number;
  pollMs: number;
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Looks at most this far apart: each look is a controller request. */
const MAX_POLL_MS = 4000;

/** Looks until the job serves, ended, is rejected, or `waitMs` passed (then the last `waiting`); `pollMs`, then twice as long each time. */
export async function waitForStart(wait: StartWait): Promise<StartProgress> {
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = wait.now() + wait.waitMs;
  for (let pause = wait.pollMs; ; pause = Math.min(MAX_POLL_MS, pause * 2)) {
    const seen = await wait.look();
    const progress: StartProgress = 'unknown' in seen ? { kind: 'waiting', why: seen.unknown } : startProgress(seen.job, seen.endpointIsOurs);
    if (progress.kind !== 'waiting' || wait.now() >= deadline) return progress;
    await sleep(Math.max(0, Math.min(pause, deadline - wait.now())));
  }
}
