// A recording HTTP proxy for tests: forwards every request to a target server on 127.0.0.1 and records method,
// path, HTTP version, request body and response (status + body), so a test can check the exact call sequence a
// client made. The swarm client rewrites the episode base URL's host to its own server URL, so the episode's chat
// calls come through the proxy too (that rewrite is one of the things checked).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedExchange {
  method: string;
  path: string;
  httpVersion: string;
  /** Parsed JSON body, the raw text when not JSON, null for none. */
  body: unknown;
  headers: http.IncomingHttpHeaders;
  status: number;
  response: unknown;
  at: number;
}

export interface RecordingProxy {
  url: string;
  exchanges: RecordedExchange[];
  close(): Promise<void>;
}

function parse(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function startRecordingProxy(targetUrl: string): Promise<RecordingProxy> {
  const target = new URL(targetUrl);
  const exchanges: RecordedExchange[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers, host: target.host };
      const upstream = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: false },
        (up) => {
          const out: Buffer[] = [];
          up.on('data', (c: Buffer) => out.push(c));
          up.on('end', () => {
            const text = Buffer.concat(out);
            exchanges.push({
              method: req.method ?? '',
              path: req.url ?? '',
              httpVersion: req.httpVersion,
              body: parse(body.toString('utf8')),
              headers: req.headers,
              status: up.statusCode ?? 0,
              response: parse(text.toString('utf8')),
              at: Date.now(),
            });
            const { connection: _c, 'transfer-encoding': _t, 'content-length': _l, ...rest } = up.headers;
            res.writeHead(up.statusCode ?? 502, { ...rest, 'content-length': text.length });
            res.end(text);
          });
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
