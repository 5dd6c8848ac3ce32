import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { contentTypeFor, resolveInside } from '../services/util/static-content';
import { chooseEncoding, compress, isCompressible, MIN_COMPRESSED_BYTES, varyOnEncoding, type Encoding } from './compression';

/** Brotli's densest setting: each built file is compressed once and the result kept (see `packed`). */
const STATIC_BROTLI_QUALITY = 11;

/**
 * Compressed copies of the built files, by path and encoding. A copy is used only while the file
 * has the size and modification time it was made from, so a rebuild (`electron-vite build` while
 * the host runs) is served fresh. The renderer is a few hundred kB: keeping every copy is cheap.
 */
const packed = new Map<string, { size: number; mtimeMs: number; body: Buffer }>();

async function packedCopy(file: string, body: Buffer, encoding: Encoding, size: number, mtimeMs: number): Promise<Buffer> {
  const key = `${encoding}:${file}`;
  const known = packed.get(key);
  if (known && known.size === size && known.mtimeMs === mtimeMs) return known.body;
  const fresh = await compress(body, encoding, STATIC_BROTLI_QUALITY);
  packed.set(key, { size, mtimeMs, body: fresh });
  return fresh;
}

/**
 * Serves the built renderer; unknown paths fall back to index.html (the app routes in-page). Text
 * files go out in brotli or gzip when the browser's Accept-Encoding takes one (compression.ts).
 */
export async function serveStatic(
  root: string,
  urlPath: string,
  response: ServerResponse,
  headers: Record<string, string>,
  acceptEncoding?: string | string[],
): Promise<void> {
  const wanted = urlPath === '/' ? '/index.html' : urlPath;
  let file = resolveInside(root, wanted);
  if (!file) {
    response.writeHead(400, headers).end('bad path');
    return;
  }
  let info = await stat(file).catch(() => null);
  if (!info?.isFile()) {
    file = join(root, 'index.html');
    info = await stat(file).catch(() => null);
  }
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    response
      .writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' })
      .end('The UI is not built yet. Run `npm run build` (or `npm run web`, which builds first).');
    return;
  }
  const contentType = contentTypeFor(file);
  const fileHeaders = varyOnEncoding({ ...headers, 'content-type': contentType, 'cache-control': 'no-store' });
  const encoding = isCompressible(contentType) && body.length >= MIN_COMPRESSED_BYTES ? chooseEncoding(acceptEncoding) : null;
  if (encoding && info) {
    const copy = await packedCopy(file, body, encoding, info.size, info.mtimeMs).catch(() => null);
    if (copy) {
      response.writeHead(200, { ...fileHeaders, 'content-encoding': encoding, 'content-length': String(copy.length) });
      response.end(copy);
      return;
    }
  }
  response.writeHead(200, { ...fileHeaders, 'content-length': String(body.length) });
  response.end(body);
}
