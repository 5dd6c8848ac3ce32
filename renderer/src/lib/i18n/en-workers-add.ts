/** "Add workers" for a pool with Slurm workers (issue 34): more array tasks, the script shown before submission. Keys `workers.addSlurm.*`. */
export const enWorkersAdd = {
  'workers.addSlurm.count': 'More Slurm workers',
  'workers.addSlurm.show': 'Show the Slurm script to add {count}',
  'workers.addSlurm.title': 'Added to this pool: the Slurm job array, as it will be submitted',
  'workers.addSlurm.restarts': '{count} running Slurm worker(s) restart in this array with their smaller share, so the pool never claims more than one batch.',
  'workers.addSlurm.submit': 'Submit and add {count} workers',
} as const;
