// slurm:jobs views from a TEST DOUBLE client (squeue, the job folder's files, the output tail are canned, in the
// shapes the real client returns them; the real Slurm runs in test/integration/slurm-ends.spec.ts): whose
// time-limit warning a job shows, and what a job Slurm has forgotten still shows from its output.
import { describe, expect, it } from 'vitest';
import type { SlurmClient } from '../../../../../electron/services/engines/slurm/slurm-client';
import { endFromOutput, slurmJobViews } from '../../../../../electron/services/engines/slurm/slurm-job-views';
import type { SlurmJobRecord } from '../../../../../electron/services/engines/slurm/slurm-state';
import type { SlurmJob } from '../../../../../electron/shared/schemas-slurm';

const NOW = Date.parse('2026-12-04T21:00:00Z');

function job(over: Partial<SlurmJob>): SlurmJob {
  return {
    id: '10', name: 'agentswarm-p1', comment: 'agentswarm profile=p1 app=0.1.0', user: 'swarmtest', partition: 'debug', state: 'RUNNING', reason: null, node: 'vm',
    exitCode: null, signal: null, timeLimitSeconds: 60, timeLeftSeconds: 30, submitTime: '2026-12-04T20:59:00Z', startTime: '2026-12-04T20:59:30Z', endTime: null,
    outputPath: '/home/u/.agentswarm/slurm/agentswarm-p1/out/10.out', gres: null, priority: 1, pendingPosition: null, ...over,
  };
}
const record = (jobId: string, key = 'p1'): SlurmJobRecord => ({ jobId, name: `agentswarm-${key}`, key, labels: { 'io.agentswarm.profile': key, 'io.agentswarm.port': '10086' }, image: 'i', createdAt: '2026-12-04T20:00:00Z' });

type Files = Awaited<ReturnType<SlurmClient['jobFiles']>>;
function sources(jobs: SlurmJob[], records: SlurmJobRecord[], files: Files, tails: Record<string, string[]> = {}, scontrol: Record<string, SlurmJob> = {}) {
  const client = {
    jobFiles: () => Promise.resolve(files),
    outputTail: (path: string) => Promise.resolve(Object.entries(tails).find(([id]) => path.endsWith(`/out/${id}.out`))?.[1] ?? null),
    job: (id: string) => Promise.resolve(scontrol[id] ?? null),
  } as unknown as Pick<SlurmClient, 'jobFiles' | 'outputTail' | 'job'>;
  const answer = () => Promise.resolve({ jobs, records: new Map(records.map((r) => [r.jobId, r])), at: NOW });
  return { engineId: 'ssh-login', answer, client, tails: new Map<string, string[]>() };
}

const endpoint = (jobId: string) => ({ jobId, node: 'vm', host: 'vm', port: 10086, startedAt: null });

describe('the time-limit warning a job shows', () => {
  it("a running job shows its own warning; a pending job never shows the folder's leftover file", async () => {
    const warning = { at: '2026-12-04T20:59:50Z', seconds: 40 };
    const [running] = await slurmJobViews(sources([job({})], [record('10')], { endpoint: endpoint('10'), warning }));
    expect(running).toMatchObject({ id: '10', limitWarning: warning, profileId: 'p1', port: 10086, readAt: new Date(NOW).toISOString() });
    const [pending] = await slurmJobViews(sources([job({ state: 'PENDING', node: null, startTime: null })], [record('10')], { endpoint: null, warning }));
    expect(pending?.limitWarning).toBeNull();
  });

  it("a warning older than the job's start (left by a job killed hard) is not this job's", async () => {
    const stale = { at: '2026-12-04T20:30:00Z', seconds: 40 };
    const [view] = await slurmJobViews(sources([job({})], [record('10')], { endpoint: null, warning: stale }));
    expect(view?.limitWarning).toBeNull();
  });
});

describe('an ended job the queue still lists', () => {
  it("shows its exit code at once: the queue's format has none, so scontrol's answer (kept by the client) fills it", async () => {
    const ended = job({ state: 'TIMEOUT', timeLeftSeconds: null, endTime: '2026-12-04T21:00:31Z' });
    const [view] = await slurmJobViews(sources([ended], [record('10')], { endpoint: null, warning: null }, {}, { '10': { ...ended, exitCode: 0, signal: 15 } }));
    expect(view).toMatchObject({ id: '10', state: 'TIMEOUT', exitCode: 0, signal: 15, profileId: 'p1' });
    // Not ours (no record): left as the queue lists it, no scontrol asked for it.
    const [foreign] = await slurmJobViews(sources([{ ...ended, state: 'RUNNING', endTime: null }], [], { endpoint: null, warning: null }, {}, { '10': { ...ended, exitCode: 0 } }));
    expect(foreign?.exitCode).toBeNull();
  });
});

describe('a job Slurm has forgotten, its folder kept', () => {
  it('shows the end its output tells: TIMEOUT from Slurm\'s line, FAILED with the exit code from the script\'s', async () => {
    const timeout = ['2026-12-04T20:59:50Z [agentswarm] time limit in 40 s: Slurm will stop the server then', 'slurmstepd: error: *** JOB 11 ON vm CANCELLED AT 2026-12-04T21:00:31 DUE TO TIME LIMIT ***', '2026-12-04T21:00:31Z [agentswarm] ajet-swarm exited with code 143'];
    const [view] = await slurmJobViews(sources([], [record('11')], { endpoint: null, warning: null }, { '11': timeout }));
    expect(view).toMatchObject({ id: '11', state: 'TIMEOUT', profileId: 'p1', exitCode: 143, outputTail: timeout, limitWarning: null, outputPath: '~/.agentswarm/slurm/agentswarm-p1/out/11.out' });
    expect(endFromOutput(['bash: line 1: /nonexistent/bin/activate: No such file or directory', '2026-12-04T21:00:00Z [agentswarm] the activate line failed (exit 1)'])).toEqual({ state: 'FAILED', exitCode: 1 });
    expect(endFromOutput(['x [agentswarm] ajet-swarm exited with code 3'])).toEqual({ state: 'FAILED', exitCode: 3 });
    expect(endFromOutput(['slurmstepd: error: *** JOB 12 ON vm CANCELLED AT 2026-12-04T21:00:31 ***'])).toEqual({ state: 'CANCELLED', exitCode: null });
  });

  it("reads an ended job's output once: its tail is kept for every later view", async () => {
    let reads = 0;
    const src = sources([job({ state: 'FAILED', exitCode: 1, timeLeftSeconds: null })], [record('10')], { endpoint: null, warning: null });
    src.client = { ...src.client, outputTail: () => Promise.resolve((reads += 1) && ['Traceback', 'boom']) } as typeof src.client;
    expect((await slurmJobViews(src))[0]?.outputTail).toEqual(['Traceback', 'boom']);
    expect((await slurmJobViews(src))[0]?.outputTail).toEqual(['Traceback', 'boom']);
    expect(reads).toBe(1);
  });

  it('is left out when its output tells nothing (or is gone)', async () => {
    await expect(slurmJobViews(sources([], [record('12')], { endpoint: null, warning: null }, { '12': ['just a line'] }))).resolves.toEqual([]);
    await expect(slurmJobViews(sources([], [record('13')], { endpoint: null, warning: null }))).resolves.toEqual([]);
  });
});
