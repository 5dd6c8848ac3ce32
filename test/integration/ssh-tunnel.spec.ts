// The swarm tunnel against the test bed's real OpenSSH sshd (127.0.0.1:2222) and a real HTTP
// server on 127.0.0.1 (the "remote" swarm port: the test bed's server shares our loopback).
// Needs `bash test/testbed/testbed.sh up`.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../electron/shared/errors';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { SshTunnel } from '../../electron/services/ssh/tunnel';
import { TunnelSet } from '../../electron/services/ssh/tunnel-set';
import { loadTestbed } from '../testbed/testbed';
import { freePort, poll } from '../support/helpers';
import { connectToTestbed } from '../support/testbed-ssh';

const tb = loadTestbed();

function connect(): Promise<SshConnection> {
  return connectToTestbed({ readyTimeoutMs: 60_000 }, tb);
}

/** One GET on a fresh connection (no keep-alive): resolves with the body. */
function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** A GET that keeps its connection open afterwards, with the socket, to watch it end later. */
function getKeepingSocket(url: string): Promise<{ body: string; socket: net.Socket; agent: http.Agent }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ body, socket: req.socket!, agent }));
    });
    req.on('error', reject);
  });
}

function closedSocket(socket: net.Socket): Promise<void> {
  return socket.destroyed ? Promise.resolve() : new Promise((ok) => socket.once('close', () => ok()));
}

async function codeOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a failure');
}

/** Listens on 127.0.0.1:`port` in this process, to make a port taken. */
function hold(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

let httpServer: http.Server;
let httpPort = 0;
let connection: SshConnection;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  httpServer = http.createServer((req, res) => res.end(`hello ${req.url}`));
  httpServer.keepAliveTimeout = 60_000;
  httpPort = await freePort();
  await new Promise<void>((ok) => httpServer.listen(httpPort, '127.0.0.1', ok));
  connection = await connect();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

afterAll(async () => {
  await connection?.close();
  httpServer?.closeAllConnections();
  await new Promise((ok) => httpServer?.close(ok));
});

async function openTunnel(localPort: number, openChannel = () => connection.forwardOut('127.0.0.1', httpPort), portSpan?: number) {
  const tunnel = await SshTunnel.open({ openChannel, remotePort: httpPort, localPort, ...(portSpan === undefined ? {} : { portSpan }) });
  cleanups.push(() => tunnel.close());
  return tunnel;
}

describe('SshTunnel through the test bed sshd', () => {
  it('forwards HTTP from 127.0.0.1 through an SSH channel, and lets sockets go when they close', async () => {
    const port = await freePort();
    const tunnel = await openTunnel(port);
    expect(tunnel.url).toBe(`http://127.0.0.1:${port}`);
    expect([tunnel.localPort, tunnel.requestedLocalPort, tunnel.portWasTaken, tunnel.portTakenBy]).toEqual([port, port, false, null]);
    const bodies = await Promise.all([1, 2, 3, 4, 5].map((n) => get(`${tunnel.url}/n${n}`)));
    expect(bodies).toEqual(['hello /n1', 'hello /n2', 'hello /n3', 'hello /n4', 'hello /n5']);
    await poll('sockets to close', 5_000, async () => (tunnel.openSockets === 0 ? true : undefined));
    expect(tunnel.channelFailures).toBe(0);
  });

  it('holds what a client sends before its channel is open, even a half-close, and answers it in full', async () => {
    // The channel opens 200 ms late: the request and the client's FIN arrive before it exists.
    const tunnel = await openTunnel(0, async () => {
      await new Promise((ok) => setTimeout(ok, 200));
      return connection.forwardOut('127.0.0.1', httpPort);
    });
    const client = net.connect(tunnel.localPort, '127.0.0.1');
    client.end('GET /early HTTP/1.0\r\nHost: x\r\n\r\n');
    let answer = '';
    client.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    await closedSocket(client);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.endsWith('\r\n\r\nhello /early')).toBe(true);
  });

  it('uses the next free port when the requested one is taken, and names this process as the holder', async () => {
    const port = await freePort();
    const holder = await hold(port);
    cleanups.push(() => new Promise((ok) => holder.close(ok)));
    const tunnel = await openTunnel(port);
    const comm = readFileSync('/proc/self/comm', 'utf8').trim();
    expect(tunnel.requestedLocalPort).toBe(port);
    expect(tunnel.portWasTaken).toBe(true);
    expect(tunnel.localPort).toBeGreaterThan(port);
    expect(tunnel.localPort).toBeLessThanOrEqual(port + 50);
    expect(tunnel.portTakenBy).toBe(`${comm} (pid ${process.pid})`);
    expect(await get(`${tunnel.url}/moved`)).toBe('hello /moved');
  });

  it('fails with TUNNEL_FAILED naming the range, the holder and the fix when no port in the span is free', async () => {
    const port = await freePort();
    const holders = await Promise.all([hold(port), hold(port + 1)]).catch(async (error: unknown) => {
      throw new Error(`port ${port + 1} happened to be busy; re-run (${String(error)})`);
    });
    cleanups.push(() => Promise.all(holders.map((h) => new Promise((ok) => h.close(ok)))));
    const failure = await codeOf(openTunnel(port, undefined, 1));
    expect(failure.code).toBe('TUNNEL_FAILED');
    expect(failure.message).toContain(`ports ${port}–${port + 1} are all taken`);
    expect(failure.message).toContain(`(pid ${process.pid})`);
    expect(failure.message).toContain(`Free port ${port}, or choose another local port`);
  });

  it('closes only the socket whose channel fails (nothing listens on the server port); the tunnel keeps serving', async () => {
    const deadPort = await freePort();
    let target = httpPort;
    const tunnel = await openTunnel(0, () => connection.forwardOut('127.0.0.1', target));
    const kept = await getKeepingSocket(`${tunnel.url}/before`);
    cleanups.push(async () => kept.agent.destroy());
    expect(kept.body).toBe('hello /before');

    target = deadPort;
    const failed = await get(`${tunnel.url}/dead`).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(['ECONNRESET', 'socket hang up']).toContain(failed);
    expect(tunnel.channelFailures).toBe(1);
    expect(tunnel.lastChannelError?.message).toContain(`127.0.0.1:${deadPort}`);

    target = httpPort;
    expect(await get(`${tunnel.url}/after`)).toBe('hello /after');
    // The socket opened before the failure still carries requests.
    expect(kept.socket.destroyed).toBe(false);
    expect(await getOn(kept.agent, `${tunnel.url}/again`)).toBe('hello /again');
  });

  it('shares one tunnel per remote port among its holders and closes it with the last release', async () => {
    const set = new TunnelSet((remotePort) => connection.forwardOut('127.0.0.1', remotePort));
    cleanups.push(() => set.closeAll());
    const preferred = await freePort();
    const [a, b] = await Promise.all([set.acquire(httpPort, preferred), set.acquire(httpPort, preferred + 7)]);
    expect(b.tunnel).toBe(a.tunnel);
    expect(a.tunnel.localPort).toBe(preferred);
    await a.release();
    await a.release(); // a second release of the same lease must not close b's tunnel
    expect(await get(`${b.tunnel.url}/shared`)).toBe('hello /shared');
    await b.release();
    expect(await get(`${b.tunnel.url}/gone`).catch((e: NodeJS.ErrnoException) => e.code)).toBe('ECONNREFUSED');

    const c = await set.acquire(httpPort, preferred);
    expect(c.tunnel).not.toBe(a.tunnel);
    expect(await get(`${c.tunnel.url}/reopened`)).toBe('hello /reopened');
    await set.closeAll();
    expect(await get(`${c.tunnel.url}/closed`).catch((e: NodeJS.ErrnoException) => e.code)).toBe('ECONNREFUSED');
  });

  it('keeps listening across a connection swap: sockets of the old connection end, new ones use the new one', async () => {
    let current = await connect();
    const first = current;
    cleanups.push(() => first.close());
    const tunnel = await openTunnel(0, () => current.forwardOut('127.0.0.1', httpPort));
    const old = await getKeepingSocket(`${tunnel.url}/old`);
    cleanups.push(async () => old.agent.destroy());
    expect(old.body).toBe('hello /old');

    const second = await connect();
    cleanups.push(() => second.close());
    current = second;
    await first.close();
    await closedSocket(old.socket);
    expect(await get(`${tunnel.url}/new`)).toBe('hello /new');
  });

  it('after the sshd process serving the connection is killed, its sockets end and the same URL works on a new connection', async () => {
    let current = await connect();
    const doomed = current;
    const tunnel = await openTunnel(0, () => current.forwardOut('127.0.0.1', httpPort));
    const url = tunnel.url;
    const lost = new Promise<AppError | null>((ok) => doomed.once('closed', ok));
    // What the server session does on `closed`; the sockets also end on their own (channels close).
    doomed.once('closed', () => tunnel.dropSockets());
    const open = await getKeepingSocket(`${url}/open`);
    cleanups.push(async () => open.agent.destroy());
    expect(tunnel.openSockets).toBe(1);

    // The sshd child that serves this connection is the parent of our login shell.
    const pid = Number((await doomed.exec('echo $PPID')).stdout.trim());
    expect(readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('sshd');
    process.kill(pid, 'SIGKILL');
    expect((await lost)?.code).toBe('SSH_DISCONNECTED');
    await closedSocket(open.socket);
    // Our end of that socket closes a moment after the client's.
    await poll('the tunnel to let the socket go', 5_000, async () => (tunnel.openSockets === 0 ? true : undefined));

    // While there is no connection, a request fails alone and the listener stays.
    expect(await get(`${url}/meanwhile`).then(() => 'answered', () => 'failed')).toBe('failed');
    current = await connect();
    const revived = current;
    cleanups.push(() => revived.close());
    expect(tunnel.url).toBe(url);
    expect(await get(`${url}/back`)).toBe('hello /back');
  });
});

function getOn(agent: http.Agent, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}
