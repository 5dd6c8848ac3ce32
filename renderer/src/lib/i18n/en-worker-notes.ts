/**
 * English of a rollout worker's notes (issue 32), worded from the facts the backend sends
 * (WorkerView.notes → `workers.noteSay.<key>`), and where a local worker runs. Spread into `en.ts`;
 * zh-CN-worker-notes.ts has the same keys.
 */
export const enWorkerNotes = {
  'workers.where.local': 'this computer',
  // Between two notes of one worker.
  'workers.noteSeparator': '; ',
  'workers.noteSay.resumed': 'started again: the app was closed while it ran',
  'workers.noteSay.restarted': 'restarted',
  'workers.noteSay.reshared': 'restarted with a share of {share} tasks: the pool now has {workers} active workers',
  'workers.noteSay.keepsShare': 'keeps its share of {share} tasks until it is restarted (the split for {workers} workers gives it {splitShare}; a smaller share never over-claims)',
  'workers.noteSay.reverseTunnel':
    'reaches the swarm server through a reverse tunnel to this computer: every LLM call of this worker crosses this computer and its link to the server (slower; the worker stops feeding when this app or its network goes away)',
  'workers.noteSay.projectThere': 'project {hash} already there',
  'workers.noteSay.projectSent': 'project {hash}: {sent} file(s) sent, {reused} reused',
  'workers.noteSay.slurmTask': 'Slurm array {array}, task {task}',
} as const;
