import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { poll } from '../support/helpers';
import { isRunning, startHealthServer, startRunner, type RunnerHarness } from './support/jobs-harness';
import { makeProject, makeVenvWithMinimalAjet, startRequest } from './support/jobs-fixtures';
import { TREE_SCRIPT, WAIT_FOR_FILE_SCRIPT } from './support/jobs-scripts';

/**
 * Cancel, one training per server profile, and the engine-restart confirmation, with the JobRunner
 * on its own (short kill timeouts through its tuning) and real Python process trees.
 */
let harness: RunnerHarness | null = null;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await harness?.close();
  harness = null;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const ROLES = ['main', 'child', 'grandchild'] as const;

/** Starts TREE_SCRIPT and waits until all three processes run with their handlers in place. */
async function startTree(h: RunnerHarness, stubborn: string[]): Promise<{ jobId: string; project: string; pids: Record<string, number> }> {
  const project = await makeProject({ 'tree.py': TREE_SCRIPT });
  const job = await h.runner.start(startRequest({ cwd: project, script: 'tree.py', args: [project, stubborn.join(',') || '-'], label: 'tree' }));
  const pids: Record<string, number> = {};
  for (const role of ROLES) {
    pids[role] = await poll(`${role} pid file`, 10_000, async () => Number(await readFile(join(project, `${role}.pid`), 'utf8')) || undefined);
  }
  for (const role of ROLES) expect(isRunning(pids[role]!)).toBe(true);
  return { jobId: job.id, project, pids };
}

async function signalsOf(project: string, role: string): Promise<string[]> {
  return (await readFile(join(project, `${role}.signals`), 'utf8')).split('\n').filter(Boolean);
}

async function appLines(h: RunnerHarness, jobId: string): Promise<string[]> {
  return (await h.runner.log(jobId, 0, 5000)).lines.filter((l) => l.stream === 'app').map((l) => l.text);
}

describe('cancel ends the whole process tree', () => {
  it('SIGINT ignored everywhere: SIGTERM after intMs ends main, child and grandchild; state cancelled', async () => {
    harness = await startRunner({ killTimeouts: { intMs: 400, termMs: 400 } });
    const { jobId, project, pids } = await startTree(harness, []);
    const t0 = Date.now();
    const ended = await harness.runner.cancel(jobId);
    const took = Date.now() - t0;

    expect(ended).toMatchObject({ id: jobId, state: 'cancelled', failure: null });
    for (const role of ROLES) {
      expect(isRunning(pids[role]!), `${role} (${pids[role]}) still runs`).toBe(false);
      expect(await signalsOf(project, role)).toEqual(['SIGINT', 'SIGTERM']);
    }
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(5000);
    const sent = (await appLines(harness, jobId)).filter((l) => l.startsWith('cancel: sent'));
    expect(sent).toEqual(['cancel: sent SIGINT to the script and every process it started', 'cancel: sent SIGTERM to the script and every process it started']);
    // The snapshots: running, cancelling, cancelled; and the end is what waitForEnd and get say too.
    expect(harness.events.changed.filter((j) => j.id === jobId).map((j) => j.state)).toEqual(['running', 'cancelling', 'cancelled']);
    expect(await harness.runner.waitForEnd(jobId)).toEqual(ended);
  });

  it('a main process and a grandchild that ignore SIGTERM too are SIGKILLed after termMs; the signals came in order', async () => {
    harness = await startRunner({ killTimeouts: { intMs: 300, termMs: 300 } });
    const { jobId, project, pids } = await startTree(harness, ['main', 'grandchild']);
    const t0 = Date.now();
    const ended = await harness.runner.cancel(jobId);
    const took = Date.now() - t0;

    expect(ended).toMatchObject({ state: 'cancelled', signal: 'SIGKILL', exitCode: null });
    for (const role of ROLES) expect(isRunning(pids[role]!), `${role} still runs`).toBe(false);
    // SIGKILL cannot be caught: the stubborn ones logged the two they could see; the child ended at SIGTERM.
    for (const role of ROLES) expect(await signalsOf(project, role)).toEqual(['SIGINT', 'SIGTERM']);
    expect(took).toBeGreaterThanOrEqual(600);
    const sent = (await appLines(harness, jobId)).filter((l) => l.startsWith('cancel: sent')).map((l) => l.split(' ')[2]);
    expect(sent).toEqual(['SIGINT', 'SIGTERM', 'SIGKILL']);
    const last = (await appLines(harness, jobId)).at(-1);
    expect(last).toMatch(/^cancelled \(killed by SIGKILL\) after \d+\.\d s$/);
  });

  it('a script that honours Ctrl+C ends at SIGINT alone: its finally block runs and nothing else is sent', async () => {
    harness = await startRunner({ killTimeouts: { intMs: 5000, termMs: 5000 } });
    const project = await makeProject({ 'wait.py': WAIT_FOR_FILE_SCRIPT });
    const job = await harness.runner.start(startRequest({ cwd: project, script: 'wait.py', args: [join(project, 'never')] }));
    await poll('ready line', 10_000, async () => ((await harness!.runner.log(job.id, 0, 50)).lines.some((l) => l.text.startsWith('ready')) ? true : undefined));
    const t0 = Date.now();
    const ended = await harness.runner.cancel(job.id);
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(ended.state).toBe('cancelled');
    expect(isRunning(job.pid!)).toBe(false);
    const lines = (await harness.runner.log(job.id, 0, 100)).lines.map((l) => l.text);
    expect(lines).toContain('cleanup ran');
    expect(lines.filter((l) => l.startsWith('cancel: sent'))).toEqual(['cancel: sent SIGINT to the script and every process it started']);
    // Cancelling an ended job changes nothing; an unknown one is JOB_NOT_FOUND.
    expect(await harness.runner.cancel(job.id)).toEqual(ended);
    await expect(harness.runner.cancel('no-such-job')).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
  });

  it('processes a script leaves running when it ends on its own are stopped with it (no orphans)', async () => {
    harness = await startRunner({ killTimeouts: { intMs: 300, termMs: 300 } });
    const project = await makeProject({
      'tree.py': TREE_SCRIPT,
      'leave.py': ['import os, subprocess, sys, time', 'subprocess.Popen([sys.executable, "tree.py", sys.argv[1], "-", "child"], stdout=subprocess.DEVNULL)', 'while not os.path.exists(os.path.join(sys.argv[1], "grandchild.pid")): time.sleep(0.05)', 'print("AGENTSWARM_RESULT {\\"reward\\": 1}")'].join('\n'),
    });
    const job = await harness.runner.start(startRequest({ cwd: project, script: 'leave.py', args: [project] }));
    const ended = await harness.events.ended(job.id);
    expect(ended).toMatchObject({ state: 'succeeded', exitCode: 0 });
    for (const role of ['child', 'grandchild']) {
      const pid = Number(await readFile(join(project, `${role}.pid`), 'utf8'));
      expect(isRunning(pid), `${role} left running`).toBe(false);
    }
    expect((await appLines(harness, job.id)).some((l) => l.includes('still ran: stopping them'))).toBe(true);
  });
});

describe('one training run per server profile', () => {
  it('a second train for the same profile is JOB_BUSY naming the running job; another profile or kind runs; after the end it is allowed again', async () => {
    harness = await startRunner();
    const health = await startHealthServer();
    cleanups.push(health.close);
    harness.swarms.set('local:aaa111', health.url);
    harness.swarms.set('local:bbb222', health.url);
    const project = await makeProject({ 'train.py': WAIT_FOR_FILE_SCRIPT });
    const python = await makeVenvWithMinimalAjet(project);
    const go = join(project, 'go');
    const train = (profileId: string | null, containerId = 'aaa111', kind: 'train' | 'debug-episode' = 'train') =>
      harness!.runner.start(startRequest({ kind, python, cwd: project, script: 'train.py', args: [go], label: `Training · ${profileId}`, swarm: { engineId: 'local', containerId, profileId } }));

    const first = await train('prof-a');
    const busy = await train('prof-a').catch((error: unknown) => error);
    expect(busy).toMatchObject({ code: 'JOB_BUSY' });
    expect((busy as Error).message).toContain(first.id);
    expect((busy as Error).message).toContain('Training · prof-a');
    // Even on another server id: the slot is the profile's (its server may have been restarted).
    await expect(train('prof-a', 'bbb222')).rejects.toMatchObject({ code: 'JOB_BUSY' });
    const other = await train('prof-b', 'bbb222');
    const debug = await train('prof-a', 'aaa111', 'debug-episode');
    expect(harness.runner.list().filter((j) => j.state === 'running').map((j) => j.id).sort()).toEqual([first.id, other.id, debug.id].sort());

    // The dry run has no profile: its slot is the server itself.
    const dry = await train(null, 'bbb222');
    await expect(train(null, 'bbb222')).rejects.toMatchObject({ code: 'JOB_BUSY' });

    const { writeFile } = await import('node:fs/promises');
    await writeFile(go, '');
    for (const job of [first, other, debug, dry]) expect(await harness.events.ended(job.id)).toMatchObject({ state: 'succeeded' });
    const again = await train('prof-a');
    expect(again.state).toBe('running');
    expect(await harness.events.ended(again.id)).toMatchObject({ state: 'succeeded' });
  });

  it('two starts at the same moment: exactly one runs, and a start that fails its preflight frees the slot', async () => {
    harness = await startRunner();
    const health = await startHealthServer();
    cleanups.push(health.close);
    const project = await makeProject({ 'train.py': WAIT_FOR_FILE_SCRIPT });
    const python = await makeVenvWithMinimalAjet(project);
    const request = startRequest({ kind: 'train', python, cwd: project, script: 'train.py', args: [join(project, 'go')], swarm: { engineId: 'local', containerId: 'ccc333', profileId: 'prof-c' } });

    // Not watched yet: SWARM_UNREACHABLE, and the slot is free again afterwards.
    await expect(harness.runner.start(request)).rejects.toMatchObject({ code: 'SWARM_UNREACHABLE' });
    harness.swarms.set('local:ccc333', health.url);
    const both = await Promise.allSettled([harness.runner.start(request), harness.runner.start(request)]);
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(both.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'JOB_BUSY' } });
    expect(harness.runner.list()).toHaveLength(1);
  });
});

describe('engine restart needs a confirmation', () => {
  const RESTARTS = ['import json', 'from ajet import AgentJetSwarmClient  # noqa', 'def go(client):', '    client.auto_sync_train_config_and_start_engine(cfg, force_restart=True)', 'print("AGENTSWARM_RESULT " + json.dumps({"reward": 1}))'].join('\n');

  it('a train run of a script with force_restart=True is JOB_NEEDS_CONFIRMATION and starts nothing; confirmed, it runs', async () => {
    harness = await startRunner();
    const health = await startHealthServer();
    cleanups.push(health.close);
    harness.swarms.set('local:ddd444', health.url);
    const project = await makeProject({ 'agent_roll.py': RESTARTS.replace('from ajet import AgentJetSwarmClient  # noqa\n', '') });
    const python = await makeVenvWithMinimalAjet(project);
    const base = { kind: 'train' as const, python, cwd: project, script: 'agent_roll.py', swarm: { engineId: 'local', containerId: 'ddd444', profileId: 'prof-d' } };

    const refused = await harness.runner.start(startRequest(base)).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'JOB_NEEDS_CONFIRMATION', message: expect.stringContaining('force_restart=True') });
    expect((refused as Error).message).toContain(join(project, 'agent_roll.py'));
    expect(harness.runner.list()).toEqual([]);
    expect(health.hits).toEqual([]);

    const confirmed = await harness.runner.start(startRequest({ ...base, confirmEngineRestart: true }));
    expect(await harness.events.ended(confirmed.id)).toMatchObject({ state: 'succeeded', result: { reward: 1 } });
    // The slot was not taken by the refused start.
    expect(existsSync(confirmed.logFile)).toBe(true);

    // "Run again" does not carry the old yes over: the script may have changed, and this run ends
    // everyone's training again, so it is asked again (the wizard's Train step asks; the Jobs page shows why).
    const again = await harness.runner.rerun(confirmed.id).catch((error: unknown) => error);
    expect(again).toMatchObject({ code: 'JOB_NEEDS_CONFIRMATION' });
    expect(harness.runner.list()).toHaveLength(1);
  });
});
