import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { invokeContract, isInvokeChannel, type EventChannel } from '../shared/contract';
import { buildCsp } from '../shared/csp';
import { fail, type Result } from '../shared/result';
import type { EventHub } from '../services/events';
import type { Handlers } from '../services/ipc/handlers';
import { runHandler } from '../services/ipc/run-handler';
import { describeThrown, type Logger } from '../services/util/logger';
import { isLoopbackAddress } from '../services/util/loopback';
import { redactText } from '../services/util/redact';
import { sendMaybeCompressed } from './compression';
import { ConnectionGuard } from './connection-guard';
import { bearerToken, requestComesFromUs, tokenMatches } from './guards';
import { serveStatic } from './static-files';
import { Heartbeat } from './heartbeat';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Node's defaults let a client hold a connection for 300 s and open as many as it likes. This
 * server has one user and one page: short timeouts and a small cap on connections that have not
 * shown the token keep a stuck or hostile local client (a slow-loris socket, a runaway script)
 * from tying it up, and never keep the user's own page out (connection-guard.ts).
 */
export const SERVER_LIMITS = {
  /** All request headers must arrive within this time. */
  headersTimeoutMs: 10_000,
  /** The whole request (headers and body) must arrive within this time. */
  requestTimeoutMs: 30_000,
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: 5_000,
  /**
   * Connections that have not shown the token yet (the page's own files, anything else local), at once.
   * A newcomer is always let in: the oldest of them is closed to make room. Connections that showed
   * the token and the event WebSockets of those do not count.
   */
  maxUnauthenticated: 32,
  /** A new connection is never closed to make room before this: time for it to send its request. */
  unauthenticatedGraceMs: 500,
  /** Young connections may exceed `maxUnauthenticated` up to this many; past it the oldest goes whatever its age. */
  maxUnauthenticatedBurst: 256,
  /** A connection that has not shown the token must send its first request's headers within this time. */
  unauthenticatedHeadersTimeoutMs: 3_000,
  /** How often Node checks the two request timeouts (its default, 30 s, would let them slip). */
  checkIntervalMs: 1_000,
  /** The page's event socket gets a heartbeat this often; it calls the backend lost after 3 s without a message. */
  heartbeatMs: 1_000,
};
const INVOKE_PREFIX = '/api/invoke/';
const EVENTS_PATH = '/api/events';

export interface BrowserHostOptions {
  handlers: Handlers;
  hub: EventHub;
  /** Folder with the built renderer (out/renderer). */
  staticDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Binding anything but loopback exposes the app (and Docker) to the network: opt-in only. */
  allowNonLoopback?: boolean;
  token?: string;
  /** The app log: INTERNAL errors are written there in full (with stack), redacted. */
  logger?: Logger;
  /** Overrides of `SERVER_LIMITS` (tests use short timeouts). */
  limits?: Partial<typeof SERVER_LIMITS>;
}

export interface BrowserHost {
  url: string;
  /** The URL to open, with the token in the fragment (never sent to the server or in Referer). */
  openUrl: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

function securityHeaders(port: number): Record<string, string> {
  return {
    // The one renderer policy (shared/csp.ts), plus exactly our own event socket's origin.
    'content-security-policy': buildCsp({ connect: [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`] }),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
}

function sendJson(response: ServerResponse, status: number, body: Result<unknown>, headers: Record<string, string>): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

/** A handler's answer: lists (containers, jobs, profiles) can be large, so they go out compressed when the page takes it. */
function sendResult(request: IncomingMessage, response: ServerResponse, body: Result<unknown>, headers: Record<string, string>): Promise<void> {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  const jsonHeaders = { ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  return sendMaybeCompressed(response, 200, jsonHeaders, json, request.headers['accept-encoding']);
}

function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('request body larger than 1 MiB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  return text === '' ? {} : (JSON.parse(text) as unknown);
}

/**
 * Serves the same services and contract as Electron's IPC over HTTP + WebSocket on loopback, for
 * browsers (our UI tests, and machines where Electron cannot start). Every API request and socket
 * needs the random token; Host and Origin are checked against DNS rebinding and other sites.
 */
export async function startBrowserHost(options: BrowserHostOptions): Promise<BrowserHost> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackAddress(host) && !options.allowNonLoopback) {
    throw new Error(
      `Refusing to listen on ${host}: the browser host controls Docker and must stay on loopback. ` +
        'Pass --allow-non-loopback only if you really mean to expose it (and use an SSH tunnel instead if you can).',
    );
  }
  if (host === '0.0.0.0' || host === '::' || host === '[::]') {
    // Requests must name the address in their Host header (our DNS-rebinding guard), and a
    // wildcard bind has no single such name: ask for the one address to serve on instead.
    throw new Error(`Refusing to listen on the wildcard address ${host}: pass the one address to serve on, e.g. --host 192.168.1.20.`);
  }
  const token = options.token ?? randomBytes(32).toString('hex');
  const allowedHosts = new Set<string>();
  const sockets = new Set<WebSocket>();
  let headers: Record<string, string> = {};
  const limits = { ...SERVER_LIMITS, ...options.limits };
  const logger = options.logger;

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    (request, response) => {
      guard.requestStarted(request.socket, tokenMatches(token, bearerToken(request)));
      response.once('close', () => guard.requestEnded(request.socket));
      void handleRequest(request, response).catch((error: unknown) => {
        logger?.error?.('browser host: request failed', { url: request.url?.split('?')[0], ...describeThrown(error) });
        if (!response.headersSent) sendJson(response, 500, fail({ code: 'INTERNAL', message: 'request failed' }), headers);
        else response.destroy();
      });
    },
  );
  const guard = new ConnectionGuard(limits);
  server.on('connection', (socket: Socket) => guard.admit(socket));

  async function handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!requestComesFromUs(request, allowedHosts)) {
      sendJson(response, 403, fail({ code: 'FORBIDDEN', message: 'Wrong Host or Origin for this app.' }), headers);
      return;
    }
    const path = new URL(request.url ?? '/', 'http://placeholder').pathname;
    if (!path.startsWith('/api/')) {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        sendJson(response, 405, fail({ code: 'FORBIDDEN', message: 'Only GET is allowed here.' }), headers);
        return;
      }
      await serveStatic(options.staticDir, path, response, headers, request.headers['accept-encoding']);
      return;
    }
    if (!tokenMatches(token, bearerToken(request))) {
      sendJson(response, 401, fail({ code: 'FORBIDDEN', message: 'Missing or wrong app token. Open the URL the app printed.' }), headers);
      return;
    }
    if (request.method !== 'POST' || !path.startsWith(INVOKE_PREFIX)) {
      sendJson(response, 404, fail({ code: 'UNKNOWN_CHANNEL', message: `No API at ${request.method} ${path}.` }), headers);
      return;
    }
    const channel = safeDecode(path.slice(INVOKE_PREFIX.length));
    if (channel === null || !isInvokeChannel(channel)) {
      sendJson(response, 404, fail({ code: 'UNKNOWN_CHANNEL', message: `Unknown channel "${channel ?? '?'}".` }), headers);
      return;
    }
    let payload: unknown;
    try {
      payload = await readJsonBody(request);
    } catch (error) {
      sendJson(response, 400, fail({ code: 'VALIDATION_FAILED', message: redactText(`Bad request body: ${(error as Error).message}`) }), headers);
      return;
    }
    const handler = options.handlers[channel] as (request: unknown) => Promise<unknown>;
    const result = await runHandler(invokeContract[channel].request, payload, handler, logger, channel);
    await sendResult(request, response, result, headers);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const heartbeat = new Heartbeat(limits.heartbeatMs);
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://placeholder');
    const allowed =
      url.pathname === EVENTS_PATH &&
      requestComesFromUs(request, allowedHosts) &&
      tokenMatches(token, url.searchParams.get('token'));
    if (!allowed) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    // Out of the guard before the handshake: an event stream of ours is never evicted as "unauthenticated".
    guard.upgraded(socket as Socket);
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('error', () => sockets.delete(ws));
      if (url.searchParams.get('heartbeat') === '1') heartbeat.add(ws);
    });
  });

  const unsubscribe = options.hub.subscribe((channel: EventChannel, payload: unknown) => {
    const message = JSON.stringify({ channel, payload });
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(message);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: options.port ?? 0 }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  for (const name of [host, '127.0.0.1', 'localhost']) allowedHosts.add(`${name.toLowerCase()}:${port}`);
  headers = securityHeaders(port);
  const displayHost = host.includes(':') ? `[${host}]` : host;
  if (host.includes(':')) allowedHosts.add(`${displayHost}:${port}`);
  const url = `http://${displayHost}:${port}/`;

  return {
    url,
    openUrl: `${url}#token=${token}`,
    port,
    token,
    async close() {
      unsubscribe();
      heartbeat.stop();
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
