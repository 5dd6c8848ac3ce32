// Parsers of squeue --json, the squeue -o fallback and scontrol -o, against REAL output of the test bed's
// Slurm 22.05.8 (fixtures/README.md says what each job is), plus the object forms newer versions print.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeWaitStatus,
  expandOutputPattern,
  isAppJob,
  parseKillWait,
  parseNodeAddr,
  parseScontrolJob,
  parseScontrolRecord,
  parseSlurmDuration,
  parseSqueueJson,
  parseSqueueLines,
  withPendingPositions,
} from '../../../../../electron/services/engines/slurm/slurm-parse';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const HOME = '/work/testbed-shared/home/swarmtest';
/** Two seconds after jobs 36 and 37 started (their start_time 1796412044). */
const NOW = 1796412046_000;

describe('squeue --json (22.05, openapi v0.0.38)', () => {
  const all = parseSqueueJson(fixture('squeue-22.05.json'), NOW);
  const byId = new Map(all.map((j) => [j.id, j]));

  it('lists every job of every state, ours among them only by name AND comment AND user', () => {
    expect(all.map((j) => j.id)).toEqual(expect.arrayContaining(['21', '35', '36', '37', '38', '39', '40', '41']));
    const ours = all.filter((j) => isAppJob(j, 'swarmtest')).map((j) => j.id);
    expect(ours).toEqual(expect.arrayContaining(['35', '36', '37', '38', '39', '41']));
    expect(ours).not.toContain('40'); // same name, no comment: a job the user made by hand
    expect(ours).not.toContain('21'); // the test bed's own job
    expect(all.filter((j) => isAppJob(j, 'someone-else'))).toEqual([]);
  });

  it('a running job: node, GPUs, limit, time left, output path expanded', () => {
    expect(byId.get('36')).toEqual({
      id: '36',
      name: 'agentswarm-fixture-a',
      comment: 'agentswarm profile=fixture-a app=0.1.0',
      user: 'swarmtest',
      partition: 'debug',
      state: 'RUNNING',
      reason: null,
      node: 'vm',
      exitCode: null,
      signal: null,
      timeLimitSeconds: 600,
      timeLeftSeconds: 598,
      submitTime: '2026-12-04T19:20:42.000Z',
      startTime: '2026-12-04T19:20:44.000Z',
      endTime: '2026-12-04T19:30:44.000Z',
      outputPath: `${HOME}/.agentswarm/slurm/agentswarm-fixture-a/out/36.out`,
      gres: 'gres:gpu:1',
      priority: 4294901724,
      pendingPosition: null,
    });
    // --gpus=fake:1 is a per-job TRES.
    expect(byId.get('37')).toMatchObject({ state: 'RUNNING', gres: 'gres:gpu:fake:1' });
  });

  it('ended jobs: the exit code and signal from the raw wait status, the reason', () => {
    expect(byId.get('35')).toMatchObject({ state: 'FAILED', reason: 'NonZeroExitCode', exitCode: 127, signal: 0, timeLeftSeconds: null });
    expect(byId.get('19')).toMatchObject({ state: 'CANCELLED', exitCode: 143, signal: 0 });
    // Killed by SIGTERM before it could exit (0:15 in scontrol).
    expect(byId.get('23')).toMatchObject({ state: 'CANCELLED', exitCode: 0, signal: 15 });
    // Refused by sbatch but listed anyway (0:1 in scontrol).
    expect(byId.get('41')).toMatchObject({ state: 'FAILED', reason: 'BadConstraints', node: null, gres: 'gres:gpu:3' });
  });

  it('pending jobs: the reason, the whole limit as time left, and their place in the queue', () => {
    expect(byId.get('38')).toMatchObject({ state: 'PENDING', reason: 'Resources', node: null, startTime: null, timeLimitSeconds: 86400, timeLeftSeconds: 86400 });
    const ours = withPendingPositions(all.filter((j) => isAppJob(j, 'swarmtest')), all);
    expect(ours.find((j) => j.id === '38')?.pendingPosition).toBe(1);
    expect(ours.find((j) => j.id === '39')?.pendingPosition).toBe(2);
    expect(ours.find((j) => j.id === '36')?.pendingPosition).toBeNull();
  });

  it('no limit (the partition is INFINITE) is null, not zero', () => {
    expect(byId.get('21')).toMatchObject({ timeLimitSeconds: null, state: 'COMPLETED', exitCode: 0 });
  });

  it('refuses what is not squeue JSON, naming it', () => {
    expect(() => parseSqueueJson('squeue: error: oops', NOW)).toThrow(/not JSON \(squeue: error: oops\)/);
    expect(() => parseSqueueJson('{"errors":[]}', NOW)).toThrow(/no "jobs" list/);
  });
});

describe('the squeue -o fallback agrees with --json', () => {
  const json = new Map(parseSqueueJson(fixture('squeue-22.05.json'), NOW).map((j) => [j.id, j]));
  const lines = parseSqueueLines(fixture('squeue-o-22.05.txt'));

  it('on every field the format carries, for every job both list', () => {
    expect(lines.length).toBeGreaterThanOrEqual(20);
    for (const job of lines) {
      const twin = json.get(job.id);
      if (!twin) continue;
      const pick = ({ name, comment, user, partition, state, reason, node, timeLimitSeconds, submitTime, priority }: typeof job) => ({ name, comment, user, partition, state, reason, node, timeLimitSeconds, submitTime, priority });
      expect(pick(job), `job ${job.id}`).toEqual(pick(twin));
    }
  });

  it('running: time left as squeue counts it; pending: no start; no exit codes in this format', () => {
    const byId = new Map(lines.map((j) => [j.id, j]));
    expect(byId.get('36')).toMatchObject({ state: 'RUNNING', timeLeftSeconds: 598, startTime: '2026-12-04T19:20:44.000Z', gres: 'gres:gpu:1', exitCode: null });
    expect(byId.get('38')).toMatchObject({ state: 'PENDING', reason: 'Resources', startTime: null, timeLeftSeconds: 86400 });
    expect(byId.get('35')).toMatchObject({ state: 'FAILED', exitCode: null, timeLeftSeconds: null });
    expect(byId.get('40')).toMatchObject({ comment: null, timeLimitSeconds: null });
  });

  it('a | inside a comment stays in the comment; short lines are skipped', () => {
    const [job] = parseSqueueLines('7|n|u|p|RUNNING|None|vm|10:00|9:00|1|2|3|5|N/A|a|b|c\nbroken|line\n');
    expect(job).toMatchObject({ id: '7', comment: 'a|b|c', timeLeftSeconds: 540 });
  });
});

describe('scontrol -o', () => {
  it('show job: a finished job with its ExitCode pair; the comment keeps its lowercase key=value words', () => {
    const job = parseScontrolJob(fixture('scontrol-job-failed.txt'), NOW);
    expect(job).toMatchObject({
      id: '35',
      name: 'agentswarm-fixture-fail',
      comment: 'agentswarm profile=fixture-fail app=0.1.0',
      user: 'swarmtest',
      state: 'FAILED',
      reason: 'NonZeroExitCode',
      node: 'vm',
      exitCode: 127,
      signal: 0,
      timeLimitSeconds: 600,
      outputPath: `${HOME}/.agentswarm/slurm/agentswarm-fixture-fail/out/35.out`,
    });
  });

  it('show job: a pending job has no node, start or exit code yet', () => {
    expect(parseScontrolJob(fixture('scontrol-job-pending.txt'), NOW)).toMatchObject({
      id: '38',
      state: 'PENDING',
      reason: 'Resources',
      node: null,
      startTime: null,
      endTime: null,
      exitCode: null,
      timeLimitSeconds: 86400,
      gres: 'gres:gpu:1',
    });
    expect(parseScontrolJob('', NOW)).toBeNull();
  });

  it('show node: NodeAddr; show config: KillWait', () => {
    expect(parseNodeAddr(fixture('scontrol-node.txt'))).toBe('127.0.0.1');
    expect(parseNodeAddr('NodeName=gpu7 Arch=x86_64 NodeAddr=(null) State=IDLE')).toBe('gpu7');
    expect(parseKillWait(fixture('scontrol-config-killwait.txt'))).toBe(5);
    expect(parseKillWait('MinJobAge = 300 sec')).toBeNull();
  });

  it('records split at CamelCase keys only', () => {
    expect(parseScontrolRecord('JobId=1 Comment=a b=c d  Command=/x y/job.sh Power= TRES=cpu=1,node=1')).toEqual({
      JobId: '1',
      Comment: 'a b=c d ',
      Command: '/x y/job.sh',
      Power: '',
      TRES: 'cpu=1,node=1',
    });
  });
});

describe('small parsers', () => {
  it.each([
    ['0:45', 45],
    ['9:58', 598],
    ['1:00:00', 3600],
    ['1-00:00:00', 86400],
    ['2-03', 183600],
    ['30', 1800],
    ['UNLIMITED', null],
    ['INVALID', null],
    ['NOT_SET', null],
  ])('duration %s is %s s', (text, seconds) => expect(parseSlurmDuration(text)).toBe(seconds));

  it('wait status and --output patterns', () => {
    expect(decodeWaitStatus(32512)).toEqual({ exitCode: 127, signal: 0 });
    expect(decodeWaitStatus(9)).toEqual({ exitCode: 0, signal: 9 });
    expect(expandOutputPattern('/o/%x-%j-%u.out %%', { id: '5', name: 'n', user: 'u' })).toBe('/o/n-5-u.out %');
    expect(expandOutputPattern(null, { id: '5', name: 'n', user: null })).toBeNull();
  });

  it('newer Slurm (23.02+) prints states as lists and numbers as objects: read the same way', () => {
    // Shape from the openapi v0.0.39+ job schema (not runnable here: Debian 12 ships 22.05).
    const newer = JSON.stringify({
      jobs: [
        {
          job_id: 9,
          name: 'agentswarm-p',
          comment: 'agentswarm profile=p app=1.0.0',
          user_name: 'alice',
          partition: 'gpu',
          job_state: ['TIMEOUT'],
          state_reason: 'TimeLimit',
          nodes: 'gpu3',
          exit_code: { status: ['SIGNALED'], return_code: { set: true, infinite: false, number: 0 }, signal: { id: { set: true, infinite: false, number: 15 }, name: 'TERM' } },
          time_limit: { set: true, infinite: false, number: 60 },
          end_time: { set: true, infinite: false, number: 1796412000 },
          start_time: { set: true, infinite: false, number: 1796408400 },
          submit_time: { set: true, infinite: false, number: 1796408300 },
          priority: { set: true, infinite: false, number: 100 },
          standard_output: '/home/alice/out/%j.out',
          tres_per_node: 'gres/gpu:2',
        },
      ],
    });
    expect(parseSqueueJson(newer, NOW)[0]).toMatchObject({
      id: '9',
      state: 'TIMEOUT',
      reason: 'TimeLimit',
      exitCode: 0,
      signal: 15,
      timeLimitSeconds: 3600,
      timeLeftSeconds: null,
      outputPath: '/home/alice/out/9.out',
      priority: 100,
    });
  });
});
