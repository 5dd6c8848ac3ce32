import type { ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/**
 * Compressed answers from the browser host: the renderer's chunks and the API's JSON, in brotli or
 * gzip when the browser says it takes them (Accept-Encoding, q-values honoured), and always with
 * `Vary: Accept-Encoding`, so a cache never hands a compressed body to a client that did not ask.
 */
export type Encoding = 'br' | 'gzip';

/** Below this a body is sent as it is: the headers and the work cost more than the bytes saved. */
export const MIN_COMPRESSED_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Types worth compressing: text, JSON, SVG (images and fonts are compressed already). */
export function isCompressible(contentType: string): boolean {
  return /^(text\/|application\/json|application\/javascript|image\/svg\+xml)/.test(contentType);
}

/**
 * The encoding to use for an `Accept-Encoding` header: brotli before gzip when both are taken
 * (smaller), none when neither is (or both are refused with q=0). `*` stands for any not named.
 */
export function chooseEncoding(acceptEncoding: string | string[] | undefined): Encoding | null {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '');
  const quality = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    const value = q ? Number(q[1]) : 1;
    quality.set(name, Number.isFinite(value) ? value : 0);
  }
  const accepts = (encoding: Encoding): number => quality.get(encoding) ?? quality.get('*') ?? 0;
  const br = accepts('br');
  const gz = accepts('gzip');
  if (br <= 0 && gz <= 0) return null;
  return br >= gz ? 'br' : 'gzip';
}

/**
 * Brotli at `quality` (11, the densest, for files compressed once and cached; 4 for JSON made per
 * request, about gzip's speed at a smaller size), or gzip at its default level.
 */
export function compress(body: Buffer, encoding: Encoding, quality: number): Promise<Buffer> {
  return encoding === 'br'
    ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipAsync(body);
}

/** Adds `Accept-Encoding` to the response's Vary header (keeping what is there). */
export function varyOnEncoding(headers: Record<string, string>): Record<string, string> {
  const vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
  return { ...headers, vary };
}

/**
 * Sends `body` compressed when the client takes it and it is worth it, else as it is. A compression
 * failure (never expected) falls back to the plain body rather than failing the request.
 */
export async function sendMaybeCompressed(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
  acceptEncoding: string | string[] | undefined,
  quality = 4,
): Promise<void> {
  const encoding = body.length >= MIN_COMPRESSED_BYTES ? chooseEncoding(acceptEncoding) : null;
  const varied = varyOnEncoding(headers);
  if (encoding) {
    const packed = await compress(body, encoding, quality).catch(() => null);
    if (packed) {
      response.writeHead(status, { ...varied, 'content-encoding': encoding, 'content-length': String(packed.length) });
      response.end(packed);
      return;
    }
  }
  response.writeHead(status, { ...varied, 'content-length': String(body.length) });
  response.end(body);
}
