import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SERVER_LIMITS, startBrowserHost, type BrowserHost } from '../../../electron/browser-host/server';
import { EventHub } from '../../../electron/services/events';
import type { Handlers } from '../../../electron/services/ipc/handlers';

/**
 * The browser host's edges against the real server on loopback: Node's defaults (300 s for a
 * request, no cap on connections) would let one stuck or hostile local client tie it up.
 */
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
    host = await startBrowserHost({ handlers: {} as Handlers, hub: new EventHub(), staticDir: dir, limits });
    return host;
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
    expect(SERVER_LIMITS).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 64 });
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
    expect(result.afterMs).toBeLessThan(3_000);
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
    expect(result.afterMs).toBeLessThan(4_000);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { port } = await start({ keepAliveTimeoutMs: 300 });
    const socket = await open(port);
    const done = closed(socket);
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const result = await done;
    expect(result.received).toMatch(/^HTTP\/1\.1 200/);
    expect(result.received).toMatch(/keep-alive: timeout=0/i);
    expect(result.afterMs).toBeLessThan(2_000);
  });

  it('refuses the 65th open connection and serves again once one closes', async () => {
    const { port } = await start();
    const first64 = await Promise.all(Array.from({ length: SERVER_LIMITS.maxConnections }, () => open(port)));
    const extra = await open(port);
    const refused = await closed(extra);
    expect(refused.received).toBe('');
    // The 64 are still open and served.
    const last = first64[first64.length - 1]!;
    const answer = new Promise<string>((resolve) => last.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    last.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(await answer).toMatch(/^HTTP\/1\.1 200/);
    first64[0]!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await open(port);
    const served = new Promise<string>((resolve) => again.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    again.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(await served).toMatch(/^HTTP\/1\.1 200/);
  });
});
