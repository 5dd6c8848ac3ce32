import type { SlurmJob } from '../../../../../electron/shared/schemas-slurm';

// TEST DOUBLE output: jobs as Slurm 22.05's `squeue -o SQUEUE_FORMAT` prints them (`%i|%j|%u|%P|%T|%r|%N|%l|%L|%V|%S|%e|%Q|%b|%k`,
// SLURM_TIME_FORMAT=%s), the shape of test/unit/services/engines/slurm/fixtures/squeue-o-22.05.txt.

const epoch = (iso: string | null) => (iso ? String(Math.round(Date.parse(iso) / 1000)) : 'N/A');
const clock = (seconds: number | null) => (seconds === null ? 'UNLIMITED' : `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`);

export function squeueLine(job: SlurmJob): string {
  return [
    job.id,
    job.name,
    job.user ?? 'N/A',
    job.partition ?? 'N/A',
    job.state,
    job.reason ?? 'None',
    job.node ?? '',
    clock(job.timeLimitSeconds),
    clock(job.timeLeftSeconds),
    epoch(job.submitTime),
    epoch(job.startTime),
    epoch(job.endTime),
    job.priority ?? 0,
    job.gres ?? 'N/A',
    job.comment ?? '(null)',
  ].join('|');
}

export function squeueOutput(jobs: SlurmJob[]): string {
  return jobs.map((j) => `${squeueLine(j)}\n`).join('');
}

/** `-o` lines as `squeue -O SQUEUE_FIELDS_LONG` prints them: tres-per-job before the comment, a `|` after each field. */
export function asLong(oLines: string, perJob = 'N/A'): string {
  return oLines
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const parts = l.split('|');
      parts.splice(14, 0, perJob);
      return `${parts.join('|')}|\n`;
    })
    .join('');
}
