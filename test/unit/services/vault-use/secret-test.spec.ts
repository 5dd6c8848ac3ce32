import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { testSecret } from '../../../../electron/services/secrets/secret-test';
import { startFakeLlm, type FakeLlm } from '../../../fixtures/fake-llm/fake-llm';
import { MemoryVault } from '../../../support/memory-vault';

const KEY = 'sk-test-canary-7f3a9c1b2d4e5f60';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function fakeLlm(): Promise<FakeLlm> {
  const llm = await startFakeLlm({ requireKey: KEY, model: 'fake-debug-model' });
  cleanups.push(() => llm.close());
  return llm;
}

/**
 * TEST DOUBLE: an endpoint with no GET /models (404), one that refuses every key on /models like
 * OpenAI does (the shared fake LLM checks the key on chat completions only), one that echoes the
 * key back, or one that never answers.
 */
async function oddServer(kind: 'no-models' | 'refuse' | 'echo-key' | 'hang'): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (kind === 'hang') return;
      if (kind === 'refuse') {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } }));
        return;
      }
      if (kind === 'echo-key') {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `Key ${String(req.headers.authorization).slice(7)} is revoked` } }));
        return;
      }
      if (req.url === '/v1/models') {
        res.writeHead(404).end('not here');
        return;
      }
      bodies.push(JSON.parse(raw));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'p' }, finish_reason: 'length' }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

async function vaultWith(baseUrl: string, key = KEY, model = 'fake-debug-model'): Promise<MemoryVault> {
  const vault = new MemoryVault();
  await vault.save({ id: 'llm-main', name: 'Main LLM', kind: 'llm', value: key, llm: { baseUrl, model } });
  return vault;
}

describe('testSecret (LLM endpoints, against a fake OpenAI-compatible server on 127.0.0.1)', () => {
  it('GETs {base}/models with the key as a bearer token, says how many models and whether the model is listed, and records it', async () => {
    const llm = await fakeLlm();
    const vault = await vaultWith(llm.url);
    const result = await testSecret(vault, 'llm-main');
    expect(result).toMatchObject({ ok: true, status: 200, method: 'models', message: '200 OK, 1 model, fake-debug-model listed' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(llm.calls.map((c) => `${c.method} ${c.path} ${c.headers.authorization}`)).toEqual([`GET /v1/models Bearer ${KEY}`]);
    expect(vault.meta('llm-main')?.lastTest).toEqual(result);
  });

  it('says when the model is not listed', async () => {
    const llm = await fakeLlm();
    const result = await testSecret(await vaultWith(`${llm.url}/`, KEY, 'gpt-4o-mini'), 'llm-main');
    expect(result.message).toBe('200 OK, 1 model, gpt-4o-mini NOT listed (check the model name)');
  });

  it('reports a refused key as "401 Unauthorized: <the server\'s words>" and records the failure', async () => {
    const odd = await oddServer('refuse');
    const vault = await vaultWith(odd.url, 'sk-wrong-key-0000000000000000');
    const result = await testSecret(vault, 'llm-main');
    expect(result).toMatchObject({ ok: false, status: 401, method: 'models', message: '401 Unauthorized: Incorrect API key provided.' });
    expect(vault.meta('llm-main')?.lastTest?.ok).toBe(false);
  });

  it('falls back to a 1-token chat completion with the endpoint\'s model where GET /models is missing (404)', async () => {
    const odd = await oddServer('no-models');
    const result = await testSecret(await vaultWith(odd.url, KEY, 'qwen-7b'), 'llm-main');
    expect(result).toMatchObject({ ok: true, status: 200, method: 'chat' });
    expect(result.message).toContain('1-token chat completion with qwen-7b answered');
    expect(odd.bodies).toEqual([expect.objectContaining({ model: 'qwen-7b', max_tokens: 1 })]);
  });

  it('redacts a key the server echoes back in its error', async () => {
    const odd = await oddServer('echo-key');
    const result = await testSecret(await vaultWith(odd.url), 'llm-main');
    expect(result.ok).toBe(false);
    expect(result.message).toContain('401');
    expect(result.message).not.toContain(KEY);
  });

  it('gives up after the timeout with a plain message (no status, no latency)', async () => {
    const odd = await oddServer('hang');
    const vault = await vaultWith(odd.url);
    const { testSecret: run } = await import('../../../../electron/services/secrets/secret-test');
    const result = await run(vault, 'llm-main', { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, status: null, latencyMs: null });
    expect(result.message).toMatch(/^No answer from 127\.0\.0\.1:\d+ within 0 s/);
  });

  it('says nothing listens when the connection is refused', async () => {
    const odd = await oddServer('hang');
    const port = new URL(odd.url).port;
    await cleanups.pop()!();
    const result = await testSecret(await vaultWith(`http://127.0.0.1:${port}/v1`), 'llm-main');
    expect(result).toMatchObject({ ok: false, status: null, message: `Nothing listens at 127.0.0.1:${port} (connection refused). Check the base URL and port.` });
  });

  it('says plainly what testing means for the kinds it cannot test here, and records nothing', async () => {
    const vault = new MemoryVault();
    await vault.save({ id: 'gpu-pw', name: 'gpu password', kind: 'ssh-password', value: 'hunter2-long', llm: null });
    await vault.save({ id: 'swan', name: 'swanlab', kind: 'swanlab', value: 'swanlab-key-123', llm: null });
    await expect(testSecret(vault, 'gpu-pw')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('by connecting to the server that uses it') });
    await expect(testSecret(vault, 'swan')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('cannot be tested here') });
    await expect(testSecret(vault, 'nope')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
    expect(vault.meta('gpu-pw')?.lastTest).toBeNull();
  });

  it('fails with VAULT_LOCKED while the vault is locked', async () => {
    const llm = await fakeLlm();
    const vault = await vaultWith(llm.url);
    vault.locked = true;
    await expect(testSecret(vault, 'llm-main')).rejects.toMatchObject({ code: 'VAULT_LOCKED' });
    expect(llm.calls).toEqual([]);
  });
});
