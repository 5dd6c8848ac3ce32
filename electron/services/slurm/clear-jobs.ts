import { AppError } from '../../shared/errors';
import type { SlurmClearResult } from '../../shared/schemas-slurm';
import { removeJobFiles } from '../engines/slurm/slurm-files';
import { isEndedState } from '../engines/slurm/slurm-parse';
import type { SlurmEngine } from '../engines/slurm/slurm-engine';

/**
 * Clears ended jobs from the jobs panel: removes the app's record of each (its folder under ~/.agentswarm/slurm/:
 * script, labels, output; only the output when a newer job of the same profile owns the folder). Only a job known to
 * have ended (a fresh squeue of our names, or the end kept from scontrol); a job queued or running is refused, never
 * cancelled. `jobIds` absent: every ended job with a record.
 */
export async function clearEndedJobs(engine: SlurmEngine, jobIds: readonly string[] | undefined): Promise<SlurmClearResult> {
  // A fresh answer (a user's action): a job submitted since the poll's last answer must show as queued, not as gone.
  const { jobs, records } = await engine.queueWatch.read(0);
  const stateOf = (id: string): string | null => jobs.find((j) => j.id === id)?.state ?? null;
  // A record Slurm no longer lists (and no end kept) has ended too: Slurm forgets only ended jobs.
  const ended = (id: string) => {
    const state = stateOf(id);
    return state === null || isEndedState(state);
  };
  const wanted = jobIds ?? [...records.keys()].filter(ended);
  const active = wanted.filter((id) => records.has(id) && !ended(id));
  if (active.length > 0) {
    throw new AppError('CONTAINER_CONFLICT', `Slurm job ${active.join(', ')} is still ${stateOf(active[0]!)?.toLowerCase()}: cancel it before clearing it.`);
  }
  const cleared: string[] = [];
  try {
    for (const id of wanted) {
      const record = records.get(id);
      if (!record) continue;
      await removeJobFiles(engine.host, id, record.key);
      cleared.push(id);
    }
  } finally {
    engine.queueWatch.recordsChanged();
  }
  return { cleared };
}
