import type { SlurmJob } from '../../shared/schemas-slurm';
import type { EngineHost } from '../engines/container-engine';
import { SlurmClient } from '../engines/slurm/slurm-client';
import { isEndedState } from '../engines/slurm/slurm-parse';
import { SlurmQueueWatch } from '../engines/slurm/slurm-queue-watch';

/**
 * Where Slurm workers learn their tasks' queue states: the login node's ONE shared queue poll (SlurmQueueWatch, the
 * one the Slurm swarm servers use), never an squeue of their own per task (issue 34: a 4-task array polled every
 * second cost the controller 240 squeues a minute). A pool says which array it wants asked about and reads the newest
 * answer, at most one poll interval old.
 */
export interface SlurmTaskQueue {
  want(name: string, forMs: number): void;
  workerTasks(): Promise<{ tasks: SlurmJob[]; at: number }>;
}

/** What the queue answer says of one task: still queued or running, ended, or not listed at all. */
export type TaskQueueState = 'active' | 'ended' | 'absent';

/** `3`, `0-3`, `0-7:2`, lists of them; a `%N` throttle at the end is dropped. */
function indexesOf(spec: string): Set<number> | null {
  const out = new Set<number>();
  for (const part of spec.replace(/%\d+$/, '').split(',')) {
    const m = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part.trim());
    if (!m) return null;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    const step = m[3] === undefined ? 1 : Math.max(1, Number(m[3]));
    if (to - from > 100_000) return null;
    for (let i = from; i <= to; i += step) out.add(i);
  }
  return out;
}

/** Task `task` of array `arrayId` in an answer: listed as `812_1`, or inside a pending group `812_[1-3]`. */
export function taskQueueState(tasks: readonly SlurmJob[], arrayId: string, task: number): TaskQueueState {
  for (const job of tasks) {
    if (job.id === `${arrayId}_${task}`) return isEndedState(job.state) ? 'ended' : 'active';
    const group = /^(\d+)_\[(.+)\]$/.exec(job.id);
    if (group && group[1] === arrayId && indexesOf(group[2]!)?.has(task)) return isEndedState(job.state) ? 'ended' : 'active';
  }
  return 'absent';
}

/**
 * The shared poll of a login node that is no Slurm engine of the app (an SSH server picked for workers only): made once
 * per server and only read on demand (no timer), so it asks squeue at most once per interval while workers poll, and
 * not at all otherwise.
 */
export function standaloneTaskQueue(host: EngineHost): SlurmQueueWatch {
  let watch: SlurmQueueWatch | null = null;
  const client = new SlurmClient({ exec: (script, o) => host.exec(script, o), host: host.label, jobNames: () => watch!.activeNames() });
  watch = new SlurmQueueWatch({ host, client, now: Date.now });
  return watch;
}
