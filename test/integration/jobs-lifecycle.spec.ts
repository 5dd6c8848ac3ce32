import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { isRunning, startRunner, type RunnerHarness } from './support/jobs-harness';
import { JobEvents, makeProject, startRequest } from './support/jobs-fixtures';
import { TREE_SCRIPT } from './support/jobs-scripts';

/**
 * A run's life beyond its process: the app closing under it, its log when the file is gone, and
 * paging through lines older than the memory buffer.
 */
let app: TestApp | null = null;
let harness: RunnerHarness | null = null;
const dataDirs: string[] = [];

afterEach(async () => {
  await app?.dispose();
  app = null;
  await harness?.close();
  harness = null;
  for (const dir of dataDirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('closing the app while a job runs', () => {
  it('stops the whole tree (no orphan left), and the history says cancelled because the app closed, also after a restart', async () => {
    app = await startTestApp();
    const events = new JobEvents(app.hub);
    const project = await makeProject({ 'tree.py': TREE_SCRIPT });
    const job = await app.handlers['jobs:start'](startRequest({ cwd: project, script: 'tree.py', args: [project, '-'], label: 'long run' }));
    const pids = await Promise.all(['main', 'child', 'grandchild'].map((role) => poll(`${role} pid`, 10_000, async () => Number(await readFile(join(project, `${role}.pid`), 'utf8')) || undefined)));
    expect(pids.every(isRunning)).toBe(true);

    const dataDir = app.dataDir;
    dataDirs.push(dataDir);
    await app.stop();
    // stop() resolved: the tree is already gone, not "soon".
    for (const pid of pids) expect(isRunning(pid), `pid ${pid} outlived the app`).toBe(false);
    const ended = await events.ended(job.id);
    events.unsubscribe();
    expect(ended).toMatchObject({ state: 'cancelled', failure: { code: 'JOB_CRASHED', message: expect.stringContaining('The app closed while this job was running') } });
    // Every process ignored SIGINT: the app's dispose escalated to SIGTERM.
    expect((await readFile(join(project, 'grandchild.signals'), 'utf8')).split('\n').filter(Boolean)).toEqual(['SIGINT', 'SIGTERM']);

    const history = JSON.parse(await readFile(join(dataDir, 'jobs', 'history.json'), 'utf8')) as { runs: { view: { id: string; state: string; failure: { message: string } | null } }[] };
    expect(history.runs.find((r) => r.view.id === job.id)?.view).toMatchObject({ state: 'cancelled', failure: { message: expect.stringContaining('app closed') } });

    app = await startTestApp({ dataDir });
    expect(await app.handlers['jobs:get']({ jobId: job.id })).toMatchObject({ state: 'cancelled', failure: { code: 'JOB_CRASHED' } });
    const log = await app.handlers['jobs:log']({ jobId: job.id, from: 0, limit: 500 });
    expect(log.lines.map((l) => l.text)).toEqual(expect.arrayContaining(['the app is closing: sent SIGINT to the script and every process it started', 'the app is closing: sent SIGTERM to the script and every process it started']));
  });
});

describe('logs', () => {
  it('jobs:open-log and jobs:log for a run whose log file is gone are LOG_UNAVAILABLE naming the path', async () => {
    app = await startTestApp();
    const events = new JobEvents(app.hub);
    const project = await makeProject({ 'ep.py': 'print("AGENTSWARM_RESULT {\\"reward\\": 1}")\n' });
    const job = await app.handlers['jobs:start'](startRequest({ cwd: project, script: 'ep.py' }));
    const ended = await events.ended(job.id);
    events.unsubscribe();
    await rm(ended.logFile);
    await expect(app.handlers['jobs:open-log']({ jobId: job.id })).rejects.toMatchObject({ code: 'LOG_UNAVAILABLE', message: expect.stringContaining(ended.logFile) });
    await expect(app.handlers['jobs:log']({ jobId: job.id, from: 0, limit: 10 })).rejects.toMatchObject({ code: 'LOG_UNAVAILABLE', message: expect.stringContaining(ended.logFile) });
    await expect(app.handlers['jobs:open-log']({ jobId: 'no-such-job' })).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
  });

  it('a running job keeps only bufferLines in memory: older lines are paged from its file', async () => {
    harness = await startRunner({ bufferLines: 10 });
    const project = await makeProject({
      'many.py': ['import os, sys, time', 'for i in range(100): print("line", i)', 'print("ready", flush=True)', 'while not os.path.exists(sys.argv[1]): time.sleep(0.05)'].join('\n'),
    });
    const job = await harness.runner.start(startRequest({ cwd: project, script: 'many.py', args: [join(project, 'go')] }));
    // Line 0 is the app's "$ python …" line; "line i" is line i + 1; "ready" is 101.
    await poll('all lines', 10_000, async () => ((await harness!.runner.log(job.id, 95, 20)).lines.some((l) => l.text === 'ready') ? true : undefined));

    const old = await harness.runner.log(job.id, 1, 5);
    expect(old.lines).toEqual([1, 2, 3, 4, 5].map((n) => ({ n, stream: 'out', text: `line ${n - 1}` })));
    expect(old.total).toBe(102);
    const recent = await harness.runner.log(job.id, 95, 20);
    expect(recent.lines.map((l) => l.n)).toEqual([95, 96, 97, 98, 99, 100, 101]);
    const across = await harness.runner.log(job.id, 88, 6);
    expect(across.lines.map((l) => l.text)).toEqual(['line 87', 'line 88', 'line 89', 'line 90', 'line 91', 'line 92']);

    // Proof that the old lines come from the file: with it moved away they are LOG_UNAVAILABLE,
    // while the newest 10 are still served from memory.
    const job1 = harness.runner.get(job.id);
    await rename(job1.logFile, `${job1.logFile}.moved`);
    await expect(harness.runner.log(job.id, 1, 5)).rejects.toMatchObject({ code: 'LOG_UNAVAILABLE', message: expect.stringContaining(job1.logFile) });
    expect((await harness.runner.log(job.id, 95, 20)).lines.map((l) => l.n)).toEqual([95, 96, 97, 98, 99, 100, 101]);
    await harness.runner.cancel(job.id);
  });
});
