import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { VAULT_FILE } from '../../electron/services/secrets/secret-vault';
import { poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The vault through the browser host, as the page uses it: HTTP invokes with the token and the
 * event socket. A canary value goes in once (secrets:save) and must never come back out — in a
 * response, an event, the app log, or any file of the data folder but the sealed vault.
 */
describe('credentials vault over the browser host', () => {
  const canary = `canary-${randomBytes(16).toString('hex')}-vault`;
  const passphrase = `pass-${randomBytes(6).toString('hex')}`;
  const seen: string[] = [];
  const apps: TestApp[] = [];
  let staticDir = '';
  let dataDir = '';

  afterAll(async () => {
    for (const app of apps.reverse()) await app.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (staticDir) await rm(staticDir, { recursive: true, force: true });
  });

  async function start(): Promise<{ invoke: (channel: string, body?: unknown) => Promise<{ ok: boolean; value?: unknown; error?: { code: string } }>; events: string[]; close: () => void }> {
    staticDir ||= await mkdtemp(join(tmpdir(), 'agentswarm-vault-static-'));
    const app = await startTestApp({ staticDir, ...(dataDir ? { dataDir } : {}) });
    apps.push(app);
    dataDir = app.dataDir;
    const host = app.host;
    if (!host) throw new Error('startTestApp gave no browser host');
    const events: string[] = [];
    const socket = new WebSocket(`ws://127.0.0.1:${host.port}/api/events?token=${host.token}`);
    socket.on('message', (data: WebSocket.RawData) => {
      const text = data.toString();
      events.push(text);
      seen.push(text);
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const invoke = async (channel: string, body: unknown = {}) => {
      const response = await fetch(new URL(`/api/invoke/${channel}`, host.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      seen.push(text);
      return JSON.parse(text) as { ok: boolean; value?: unknown; error?: { code: string } };
    };
    return { invoke, events, close: () => socket.close() };
  }

  it('set up a passphrase vault, save, restart → locked, unlock, list metadata; the value never comes back', async () => {
    const first = await start();
    const initial = await first.invoke('vault:state');
    expect(initial, JSON.stringify(initial)).toMatchObject({ ok: true, value: { status: 'not-set-up', available: ['passphrase', 'session'], keychain: null } });
    expect(await first.invoke('vault:setup', { backend: 'keychain' })).toMatchObject({ ok: false, error: { code: 'KEYCHAIN_UNAVAILABLE' } });
    expect(await first.invoke('vault:setup', { backend: 'passphrase', passphrase })).toMatchObject({ ok: true, value: { status: 'unlocked', backend: 'passphrase' } });
    const saved = await first.invoke('secrets:save', {
      name: 'Test endpoint',
      kind: 'llm',
      value: canary,
      llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'fake-model' },
    });
    expect(saved).toMatchObject({ ok: true, value: { id: 'test-endpoint', kind: 'llm', backend: 'passphrase', protected: true } });
    await poll('the secrets:changed snapshot', 10_000, async () => (first.events.some((e) => e.includes('secrets:changed') && e.includes('test-endpoint')) ? true : undefined));
    first.close();
    await apps[0]?.stop();

    const second = await start();
    expect(await second.invoke('vault:state')).toMatchObject({ ok: true, value: { status: 'locked', backend: 'passphrase', secretCount: 1 } });
    expect(await second.invoke('vault:unlock', { passphrase: 'not the passphrase' })).toMatchObject({ ok: false, error: { code: 'VAULT_WRONG_PASSPHRASE' } });
    expect(await second.invoke('vault:unlock', { passphrase })).toMatchObject({ ok: true, value: { status: 'unlocked' } });
    const listed = await second.invoke('secrets:list');
    expect(listed).toMatchObject({ ok: true, value: [{ id: 'test-endpoint', name: 'Test endpoint', llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'fake-model' }, lastTest: null }] });
    await poll('the vault:changed snapshot after unlock', 10_000, async () => (second.events.some((e) => e.includes('vault:changed') && e.includes('"unlocked"')) ? true : undefined));
    expect(await second.invoke('vault:lock')).toMatchObject({ ok: true, value: { status: 'locked' } });
    second.close();

    // Zero hits is the pass mark: no response, no event, no file but the sealed vault.
    expect(seen.length).toBeGreaterThan(8);
    expect(seen.filter((text) => text.includes(canary))).toEqual([]);
    const files = await listFiles(dataDir);
    expect(files.map((f) => f.slice(dataDir.length + 1))).toContain(VAULT_FILE);
    for (const file of files) expect(`${file}: ${(await readFile(file, 'utf8')).includes(canary)}`).toBe(`${file}: false`);
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : Promise.resolve([join(dir, e.name)]))));
  return nested.flat();
}
