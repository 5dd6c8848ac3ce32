import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SERVER_LIMITS, startBrowserHost, type BrowserHost } from '../../../electron/browser-host/server';
import { EventHub } from '../../../electron/services/events';
import type { Handlers } from '../../../electron/services/ipc/handlers';

/** One real handler, so API calls get a real answer through the same dispatch as the app's. */
const HANDLERS = { 'app:info': () => Promise.resolve({ version: 'test', host: 'browser', platform: process.platform }) } as unknown as Handlers;

/** One request on a new connection (no keep-alive agent), with the headers exactly as given. */
function rawRequest(port: number, options: { method?: string; path: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.setTimeout(5_000, () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * The browser host's edges against the real server on loopback: Node's defaults (300 s for a
 * request, no cap on connections) would let one stuck or hostile local client tie it up.
 */
// Upper bounds sit below the next slower path (the default timeout a broken limit would fall back to, or never), not
// at what an idle machine takes: on two cores at load 24 a 300 ms deadline was seen to close after over a second.
describe('browser host limits (real server, raw sockets)', () => {
  let dir: string;
  let host: BrowserHost | null = null;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-limits-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>x</title>');
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await host?.close();
    host = null;
    await rm(dir, { recursive: true, force: true });
  });

  async function start(limits: Partial<typeof SERVER_LIMITS> = {}): Promise<BrowserHost> {
    host = await startBrowserHost({ handlers: HANDLERS, hub: new EventHub(), staticDir: dir, limits });
    return host;
  }

  /** Sends GET / on `socket` and resolves with the start of the answer (so: the server kept it open). */
  function served200(socket: Socket, port: number): Promise<string> {
    const answer = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    return answer;
  }

  function open(port: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
      socket.on('error', reject);
      sockets.push(socket);
    });
  }

  /** Resolves with the ms until the server closed the socket, and what it sent before. */
  function closed(socket: Socket, since = Date.now()): Promise<{ afterMs: number; received: string }> {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    return new Promise((resolve) => socket.once('close', () => resolve({ afterMs: Date.now() - since, received })));
  }

  it('has timeouts far below Node\'s 300 s default and a connection cap', () => {
    expect(SERVER_LIMITS).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxUnauthenticated: 32,
      unauthenticatedHeadersTimeoutMs: 3_000,
      unauthenticatedGraceMs: 500,
      maxUnauthenticatedBurst: 256,
    });
  });

  it('closes a slow-loris socket whose headers never finish (headers timeout)', async () => {
    const { port } = await start({ headersTimeoutMs: 400, requestTimeoutMs: 5_000, checkIntervalMs: 100 });
    const socket = await open(port);
    const started = Date.now();
    const done = closed(socket, started);
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    // One more header line now and then, never the blank line that ends them.
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
    const result = await done.finally(() => clearInterval(drip));
    expect(result.afterMs).toBeGreaterThanOrEqual(350);
    expect(result.afterMs).toBeLessThan(4_500);
    expect(result.received).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a request whose body never finishes (request timeout)', async () => {
    const { port, token } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 700, checkIntervalMs: 100 });
    const socket = await open(port);
    const started = Date.now();
    const done = closed(socket, started);
    socket.write(
      `POST /api/invoke/app:info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const drip = setInterval(() => socket.writable && socket.write(' '), 100);
    const result = await done.finally(() => clearInterval(drip));
    expect(result.afterMs).toBeGreaterThanOrEqual(600);
    expect(result.afterMs).toBeLessThan(10_000);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { port } = await start({ keepAliveTimeoutMs: 300 });
    const socket = await open(port);
    const done = closed(socket);
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const result = await done;
    expect(result.received).toMatch(/^HTTP\/1\.1 200/);
    expect(result.received).toMatch(/keep-alive: timeout=0/i);
    expect(result.afterMs).toBeLessThan(4_000);
  });

  it('makes room for a newcomer by closing the oldest connection that has not shown the token', async () => {
    const { port } = await start({ maxUnauthenticated: 4, unauthenticatedGraceMs: 0 });
    const idle = await Promise.all(Array.from({ length: 4 }, () => open(port)));
    const oldestClosed = closed(idle[0]!);
    const newcomer = await open(port);
    expect((await oldestClosed).received).toBe('');
    const served = new Promise<string>((resolve) => newcomer.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    newcomer.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(await served).toMatch(/^HTTP\/1\.1 200/);
    // The other three are still open and served.
    for (const socket of idle.slice(1)) expect(await served200(socket, port)).toMatch(/^HTTP\/1\.1 200/);
  });

  it('spares connections younger than the grace until the burst limit, then closes the oldest', async () => {
    const { port } = await start({ maxUnauthenticated: 2, unauthenticatedGraceMs: 60_000, maxUnauthenticatedBurst: 4 });
    const young = await Promise.all(Array.from({ length: 4 }, () => open(port)));
    const oldestClosed = closed(young[0]!);
    // Four young ones stay, though the cap is 2; the fifth is past the burst limit: the oldest goes.
    const fifth = await open(port);
    expect((await oldestClosed).received).toBe('');
    for (const socket of [...young.slice(1), fifth]) expect(await served200(socket, port)).toMatch(/^HTTP\/1\.1 200/);
  });

  it('never counts or evicts an authenticated event WebSocket or a connection that showed the token', async () => {
    const hub = new EventHub();
    host = await startBrowserHost({ handlers: HANDLERS, hub, staticDir: dir, limits: { maxUnauthenticated: 2, unauthenticatedHeadersTimeoutMs: 60_000 } });
    const { port, token } = host;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/events?token=${token}`, { headers: { host: `127.0.0.1:${port}` } });
    await new Promise((ok, ko) => ws.once('open', ok).once('error', ko));
    // A keep-alive connection that showed the token once.
    const authed = await open(port);
    const first = new Promise<string>((resolve) => authed.once('data', (c: Buffer) => resolve(c.toString())));
    authed.write(`POST /api/invoke/app:info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Length: 2\r\n\r\n{}`);
    expect(await first).toMatch(/^HTTP\/1\.1 200/);
    // Many more idle unauthenticated sockets than the cap of 2.
    await Promise.all(Array.from({ length: 6 }, () => open(port)));
    const event = new Promise<string>((resolve) => ws.once('message', (m: Buffer) => resolve(m.toString())));
    hub.emit('engines:changed', {} as never);
    expect(JSON.parse(await event)).toMatchObject({ channel: 'engines:changed' });
    const second = new Promise<string>((resolve) => authed.once('data', (c: Buffer) => resolve(c.toString())));
    authed.write(`POST /api/invoke/app:info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 2\r\n\r\n{}`);
    expect(await second).toMatch(/^HTTP\/1\.1 401/); // still our connection: answered (the token is checked per request)
    ws.close();
  });

  it('closes a connection that sends no complete request within the short deadline for unauthenticated ones', async () => {
    const { port } = await start({ unauthenticatedHeadersTimeoutMs: 300 });
    const socket = await open(port);
    const result = await closed(socket);
    expect(result.afterMs).toBeLessThan(6_000);
    expect(result.received).toBe('');
  });

  it('keeps the page and 20 API calls in a row quick while 300 slow sockets, reopened when closed, hold the server', async () => {
    const { port, token } = await start();
    const limit = { attacking: true, opens: 0 };
    const MAX_OPENS = 6_000; // bounded even if the server never closed one: the loop stops by itself
    const slow = new Set<Socket>();
    const drips: NodeJS.Timeout[] = [];
    /** A slow-loris socket: a header line now and then, never the end; reopened a moment after it is closed. */
    const attack = (): void => {
      if (!limit.attacking || limit.opens >= MAX_OPENS) return;
      limit.opens += 1;
      const socket = connect({ host: '127.0.0.1', port });
      slow.add(socket);
      socket.on('error', () => undefined);
      socket.on('connect', () => socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`));
      socket.on('close', () => {
        slow.delete(socket);
        setTimeout(attack, 200);
      });
    };
    for (let i = 0; i < 300; i++) attack();
    drips.push(setInterval(() => slow.forEach((s) => s.writable && s.write('X-Slow: 1\r\n')), 500));
    try {
      // Wait until the 300 are in (bounded): the attack is really holding the server.
      for (let i = 0; i < 200 && slow.size < 300; i++) await new Promise((r) => setTimeout(r, 25));
      expect(slow.size).toBeGreaterThanOrEqual(250);

      const timed = async (send: () => Promise<{ status: number; body: string }>) => {
        const started = Date.now();
        const answer = await send();
        return { ...answer, ms: Date.now() - started };
      };
      // The page itself comes without the token (it is in the URL fragment), on a new connection.
      const page = await timed(() => rawRequest(port, { path: '/', headers: { host: `127.0.0.1:${port}` } }));
      expect(page.status).toBe(200);
      expect(page.ms).toBeLessThan(5_000);
      for (let i = 0; i < 20; i++) {
        // Each call on a fresh connection: the hardest case, every one has to get in past the attack.
        const call = await timed(() =>
          rawRequest(port, {
            method: 'POST',
            path: '/api/invoke/app:info',
            headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: '{}',
          }),
        );
        expect(call.status).toBe(200);
        expect(JSON.parse(call.body)).toMatchObject({ ok: true, value: { version: 'test' } });
        expect(call.ms).toBeLessThan(5_000);
      }
    } finally {
      limit.attacking = false;
      drips.forEach(clearInterval);
      for (const socket of slow) socket.destroy();
    }
  });
});
