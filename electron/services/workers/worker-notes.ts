import type { WorkerNote } from '../../shared/schemas-workers';

/**
 * What the user should know about a worker's start, as data (issue 32): the renderer words each note
 * with `workers.noteSay.<key>` from `params`; the English here is the `note` line kept for the app
 * log, tests and a renderer of before. One place for both, so the two never say different things.
 */
export function workerNote(key: WorkerNote['key'], params: WorkerNote['params'] = {}): WorkerNote {
  return { key, params };
}

const ENGLISH: Record<WorkerNote['key'], (p: WorkerNote['params']) => string> = {
  resumed: () => 'started again: the app was closed while it ran',
  restarted: () => 'restarted',
  reshared: (p) => `restarted with a share of ${p.share} tasks: the pool now has ${p.workers} active workers`,
  keepsShare: (p) => `keeps its share of ${p.share} tasks until it is restarted (the split for ${p.workers} workers gives it ${p.splitShare}; a smaller share never over-claims)`,
  reverseTunnel: () =>
    'reaches the swarm server through a reverse tunnel to this computer: every LLM call of this worker crosses this computer and its link to the server (slower; the worker stops feeding when this app or its network goes away)',
  projectThere: (p) => `project ${p.hash} already there`,
  projectSent: (p) => `project ${p.hash}: ${p.sent} file(s) sent, ${p.reused} reused`,
  slurmTask: (p) => `Slurm array ${p.array}, task ${p.task}`,
};

/** One note in English. */
export function noteText(note: WorkerNote): string {
  return ENGLISH[note.key](note.params);
}

/** The notes as the one English line of `note` ('; '-joined), null when there are none. */
export function notesLine(notes: readonly WorkerNote[]): string | null {
  return notes.length === 0 ? null : notes.map(noteText).join('; ');
}

/** The project copy's outcome as a note. */
export function projectNote(copy: { complete: boolean; hash: string; sent: number; reused: number }): WorkerNote {
  return copy.complete ? workerNote('projectThere', { hash: copy.hash }) : workerNote('projectSent', { hash: copy.hash, sent: copy.sent, reused: copy.reused });
}
