import { chmod, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/helpers';
import { makeVenv } from '../support/python-env';
import { startHealthServer, startRunner, startSilentServer, type RunnerHarness } from './support/jobs-harness';
import { makeProject, makeVenvWithMinimalAjet, startRequest } from './support/jobs-fixtures';
import { PRINT_ENV_SCRIPT } from './support/jobs-scripts';

/**
 * What the runner checks before a process exists (python, ajet, the swarm server's /health), and
 * the environment a run gets. The JobRunner on its own, with the swarm URLs a test sets.
 */
let harness: RunnerHarness | null = null;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await harness?.close();
  harness = null;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const SWARM = { engineId: 'local', containerId: 'abc123def456', profileId: 'prof-1' };

describe('swarm server preflight (GET <url>/health)', () => {
  it('a URL that refuses connections is SWARM_UNREACHABLE naming the URL and what to do; no job is made', async () => {
    harness = await startRunner();
    const url = `http://127.0.0.1:${await freePort()}`;
    harness.swarms.set('local:abc123def456', url);
    const project = await makeProject({ 'ep.py': PRINT_ENV_SCRIPT });
    const error = await harness.runner.start(startRequest({ kind: 'script', cwd: project, script: 'ep.py', swarm: SWARM })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SWARM_UNREACHABLE' });
    const message = (error as Error).message;
    expect(message).toContain(`${url}/health`);
    expect(message).toContain('connection refused');
    expect(message).toMatch(/Start the server .*tunnel/);
    expect(harness.runner.list()).toEqual([]);
  });

  it('a server that accepts but never answers is SWARM_UNREACHABLE after the tuned timeout', async () => {
    harness = await startRunner({ healthTimeoutMs: 400 });
    const silent = await startSilentServer();
    cleanups.push(silent.close);
    harness.swarms.set('local:abc123def456', silent.url);
    const project = await makeProject({ 'ep.py': PRINT_ENV_SCRIPT });
    const t0 = Date.now();
    const error = await harness.runner.start(startRequest({ cwd: project, script: 'ep.py', swarm: SWARM })).catch((e: unknown) => e);
    const took = Date.now() - t0;
    expect(error).toMatchObject({ code: 'SWARM_UNREACHABLE', message: expect.stringContaining(`${silent.url}/health`) });
    expect((error as Error).message).toContain('no answer within 0.4 s');
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(5000);
  });

  it('a server the app does not watch (no URL) is SWARM_UNREACHABLE saying to start it', async () => {
    harness = await startRunner();
    const project = await makeProject({ 'ep.py': PRINT_ENV_SCRIPT });
    await expect(harness.runner.start(startRequest({ cwd: project, script: 'ep.py', swarm: SWARM }))).rejects.toMatchObject({
      code: 'SWARM_UNREACHABLE',
      message: expect.stringMatching(/abc123def456 on local is not running or not watched.*Start it/),
    });
  });

  it('a server whose /health answers lets the run start, and the run gets its URL', async () => {
    harness = await startRunner();
    const health = await startHealthServer();
    cleanups.push(health.close);
    harness.swarms.set('local:abc123def456', health.url);
    const project = await makeProject({ 'ep.py': PRINT_ENV_SCRIPT });
    const job = await harness.runner.start(startRequest({ cwd: project, script: 'ep.py', swarm: SWARM }));
    expect(health.hits).toEqual(['/health']);
    expect(job.swarmUrl).toBe(health.url);
    expect(await harness.events.ended(job.id)).toMatchObject({ state: 'succeeded', result: { raw: { AJET_SWARM_URL: health.url } } });
  });
});

describe('python and ajet preflight', () => {
  it('PYTHON_NOT_FOUND for a path that does not exist and for a file that is not executable', async () => {
    harness = await startRunner();
    const project = await makeProject({ 'ep.py': PRINT_ENV_SCRIPT, 'bin/python3': '#!/bin/sh\necho hi\n' });
    await expect(harness.runner.start(startRequest({ cwd: project, script: 'ep.py', python: '/nowhere/bin/python3' }))).rejects.toMatchObject({
      code: 'PYTHON_NOT_FOUND',
      message: expect.stringMatching(/\/nowhere\/bin\/python3 .*Pick an interpreter/),
    });
    const notExecutable = join(project, 'bin', 'python3');
    await chmod(notExecutable, 0o644);
    await expect(harness.runner.start(startRequest({ cwd: project, script: 'ep.py', python: notExecutable }))).rejects.toMatchObject({
      code: 'PYTHON_NOT_FOUND',
      message: expect.stringContaining(`${notExecutable} (missing, or not executable)`),
    });
    expect(harness.runner.list()).toEqual([]);
  });

  it('AJET_NOT_INSTALLED for debug-episode and train with an interpreter without ajet, saying how to install it; a plain script runs', async () => {
    harness = await startRunner();
    const health = await startHealthServer();
    cleanups.push(health.close);
    harness.swarms.set('local:abc123def456', health.url);
    const project = await makeProject({ 'ep.py': PRINT_ENV_SCRIPT });
    const python = await makeVenv(project, { ajet: false });
    for (const kind of ['debug-episode', 'train'] as const) {
      const error = await harness.runner.start(startRequest({ kind, python, cwd: project, script: 'ep.py', swarm: SWARM })).catch((e: unknown) => e);
      expect(error, kind).toMatchObject({ code: 'AJET_NOT_INSTALLED' });
      expect((error as Error).message).toContain(python);
      expect((error as Error).message).toMatch(/git clone https:\/\/github\.com\/modelscope\/AgentJet .*-m pip install -e \./);
    }
    expect(harness.runner.list()).toEqual([]);
    // The train slot the refused train took during its preflight is free again.
    const ok = await harness.runner.start(startRequest({ kind: 'script', python, cwd: project, script: 'ep.py' }));
    expect(await harness.events.ended(ok.id)).toMatchObject({ state: 'succeeded' });
  });

  it('an interpreter with ajet passes the check from the project folder', async () => {
    harness = await startRunner();
    const health = await startHealthServer();
    cleanups.push(health.close);
    harness.swarms.set('local:abc123def456', health.url);
    const project = await makeProject({ 'ep.py': PRINT_ENV_SCRIPT });
    const python = await makeVenv(project, { ajet: true });
    const job = await harness.runner.start(startRequest({ kind: 'debug-episode', python, cwd: project, script: 'ep.py', swarm: SWARM }));
    expect(await harness.events.ended(job.id)).toMatchObject({ state: 'succeeded' });
  });
});

describe('the environment and folder of a run', () => {
  it('debug-episode and train get AJET_SWARM_URL (the server URL) and REMOTE_MODEL_PATH, the LLM endpoint, extra env and the cwd; a stale AJET_SWARM_URL of the app is never passed on', async () => {
    harness = await startRunner({ baseEnv: { ...process.env, AJET_SWARM_URL: 'http://stale.invalid:1', REMOTE_MODEL_PATH: '/stale/model' } });
    const health = await startHealthServer();
    cleanups.push(health.close);
    harness.swarms.set('local:abc123def456', health.url);
    await harness.vault.save({ id: 'llm-main', name: 'LLM', kind: 'llm', value: 'sk-test-env-0123456789abcdef', llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'qwen-debug' } });
    const project = await makeProject({ 'sub/ep.py': PRINT_ENV_SCRIPT });
    const python = await makeVenvWithMinimalAjet(project);
    const { createHash } = await import('node:crypto');
    const keyHash = createHash('sha256').update('sk-test-env-0123456789abcdef').digest('hex');

    for (const kind of ['debug-episode', 'train'] as const) {
      const job = await harness.runner.start(
        startRequest({ kind, python, cwd: project, script: 'sub/ep.py', swarm: SWARM, remoteModelPath: '/mnt/models/Qwen2.5-0.5B-Instruct', llmSecretId: 'llm-main' }),
        { extraEnv: { AGENTSWARM_TEST_EXTRA: 'plain' } },
      );
      const ended = await harness.events.ended(job.id);
      expect(ended.result?.raw, kind).toEqual({
        reward: 0.5,
        cwd: await realpath(project),
        AJET_SWARM_URL: health.url,
        REMOTE_MODEL_PATH: '/mnt/models/Qwen2.5-0.5B-Instruct',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_MODEL: 'qwen-debug',
        EXTRA: 'plain',
        OPENAI_API_KEY_sha256: keyHash,
        API_KEY_sha256: keyHash,
      });
      expect(ended.swarmUrl).toBe(health.url);
    }
    // Without a swarm and a model path, the run gets neither (not the app's stale ones).
    const plain = await harness.runner.start(startRequest({ python, cwd: project, script: join(project, 'sub', 'ep.py') }));
    expect((await harness.events.ended(plain.id)).result?.raw).toMatchObject({ AJET_SWARM_URL: null, REMOTE_MODEL_PATH: null, OPENAI_API_KEY_sha256: null });
  });
});
