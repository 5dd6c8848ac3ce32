import { describe, expect, it } from 'vitest';
import { neverRuns, startProgress, waitForStart } from '../../../../../electron/services/engines/slurm/slurm-start';
import type { SlurmJob } from '../../../../../electron/shared/schemas-slurm';

/** TEST DOUBLE job: only the fields the start decision reads matter. */
function job(state: string, reason: string | null = null): SlurmJob {
  return {
    id: '41', name: 'agentswarm-p1', comment: null, user: 'alice', partition: 'debug', state, reason, node: state === 'PENDING' ? null : 'vm',
    exitCode: null, signal: null, timeLimitSeconds: 600, timeLeftSeconds: 600, submitTime: null, startTime: null, endTime: null,
    outputPath: null, gres: 'gres:gpu:1', priority: 1, pendingPosition: state === 'PENDING' ? 1 : null,
  };
}

describe('what start makes of a released Slurm job', () => {
  it('serving once RUNNING with its own endpoint; running without it waits', () => {
    expect(startProgress(job('RUNNING'), true)).toEqual({ kind: 'serving' });
    expect(startProgress(job('RUNNING'), false)).toEqual({ kind: 'waiting', why: 'it runs, its server has not chosen a port yet' });
  });

  it('queued with a reason that clears by waiting: waiting, with the reason', () => {
    expect(startProgress(job('PENDING', 'Resources'), false)).toEqual({ kind: 'waiting', why: 'pending: Resources' });
    expect(startProgress(job('PENDING', 'QOSMaxGRESPerUser'), false).kind).toBe('waiting');
    expect(startProgress(job('CONFIGURING'), false)).toEqual({ kind: 'waiting', why: 'configuring' });
  });

  it('a reason that never clears, or a job Slurm forgot: rejected; an ended job: kept as ended', () => {
    expect(startProgress(job('PENDING', 'PartitionTimeLimit'), false)).toEqual({ kind: 'rejected', why: 'Slurm will not run it as submitted: PartitionTimeLimit' });
    expect(startProgress(null, false)).toEqual({ kind: 'rejected', why: 'Slurm no longer lists it' });
    expect(startProgress(job('FAILED', 'NonZeroExitCode'), false)).toEqual({ kind: 'ended' });
    expect(neverRuns(null)).toBe(false);
    expect(neverRuns('Priority')).toBe(false);
  });

  it('waits until serving, or gives the last waiting once the time is up', async () => {
    let t = 0;
    const looks = [job('PENDING', 'Resources'), job('RUNNING'), job('RUNNING')];
    let n = 0;
    const serving = await waitForStart({
      look: () => { const j = looks[Math.min(n, looks.length - 1)]!; n += 1; return Promise.resolve({ job: j, endpointIsOurs: n >= 3 }); },
      waitMs: 10_000, pollMs: 1000, now: () => t, sleep: (ms) => { t += ms; return Promise.resolve(); },
    });
    expect(serving).toEqual({ kind: 'serving' });
    expect(n).toBe(3);

    t = 0;
    let asked = 0;
    const pauses: number[] = [];
    const timedOut = await waitForStart({
      look: () => { asked += 1; return Promise.resolve({ job: job('PENDING', 'Resources'), endpointIsOurs: false }); },
      waitMs: 12_000, pollMs: 500, now: () => t, sleep: (ms) => { pauses.push(ms); t += ms; return Promise.resolve(); },
    });
    expect(timedOut).toEqual({ kind: 'waiting', why: 'pending: Resources' });
    // Twice as long each time (each look is a controller request), at most 4 s, and never past the deadline.
    expect(pauses).toEqual([500, 1000, 2000, 4000, 4000, 500]);
    expect(asked).toBe(7);
  });

  it('a look that could not ask Slurm is waiting (never a reason to give the job up), and the next look decides', async () => {
    let t = 0;
    let n = 0;
    const looks = [{ unknown: 'Slurm did not answer about it (Socket timed out)' }, { job: job('RUNNING'), endpointIsOurs: true }];
    const progress = await waitForStart({
      look: () => Promise.resolve(looks[Math.min(n++, looks.length - 1)]!),
      waitMs: 10_000, pollMs: 500, now: () => t, sleep: (ms) => { t += ms; return Promise.resolve(); },
    });
    expect(progress).toEqual({ kind: 'serving' });
    t = 0;
    const unknownToTheEnd = await waitForStart({
      look: () => Promise.resolve(looks[0]!),
      waitMs: 1000, pollMs: 500, now: () => t, sleep: (ms) => { t += ms; return Promise.resolve(); },
    });
    expect(unknownToTheEnd).toEqual({ kind: 'waiting', why: 'Slurm did not answer about it (Socket timed out)' });
  });
});
