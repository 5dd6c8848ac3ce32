import { readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeVenv, systemPython } from '../support/python-env';
import { startTestApp, type TestApp } from '../support/test-app';
import { JobEvents, makeProject, makeVenvWithMinimalAjet, startRequest } from './support/jobs-fixtures';

/**
 * The job runner through the app's handlers and events, with real Python (Debian's python3 and
 * venvs made from it) running small scripts written by the tests.
 */
let app: TestApp | null = null;
let events: JobEvents | null = null;

async function open(dataDir?: string): Promise<{ app: TestApp; events: JobEvents }> {
  app = await startTestApp(dataDir ? { dataDir } : {});
  events = new JobEvents(app.hub);
  return { app, events };
}

afterEach(async () => {
  events?.unsubscribe();
  await app?.dispose();
  app = null;
  events = null;
});

const REWARD_SCRIPT = [
  'import json, sys',
  'print("starting episode", sys.argv[1:])',
  'print("a warning on stderr", file=sys.stderr)',
  'for i in range(30): print("step", i)',
  'print("AGENTSWARM_RESULT " + json.dumps({"reward": 0.25}))',
  'print("AGENTSWARM_RESULT " + json.dumps({"reward": 0.75, "item_id": sys.argv[1]}))',
  'print("done")',
].join('\n');

describe('python discovery (jobs:python)', () => {
  it("lists the project's venvs first with their version and ajet, a bad extra path with its problem, python3 on PATH, each interpreter once", async () => {
    const { app } = await open();
    const project = await makeProject();
    const plain = await makeVenv(project, { ajet: false });
    const withAjet = await makeVenvWithMinimalAjet(project, 'venv');
    const found = await app.handlers['jobs:python']({ projectDir: project, extra: '/nowhere/bin/python' });

    expect(found.interpreters[0]).toMatchObject({ path: '/nowhere/bin/python', source: 'custom', version: null, problem: expect.stringContaining('does not exist') });
    const venvs = found.interpreters.filter((i) => i.source === 'venv');
    expect(venvs.map((i) => i.path)).toEqual([plain, withAjet]);
    expect(venvs[0]).toMatchObject({ version: expect.stringMatching(/^Python 3\.\d+\.\d+$/), ajet: { installed: false, version: null }, problem: expect.stringContaining('pip install -e .') });
    expect(venvs[1]).toMatchObject({ ajet: { installed: true, version: '0.0.0-test' }, problem: null });
    expect(found.recommended).toBe(withAjet);
    expect(found.installHint).toMatch(/git clone https:\/\/github\.com\/modelscope\/AgentJet.*pip install -e \./);
    expect(found.installHint).toContain('[verl]');
    expect(found.interpreters.some((i) => i.source === 'path' && i.version !== null)).toBe(true);

    // The same interpreter under two names (the extra path and PATH's) is listed once.
    const again = await app.handlers['jobs:python']({ projectDir: null, extra: systemPython() });
    const sameAsSystem = await Promise.all(again.interpreters.map(async (i) => (await realpath(i.path).catch(() => i.path)) === (await realpath(systemPython()))));
    expect(sameAsSystem.filter(Boolean)).toHaveLength(1);
    expect(again.interpreters[0]).toMatchObject({ source: 'custom', path: systemPython() });
  });
});

describe('a run', () => {
  it('streams stdout and stderr to a log, parses the last result line and ends succeeded with exit code and duration', async () => {
    const { app, events } = await open();
    const project = await makeProject({ 'episode.py': REWARD_SCRIPT });
    const started = await app.handlers['jobs:start'](startRequest({ kind: 'episode-test', cwd: project, script: 'episode.py', args: ['item-7'], label: 'Test episode · item-7' }));
    expect(started).toMatchObject({ state: 'running', kind: 'episode-test', args: ['item-7'], pid: expect.any(Number), swarmUrl: null });

    const ended = await events.ended(started.id);
    expect(ended).toMatchObject({ state: 'succeeded', exitCode: 0, signal: null, failure: null, result: { reward: 0.75, raw: { reward: 0.75, item_id: 'item-7' } } });
    expect(ended.durationMs).toBeGreaterThanOrEqual(0);
    expect(ended.logLines).toBeGreaterThanOrEqual(35);
    // Snapshots on state changes only (running, then the end), not one per line.
    expect(events.changed.filter((j) => j.id === started.id).map((j) => j.state)).toEqual(['running', 'succeeded']);
    // Lines announced in batches (a few events, not 35), the last one with the final total.
    const appended = events.appended.filter((a) => a.jobId === started.id);
    expect(appended.length).toBeLessThan(10);
    expect(appended.at(-1)?.total).toBe(ended.logLines);

    const window = await app.handlers['jobs:log']({ jobId: started.id, from: 0, limit: 500 });
    expect(window.total).toBe(ended.logLines);
    expect(window.lines.find((l) => l.text === 'a warning on stderr')?.stream).toBe('err');
    expect(window.lines.find((l) => l.text === 'step 29')?.stream).toBe('out');
    expect(window.lines[0]?.stream).toBe('app');
    const page = await app.handlers['jobs:log']({ jobId: started.id, from: 10, limit: 3 });
    expect(page.lines.map((l) => l.n)).toEqual([10, 11, 12]);

    const file = await readFile(ended.logFile, 'utf8');
    expect(ended.logFile).toBe(join(app.dataDir, 'jobs', `${started.id}.log`));
    expect(file).toContain('err a warning on stderr\n');
    expect(file).toContain('out step 29\n');
    expect(await app.handlers['jobs:get']({ jobId: started.id })).toEqual(ended);
  });

  it('the history survives a restart of the services (list newest first, old logs readable), a run left "running" becomes failed, and rerun starts the same request again', async () => {
    const first = await open();
    const project = await makeProject({ 'episode.py': REWARD_SCRIPT });
    const a = await first.app.handlers['jobs:start'](startRequest({ cwd: project, script: 'episode.py', args: ['a'] }));
    await first.events.ended(a.id);
    const b = await first.app.handlers['jobs:start'](startRequest({ cwd: project, script: 'episode.py', args: ['b'] }));
    const bEnded = await first.events.ended(b.id);
    expect((await first.app.handlers['jobs:list']({})).map((j) => j.id)).toEqual([b.id, a.id]);
    const dataDir = first.app.dataDir;
    first.events.unsubscribe();
    await first.app.stop();

    // As if the app had crashed during run b: the history still says running.
    const historyFile = join(dataDir, 'jobs', 'history.json');
    const history = JSON.parse(await readFile(historyFile, 'utf8')) as { runs: { view: { id: string; state: string; endedAt: string | null } }[] };
    const bRecord = history.runs.find((r) => r.view.id === b.id)!;
    bRecord.view.state = 'running';
    bRecord.view.endedAt = null;
    await writeFile(historyFile, JSON.stringify(history));

    try {
      const second = await open(dataDir);
      const list = await second.app.handlers['jobs:list']({});
      expect(list.map((j) => j.id)).toEqual([b.id, a.id]);
      expect(list[0]).toMatchObject({ state: 'failed', failure: { code: 'JOB_CRASHED', message: expect.stringContaining('The app ended while this job was running') } });
      expect(list[1]).toMatchObject({ state: 'succeeded', result: { reward: 0.75 } });
      // The old run's log, from its file.
      const old = await second.app.handlers['jobs:log']({ jobId: a.id, from: 0, limit: 100 });
      expect(old.lines.some((l) => l.text === 'step 29' && l.stream === 'out')).toBe(true);
      expect(old.total).toBe(list[1]!.logLines);
      // The change was written back.
      expect(JSON.parse(await readFile(historyFile, 'utf8')).runs.find((r: { view: { id: string } }) => r.view.id === b.id).view.state).toBe('failed');

      const again = await second.app.handlers['jobs:rerun']({ jobId: b.id });
      expect(again.id).not.toBe(b.id);
      expect(again).toMatchObject({ cwd: project, script: 'episode.py', args: ['b'] });
      expect(await second.events.ended(again.id)).toMatchObject({ state: 'succeeded', result: { reward: 0.75, raw: { item_id: 'b' } } });
      expect((await second.app.handlers['jobs:list']({}))[0]?.id).toBe(again.id);
      expect(bEnded.logLines).toBeGreaterThan(0);
      await expect(second.app.handlers['jobs:get']({ jobId: 'no-such-job' })).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    } finally {
      // The first app's data folder is this test's to remove: the second app did not create it.
      const { rm } = await import('node:fs/promises');
      await app?.dispose();
      app = null;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
