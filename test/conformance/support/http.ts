// Plain HTTP to the server under test. Every request goes on a fresh connection (a server drops its keep-alive
// connection after a 500, and a pooled client would then see spurious resets); the keep-alive behaviour itself is
// tested with a raw socket (sendOnOneConnection).
import http from 'node:http';
import net from 'node:net';

// Response bodies are whatever the server put on the wire; the assertions are the type check.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WireJson = any;

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: WireJson;
}

export interface RequestOptions {
  /** Sent as JSON with Content-Type: application/json. */
  json?: unknown;
  /** Sent as is (string or bytes), with only the headers given. */
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export function request(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  let body: Buffer | undefined;
  if (options.json !== undefined) {
    body = Buffer.from(JSON.stringify(options.json));
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) body = Buffer.from(options.body);
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: WireJson;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.end(body);
  });
}

/**
 * Sends raw HTTP/1.1 requests one after the other on a single keep-alive connection. Returns, per request, the
 * response head and body text, or the error/end that replaced it.
 */
export async function sendOnOneConnection(baseUrl: string, rawRequests: string[]): Promise<Array<{ head?: string; body?: string; failure?: string }>> {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((ok, fail) => {
    socket.once('connect', ok);
    socket.once('error', fail);
  });
  let buffered = Buffer.alloc(0);
  let ended: string | undefined;
  let wake: (() => void) | undefined;
  socket.on('data', (c: Buffer) => {
    buffered = Buffer.concat([buffered, c]);
    wake?.();
  });
  socket.on('error', (e: NodeJS.ErrnoException) => {
    ended ??= e.code ?? e.message;
    wake?.();
  });
  socket.on('close', () => {
    ended ??= 'closed by server';
    wake?.();
  });
  const results: Array<{ head?: string; body?: string; failure?: string }> = [];
  try {
    for (const raw of rawRequests) {
      if (ended) {
        results.push({ failure: ended });
        continue;
      }
      socket.write(raw);
      const deadline = Date.now() + 5000;
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd >= 0) {
          const head = buffered.subarray(0, headEnd).toString('latin1');
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          if (buffered.length >= headEnd + 4 + length) {
            results.push({ head, body: buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8') });
            buffered = buffered.subarray(headEnd + 4 + length);
            break;
          }
        }
        if (ended) {
          results.push({ failure: ended });
          break;
        }
        if (Date.now() > deadline) {
          results.push({ failure: 'no answer in 5 s' });
          break;
        }
        await new Promise<void>((ok) => {
          wake = ok;
          setTimeout(ok, 100);
        });
      }
    }
  } finally {
    socket.destroy();
  }
  return results;
}

export function rawPost(path: string, host: string, json: unknown): string {
  const body = JSON.stringify(json);
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

export function rawGet(path: string, host: string): string {
  return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
}
