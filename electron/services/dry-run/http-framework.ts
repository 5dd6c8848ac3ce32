/**
 * What FastAPI, Starlette and uvicorn do around upstream's route functions, as the wire shows it (reference
 * appendix points 11–13): 404/405 bodies, the 307 trailing-slash redirect, request bodies parsed by Content-Type
 * and validated into pydantic-2 422 entries, HTTPException bodies, and the plain-text 500 after which the
 * keep-alive connection is dropped. Also /openapi.json and /docs, which upstream serves too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeUtf8, PyJsonDecodeError, pyJsonLoads } from './py-format';
import { validate, type ModelType, type ValidationIssue } from './pydantic-lite';

/** fastapi.HTTPException: answered as {"detail": …} with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(String(detail));
  }
}

/** An `assert` that fails inside an upstream route: Starlette turns it into the plain-text 500. */
export class UpstreamAssertion extends Error {
  override name = 'AssertionError';
}

class RequestValidationError extends Error {
  constructor(readonly detail: unknown[]) {
    super('request validation failed');
  }
}

export interface RouteContext<B> {
  body: B;
  raw: Buffer;
  req: IncomingMessage;
  res: ServerResponse;
}

/** Returns the JSON to answer with 200, or undefined when the handler wrote the response itself. */
type Handler<B> = (ctx: RouteContext<B>) => unknown;

interface Route {
  handler: Handler<never>;
  model?: ModelType;
}

export type Log = (level: 'info' | 'warn' | 'error', message: string) => void;

/** Upload bound: a training-code zip is the largest body upstream takes (it has no limit; 256 MiB is plenty). */
const MAX_BODY_BYTES = 256 * 1024 * 1024;
const FRAMEWORK_PATHS = new Set(['/openapi.json', '/docs', '/redoc']);

export class SwarmHttpApp {
  private readonly routes = new Map<string, Map<string, Route>>();

  constructor(
    private readonly title: string,
    private readonly log: Log,
  ) {
    this.route('GET', '/openapi.json', () => this.openApi());
    for (const [path, page] of [
      ['/docs', 'swagger-ui'],
      ['/redoc', 'redoc'],
    ] as const) {
      this.route('GET', path, ({ res }) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!DOCTYPE html><html><head><title>${this.title} - ${page}</title></head><body>${page}: see /openapi.json</body></html>`);
      });
    }
  }

  /** A route without a request model: its handler gets the raw body (or ignores it). */
  route(method: 'GET' | 'POST', path: string, handler: Handler<undefined>): void;
  /** A route with one pydantic model parameter: the body is parsed and validated first. */
  route<B>(method: 'GET' | 'POST', path: string, handler: Handler<B>, model: ModelType): void;
  route(method: 'GET' | 'POST', path: string, handler: Handler<never>, model?: ModelType): void {
    let methods = this.routes.get(path);
    if (!methods) this.routes.set(path, (methods = new Map()));
    methods.set(method, model ? { handler, model } : { handler });
  }

  /** Answers one request; never rejects (a failure after the head was sent drops the connection). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const raw = await readBody(req);
      await this.dispatch(req, res, raw);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof RequestValidationError) return sendJson(res, 422, { detail: error.detail });
      if (error instanceof HttpError) return sendJson(res, error.status, { detail: error.detail });
      this.internalError(req, res, error);
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const methods = this.routes.get(url.pathname);
    if (!methods) {
      // Starlette's redirect_slashes: the same path with (or without) a trailing slash, as an absolute URL.
      const other = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : `${url.pathname}/`;
      if (url.pathname !== '/' && this.routes.has(other)) {
        res.writeHead(307, { location: `http://${req.headers.host ?? '127.0.0.1'}${other}${url.search}`, 'content-length': 0 });
        res.end();
        return;
      }
      return sendJson(res, 404, { detail: 'Not Found' });
    }
    const route = methods.get(req.method ?? '');
    if (!route) return sendJson(res, 405, { detail: 'Method Not Allowed' }, { allow: [...methods.keys()].join(', ') });
    const body = route.model ? parseModelBody(raw, req.headers['content-type'], route.model) : undefined;
    const out = await (route.handler as Handler<unknown>)({ body, raw, req, res });
    if (out !== undefined && !res.headersSent) sendJson(res, 200, out);
  }

  /**
   * Starlette's ServerErrorMiddleware answers a plain-text 500 without `Connection: close`, then uvicorn drops the
   * connection, so the next request on that keep-alive socket fails (appendix point 13). Clients retry on a fresh one.
   */
  private internalError(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    this.log('error', `Exception in ASGI application: ${req.method} ${req.url}: ${name}: ${message}`);
    const text = 'Internal Server Error';
    const socket = res.socket; // detached from res once the response has finished
    res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text, () => socket?.destroy());
  }

  private openApi(): unknown {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const [path, methods] of this.routes) {
      if (FRAMEWORK_PATHS.has(path)) continue;
      const operations: Record<string, unknown> = {};
      for (const [method, route] of methods) {
        const responses: Record<string, unknown> = { 200: { description: 'Successful Response' } };
        const operation: Record<string, unknown> = { summary: path.slice(1).split('_').join(' '), responses };
        if (route.model) {
          operation.requestBody = { content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.model.name}` } } }, required: true };
          responses[422] = { description: 'Validation Error' };
        }
        operations[method.toLowerCase()] = operation;
      }
      paths[path] = operations;
    }
    return { openapi: '3.1.0', info: { title: this.title, version: '0.1.0' }, paths };
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, 'Request body too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Only application/json and application/*+json bodies are parsed as JSON; FastAPI leaves any other body as bytes. */
function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const [main, sub = ''] = (value.split(';')[0] ?? '').trim().toLowerCase().split('/');
  return main === 'application' && (sub === 'json' || sub.endsWith('+json'));
}

/** FastAPI's body handling for a route with one pydantic model parameter. */
function parseModelBody(raw: Buffer, contentType: string | undefined, model: ModelType): unknown {
  let body: unknown = null;
  if (raw.length > 0) {
    if (isJsonContentType(contentType)) {
      let text: string;
      try {
        text = decodeUtf8(raw);
      } catch {
        throw new HttpError(400, 'There was an error parsing the body');
      }
      try {
        body = pyJsonLoads(text);
      } catch (error) {
        if (!(error instanceof PyJsonDecodeError)) throw error;
        throw new RequestValidationError([{ type: 'json_invalid', loc: ['body', error.pos], msg: 'JSON decode error', input: {}, ctx: { error: error.msg } }]);
      }
    } else body = raw.toString('utf8'); // stays bytes upstream, which the model then refuses
  }
  if (body === null) throw new RequestValidationError([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null } satisfies ValidationIssue]);
  const result = validate(model, body, ['body']);
  if (!result.ok) throw new RequestValidationError(result.errors);
  return result.value;
}
