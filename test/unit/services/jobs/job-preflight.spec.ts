import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCwd, checkEngineRestart, checkPython, checkSwarmHealth, engineRestartCalls, jobEnv, resolveScript } from '../../../../electron/services/jobs/job-preflight';
import { trainSlotKey } from '../../../../electron/services/jobs/job-runner';
import { JobStartRequest, type JobStartInput } from '../../../../electron/shared/schemas-jobs';
import { MemoryVault } from '../../../support/memory-vault';

const request = (input: Partial<JobStartInput> = {}) => JobStartRequest.parse({ kind: 'script', cwd: '/tmp', script: 'x.py', python: '/usr/bin/python3', ...input });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-preflight-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('engineRestartCalls', () => {
  it('finds force_restart=True and .stop_engine( in code, not in comments, not force_restart=False', () => {
    expect(engineRestartCalls('client.auto_sync_train_config_and_start_engine(job, force_restart=True)')).toEqual(['force_restart=True']);
    expect(engineRestartCalls('x(force_restart = True)\nclient.stop_engine()')).toEqual(['force_restart=True', 'stop_engine()']);
    expect(engineRestartCalls('# force_restart=True would end everyone\nx(force_restart=False)  # not .stop_engine()')).toEqual([]);
    expect(engineRestartCalls('force_restart=Truthy')).toEqual([]);
  });

  it('only debug-episode and train runs need the confirmation', async () => {
    const script = join(dir, 'roll.py');
    await writeFile(script, 'client.stop_engine()\n');
    await expect(checkEngineRestart(request({ kind: 'train' }), script)).rejects.toMatchObject({ code: 'JOB_NEEDS_CONFIRMATION', message: expect.stringContaining('stop_engine()') });
    await expect(checkEngineRestart(request({ kind: 'debug-episode' }), script)).rejects.toMatchObject({ code: 'JOB_NEEDS_CONFIRMATION' });
    await expect(checkEngineRestart(request({ kind: 'train', confirmEngineRestart: true }), script)).resolves.toBeUndefined();
    await expect(checkEngineRestart(request({ kind: 'script' }), script)).resolves.toBeUndefined();
    await expect(checkEngineRestart(request({ kind: 'episode-test' }), script)).resolves.toBeUndefined();
  });
});

describe('paths', () => {
  it('PROJECT_INVALID for a missing folder or script; a relative script resolves against cwd', async () => {
    await expect(checkCwd(join(dir, 'nope'))).rejects.toMatchObject({ code: 'PROJECT_INVALID' });
    await writeFile(join(dir, 'a-file'), '');
    await expect(checkCwd(join(dir, 'a-file'))).rejects.toMatchObject({ code: 'PROJECT_INVALID' });
    await expect(resolveScript(dir, 'missing.py')).rejects.toMatchObject({ code: 'PROJECT_INVALID', message: expect.stringContaining(join(dir, 'missing.py')) });
    await writeFile(join(dir, 'ok.py'), '');
    expect(await resolveScript(dir, 'ok.py')).toBe(join(dir, 'ok.py'));
  });

  it('PYTHON_NOT_FOUND for a missing path, a folder and a file without the x bit', async () => {
    await expect(checkPython('/nowhere/python')).rejects.toMatchObject({ code: 'PYTHON_NOT_FOUND' });
    await expect(checkPython(dir)).rejects.toMatchObject({ code: 'PYTHON_NOT_FOUND' });
    const plain = join(dir, 'python-plain');
    await writeFile(plain, '#!/bin/sh\n');
    await chmod(plain, 0o644);
    await expect(checkPython(plain)).rejects.toMatchObject({ code: 'PYTHON_NOT_FOUND', message: expect.stringContaining(plain) });
    await expect(checkPython('/usr/bin/python3')).resolves.toBeUndefined();
  });
});

describe('checkSwarmHealth', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => res.writeHead(req.url === '/health' ? 503 : 404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('an HTTP error status is SWARM_UNREACHABLE saying what it answered (a trailing slash in the URL is fine)', async () => {
    await expect(checkSwarmHealth(`${url}/`, { engineId: 'local', containerId: 'c1' })).rejects.toMatchObject({
      code: 'SWARM_UNREACHABLE',
      message: expect.stringContaining(`${url}/health (it answered HTTP 503)`),
    });
  });

  it('no URL: the server is not running or not watched', async () => {
    await expect(checkSwarmHealth(null, { engineId: 'ssh-1', containerId: '0123456789abcdef0123' })).rejects.toMatchObject({
      code: 'SWARM_UNREACHABLE',
      message: expect.stringContaining('0123456789ab on ssh-1 is not running'),
    });
  });
});

describe('jobEnv', () => {
  it('puts the LLM endpoint from the vault in env (key under both names, base URL, model) and sets the swarm URL and model path', async () => {
    const vault = new MemoryVault();
    await vault.save({ id: 'llm', name: 'LLM', kind: 'llm', value: 'sk-unit-env-0123456789', llm: { baseUrl: 'https://api.example/v1', model: 'm-1' } });
    const env = await jobEnv(request({ llmSecretId: 'llm', remoteModelPath: '/models/q' }), vault, 'http://127.0.0.1:10086', { X: '1' }, { PATH: '/bin' });
    expect(env).toEqual({
      PATH: '/bin',
      X: '1',
      PYTHONUNBUFFERED: '1',
      PYTHONIOENCODING: 'utf-8',
      AJET_SWARM_URL: 'http://127.0.0.1:10086',
      REMOTE_MODEL_PATH: '/models/q',
      OPENAI_API_KEY: 'sk-unit-env-0123456789',
      API_KEY: 'sk-unit-env-0123456789',
      OPENAI_BASE_URL: 'https://api.example/v1',
      BASE_URL: 'https://api.example/v1',
      OPENAI_API_BASE: 'https://api.example/v1',
      OPENAI_MODEL: 'm-1',
      AJET_DEBUG_MODEL: 'm-1',
    });
  });

  it("drops the app's own AJET_SWARM_URL and REMOTE_MODEL_PATH when the job has none", async () => {
    const env = await jobEnv(request(), new MemoryVault(), null, { REMOTE_MODEL_PATH: '/extra' }, { AJET_SWARM_URL: 'http://stale', REMOTE_MODEL_PATH: '/stale', HOME: '/h' });
    expect(env.AJET_SWARM_URL).toBeUndefined();
    expect(env.REMOTE_MODEL_PATH).toBeUndefined();
    expect(env.HOME).toBe('/h');
  });

  it('VAULT_LOCKED, SECRET_NOT_FOUND and a secret that is not an LLM endpoint stop the start', async () => {
    const vault = new MemoryVault();
    await vault.save({ id: 'ssh-key', name: 'SSH', kind: 'ssh-password', value: 'hunter2-hunter2', llm: null });
    await expect(jobEnv(request({ llmSecretId: 'nope' }), vault, null, {})).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
    await expect(jobEnv(request({ llmSecretId: 'ssh-key' }), vault, null, {})).rejects.toMatchObject({ code: 'SECRET_WRONG_KIND', message: expect.stringContaining('"SSH" is an SSH password') });
    await vault.save({ id: 'llm', name: 'LLM', kind: 'llm', value: 'sk-unit-env-0123456789', llm: { baseUrl: 'https://api.example/v1', model: 'm' } });
    await vault.lock();
    await expect(jobEnv(request({ llmSecretId: 'llm' }), vault, null, {})).rejects.toMatchObject({ code: 'VAULT_LOCKED' });
  });
});

describe('jobEnv: the key goes only to its own endpoint', () => {
  it('overwrites inherited base URLs, refuses one the caller set to another origin, and allows the same origin', async () => {
    const vault = new MemoryVault();
    await vault.save({ id: 'llm', name: 'LLM', kind: 'llm', value: 'sk-unit-env-0123456789', llm: { baseUrl: 'https://api.example/v1', model: 'm' } });
    const inherited = await jobEnv(request({ llmSecretId: 'llm' }), vault, null, {}, { OPENAI_API_BASE: 'http://127.0.0.1:9/v1', BASE_URL: 'http://elsewhere/' });
    expect([inherited.OPENAI_BASE_URL, inherited.BASE_URL, inherited.OPENAI_API_BASE]).toEqual(['https://api.example/v1', 'https://api.example/v1', 'https://api.example/v1']);
    await expect(jobEnv(request({ llmSecretId: 'llm' }), vault, null, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).rejects.toMatchObject({
      code: 'SECRET_ENDPOINT_MISMATCH',
      message: expect.stringContaining('The job (its OPENAI_BASE_URL) would send the key "LLM" to http://127.0.0.1:9, but it was saved for https://api.example'),
    });
    expect(vault.reveals).toBe(1);
    const same = await jobEnv(request({ llmSecretId: 'llm' }), vault, null, { BASE_URL: 'https://api.example:443/other' });
    expect(same.BASE_URL).toBe('https://api.example/v1');
  });
});

describe('trainSlotKey', () => {
  it('one slot per profile for train runs, per server for the dry run (no profile), none for other kinds', () => {
    const swarm = { engineId: 'local', containerId: 'c1', profileId: 'p1' };
    expect(trainSlotKey({ kind: 'train', swarm })).toBe('profile:p1');
    expect(trainSlotKey({ kind: 'train', swarm: { ...swarm, containerId: 'c2' } })).toBe('profile:p1');
    expect(trainSlotKey({ kind: 'train', swarm: { ...swarm, profileId: null } })).toBe('server:local:c1');
    expect(trainSlotKey({ kind: 'debug-episode', swarm })).toBeNull();
    expect(trainSlotKey({ kind: 'train', swarm: null })).toBeNull();
  });
});
