import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseEncoding } from '../../../electron/browser-host/compression';
import { startBrowserHost, type BrowserHost } from '../../../electron/browser-host/server';
import { EventHub } from '../../../electron/services/events';
import type { Handlers } from '../../../electron/services/ipc/handlers';

interface RawAnswer {
  status: number;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

/** Raw HTTP: Node's http module never decompresses, so the test sees the bytes on the wire. */
function rawRequest(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function decoded(answer: RawAnswer): string {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(answer.body).toString('utf8');
  return answer.body.toString('utf8');
}

describe('browser host compression (real HTTP on loopback)', () => {
  let dir: string;
  let host: BrowserHost;
  // A built chunk's worth of repetitive JavaScript, and a small file below the threshold.
  const script = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `message number ${i}`))};\n`;
  const tiny = 'export const x = 1;\n';
  // TEST DOUBLE: one handler with a large answer (the HTTP layer is under test, not the services).
  const bigList = Array.from({ length: 200 }, (_, i) => ({ id: `container-${i}`, name: `agentjet-swarm-${i}`, state: 'running' }));
  const handlers = { 'app:info': () => Promise.resolve(bigList) } as unknown as Handlers;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-host-compression-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>AgentSwarm</title>');
    await writeFile(join(dir, 'assets', 'page.js'), script);
    await writeFile(join(dir, 'assets', 'tiny.js'), tiny);
    host = await startBrowserHost({ handlers, hub: new EventHub(), staticDir: dir });
  });

  afterAll(async () => {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends a script in brotli when the browser takes it, with Vary and the compressed length', async () => {
    const answer = await rawRequest(host.port, { path: '/assets/page.js', headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers.vary).toMatch(/Accept-Encoding/i);
    expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(answer.body.length).toBeLessThan(script.length / 3);
    expect(decoded(answer)).toBe(script);
  });

  it('sends gzip to a browser that takes only gzip (Chromium over plain http)', async () => {
    const answer = await rawRequest(host.port, { path: '/assets/page.js', headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(decoded(answer)).toBe(script);
  });

  it('sends the plain file without Accept-Encoding, and small files always plain, both with Vary', async () => {
    const plain = await rawRequest(host.port, { path: '/assets/page.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
    expect(plain.body.toString()).toBe(script);
    const small = await rawRequest(host.port, { path: '/assets/tiny.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body.toString()).toBe(tiny);
  });

  it('keeps the security headers on a compressed answer', async () => {
    const answer = await rawRequest(host.port, { path: '/assets/page.js', headers: { 'accept-encoding': 'br' } });
    expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves a rebuilt file fresh, not its old compressed copy', async () => {
    const changed = `${script}export const more = ${JSON.stringify('x'.repeat(3000))};\n`;
    await writeFile(join(dir, 'assets', 'page.js'), changed);
    const answer = await rawRequest(host.port, { path: '/assets/page.js', headers: { 'accept-encoding': 'br' } });
    expect(decoded(answer)).toBe(changed);
    await writeFile(join(dir, 'assets', 'page.js'), script);
  });

  it('compresses a large API answer as JSON, and leaves it plain for a client that does not ask', async () => {
    const call = (headers: Record<string, string>) =>
      rawRequest(host.port, { method: 'POST', path: '/api/invoke/app:info', headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json', ...headers }, body: '{}' });
    const packed = await call({ 'accept-encoding': 'gzip' });
    expect(packed.headers['content-encoding']).toBe('gzip');
    expect(packed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(packed.headers.vary).toMatch(/Accept-Encoding/i);
    expect(JSON.parse(decoded(packed))).toEqual({ ok: true, value: bigList });
    const plain = await call({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body.toString())).toEqual({ ok: true, value: bigList });
  });
});

describe('chooseEncoding (Accept-Encoding negotiation)', () => {
  it('prefers brotli, honours q-values and refusals, and reads *', () => {
    expect(chooseEncoding('gzip, deflate, br')).toBe('br');
    expect(chooseEncoding('gzip, deflate')).toBe('gzip');
    expect(chooseEncoding('br;q=0.5, gzip;q=0.9')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0')).toBeNull();
    expect(chooseEncoding('identity')).toBeNull();
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('*;q=0.5, br;q=0')).toBe('gzip');
    expect(chooseEncoding(undefined)).toBeNull();
    expect(chooseEncoding('')).toBeNull();
  });
});
