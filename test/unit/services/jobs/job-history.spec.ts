import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INTERRUPTED_MESSAGE, JobHistory, pruneRecords, type JobRecordData } from '../../../../electron/services/jobs/job-history';
import { JobStartRequest, type JobViewData } from '../../../../electron/shared/schemas-jobs';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-jobhistory-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function record(id: string, state: JobViewData['state']): JobRecordData {
  const request = JobStartRequest.parse({ kind: 'script', cwd: '/p', script: 'x.py', python: '/usr/bin/python3' });
  const view: JobViewData = {
    id, kind: 'script', label: null, state, cwd: '/p', script: 'x.py', args: [], python: '/usr/bin/python3', swarm: null, swarmUrl: null, llmSecretId: null,
    startedAt: '2026-01-01T00:00:00.000Z', endedAt: null, durationMs: null, exitCode: null, signal: null, pid: 1, result: null, failure: null, logLines: 0, logFile: join(dir, `${id}.log`), notSaved: null,
  };
  return { view, request, extraEnv: {} };
}

describe('JobHistory', () => {
  it('saves and loads the runs; a run left live by an app that ended is failed with how long it had run', async () => {
    const history = new JobHistory(dir);
    await history.save([record('a', 'succeeded'), record('b', 'running'), record('c', 'cancelling')]);
    const loaded = await history.load(new Date('2026-01-01T00:01:00.000Z'));
    expect(loaded.interrupted).toBe(2);
    expect(loaded.records.map((r) => [r.view.id, r.view.state])).toEqual([['a', 'succeeded'], ['b', 'failed'], ['c', 'failed']]);
    expect(loaded.records[1]!.view).toMatchObject({ endedAt: '2026-01-01T00:01:00.000Z', durationMs: 60_000, failure: { code: 'JOB_CRASHED', message: INTERRUPTED_MESSAGE } });
  });

  it('no file is an empty history; an unreadable one is moved aside, never overwritten; a run of another shape is left out', async () => {
    const history = new JobHistory(dir);
    expect(await history.load()).toEqual({ records: [], notes: [], interrupted: 0 });
    await writeFile(history.file, '{ not json');
    const bad = await history.load(new Date(1234));
    expect(bad.records).toEqual([]);
    expect(bad.notes[0]).toContain('history.json.unreadable-1234');
    expect(await readFile(join(dir, 'history.json.unreadable-1234'), 'utf8')).toBe('{ not json');
    await writeFile(history.file, JSON.stringify({ version: 1, runs: [record('a', 'failed'), { view: { id: 'x' } }] }));
    const partial = await history.load();
    expect(partial.records.map((r) => r.view.id)).toEqual(['a']);
    expect(partial.notes).toEqual(['a run in the job history did not match this version and was left out']);
  });

  it('deletes the log files of dropped runs once the history no longer names them; writes are serialised', async () => {
    const history = new JobHistory(dir);
    await writeFile(history.logFile('old'), 'out x\n');
    await writeFile(history.logFile('new'), 'out y\n');
    await Promise.all([history.save([record('old', 'succeeded'), record('new', 'succeeded')]), history.save([record('new', 'succeeded')], ['old'])]);
    expect(existsSync(history.logFile('old'))).toBe(false);
    expect(existsSync(history.logFile('new'))).toBe(true);
    expect((await history.load()).records.map((r) => r.view.id)).toEqual(['new']);
    expect((await readdir(dir)).sort()).toEqual(['history.json', 'new.log']);
  });
});

describe('pruneRecords', () => {
  it('drops the oldest ended runs beyond the limit, never a running one', () => {
    const records = [record('r1', 'running'), record('s2', 'succeeded'), record('f3', 'failed'), record('s4', 'succeeded')];
    expect(pruneRecords(records, 2)).toEqual({ kept: [records[0], records[3]], dropped: ['s2', 'f3'] });
    expect(pruneRecords(records, 10).dropped).toEqual([]);
    expect(pruneRecords([record('a', 'running'), record('b', 'starting')], 1).dropped).toEqual([]);
  });
});
