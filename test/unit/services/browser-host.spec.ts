import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserHost, type BrowserHost } from '../../../electron/browser-host/server';
import { createAppServices, type AppServices } from '../../../electron/services/app-services';
import { EventHub } from '../../../electron/services/events';

/** Raw HTTP so tests can set Host and Origin the way another site or a rebinding attack would. */
function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('browser host (real HTTP + WebSocket on loopback)', () => {
  let dir: string;
  let staticDir: string;
  let hub: EventHub;
  let services: AppServices;
  let host: BrowserHost;
  const auth = () => ({ authorization: `Bearer ${host.token}`, 'content-type': 'application/json' });
  const invoke = (channel: string, body: unknown, headers: Record<string, string> = auth()) =>
    rawRequest(host.port, { method: 'POST', path: `/api/invoke/${channel}`, headers, body: JSON.stringify(body) });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-host-'));
    staticDir = join(dir, 'static');
    await rm(staticDir, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(staticDir));
    await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>AgentSwarm</title>');
    await writeFile(join(dir, 'secret.txt'), 'outside the static root');
    hub = new EventHub();
    // An engine that is certainly not there: the host must still answer with a clear envelope.
    services = createAppServices({ dataDir: join(dir, 'data'), host: 'browser', version: '0.0.0-test', events: hub, dockerHost: `unix://${join(dir, 'no-docker.sock')}` });
    await services.start();
    host = await startBrowserHost({ handlers: services.handlers, hub, staticDir });
  });

  afterAll(async () => {
    await host.close();
    await services.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 with a random 256-bit token in the URL fragment', () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(host.token).toMatch(/^[0-9a-f]{64}$/);
    expect(host.openUrl).toBe(`${host.url}#token=${host.token}`);
  });

  it('refuses to bind a non-loopback address unless asked explicitly', async () => {
    await expect(startBrowserHost({ handlers: services.handlers, hub, staticDir, host: '192.0.2.10' })).rejects.toThrow(/loopback/);
    await expect(
      startBrowserHost({ handlers: services.handlers, hub, staticDir, host: '0.0.0.0', allowNonLoopback: true }),
    ).rejects.toThrow(/wildcard/);
  });

  it('answers a valid call with the ok envelope', async () => {
    const res = await invoke('app:info', {});
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true, value: { version: '0.0.0-test', host: 'browser', platform: process.platform, shellStore: null } });
  });

  it('requires the token', async () => {
    const missing = await invoke('app:info', {}, { 'content-type': 'application/json' });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body).error.code).toBe('FORBIDDEN');
    const wrong = await invoke('app:info', {}, { authorization: `Bearer ${'0'.repeat(64)}` });
    expect(wrong.status).toBe(401);
  });

  it('rejects another Origin and a rebound Host header', async () => {
    const otherOrigin = await invoke('app:info', {}, { ...auth(), origin: 'http://evil.example' });
    expect(otherOrigin.status).toBe(403);
    const rebound = await invoke('app:info', {}, { ...auth(), host: `evil.example:${host.port}` });
    expect(rebound.status).toBe(403);
    const sameOrigin = await invoke('app:info', {}, { ...auth(), origin: `http://127.0.0.1:${host.port}` });
    expect(sameOrigin.status).toBe(200);
  });

  it('validates payloads with the contract and names the field', async () => {
    const res = await invoke('swarm:start', { engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main', port: 99999 });
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: { code: 'VALIDATION_FAILED', message: 'port: port must be 65535 or lower' } });
    const unknown = await invoke('swarm:explode', {});
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe('UNKNOWN_CHANNEL');
    const badEscape = await invoke('app%E0%A4%A', {});
    expect(badEscape.status).toBe(404);
    expect(JSON.parse(badEscape.body).error.code).toBe('UNKNOWN_CHANNEL');
    const badJson = await rawRequest(host.port, { method: 'POST', path: '/api/invoke/app:info', headers: auth(), body: '{oops' });
    expect(JSON.parse(badJson.body).error.code).toBe('VALIDATION_FAILED');
  });

  it('turns an unreachable engine into ENGINE_UNREACHABLE with a fix, not a stack trace', async () => {
    const res = await invoke('swarm:start', { engineId: 'local', image: '127.0.0.1:5000/agentswarm-test/fake-swarm:1', port: 10086 });
    const body = JSON.parse(res.body);
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe('ENGINE_UNREACHABLE');
    expect(body.error.message).toContain('no-docker.sock');
    expect(body.error.message).toMatch(/Is the Docker daemon running/);
    expect(body.error.message).not.toMatch(/\n\s+at /);
  });

  it('serves the UI with a strict CSP and never files outside the static root', async () => {
    const page = await rawRequest(host.port, { path: '/' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('AgentSwarm');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe');
    const traversal = await rawRequest(host.port, { path: '/..%2Fsecret.txt' });
    expect(traversal.status).toBe(400);
    expect(traversal.body).not.toContain('outside the static root');
    const fallback = await rawRequest(host.port, { path: '/servers' });
    expect(fallback.body).toContain('AgentSwarm');
  });

  it('pushes events over the WebSocket only with the token', async () => {
    const refused = new WebSocket(`ws://127.0.0.1:${host.port}/api/events?token=nope`);
    const refusedOutcome = await new Promise<string>((resolve) => {
      refused.on('open', () => resolve('open'));
      refused.on('error', () => resolve('error'));
    });
    expect(refusedOutcome).toBe('error');

    // A page on another site may know nothing of the token, but even with it the Origin check holds
    // (cross-site WebSocket hijacking).
    for (const origin of ['http://evil.example', 'null']) {
      const hijack = new WebSocket(`ws://127.0.0.1:${host.port}/api/events?token=${host.token}`, { origin });
      const outcome = await new Promise<string>((resolve) => {
        hijack.on('open', () => resolve('open'));
        hijack.on('error', () => resolve('error'));
      });
      expect(outcome).toBe('error');
    }

    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/api/events?token=${host.token}`);
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => resolve());
      ws.on('error', reject);
    });
    const received = new Promise<unknown>((resolve) => ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString()))));
    hub.emit('swarm:containers-changed', { engineId: 'local' });
    await expect(received).resolves.toEqual({ channel: 'swarm:containers-changed', payload: { engineId: 'local' } });
    ws.close();
  });
});
