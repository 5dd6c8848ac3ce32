import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** Resolves a URL path inside `root`, or null when it would escape it (`..`, encoded slashes). */
export function resolveInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const candidate = normalize(join(root, decoded));
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep) ? candidate : null;
}

/** Serves the built renderer; unknown paths fall back to index.html (the app routes in-page). */
export async function serveStatic(root: string, urlPath: string, response: ServerResponse, headers: Record<string, string>): Promise<void> {
  const wanted = urlPath === '/' ? '/index.html' : urlPath;
  let file = resolveInside(root, wanted);
  if (!file) {
    response.writeHead(400, headers).end('bad path');
    return;
  }
  const isFile = await stat(file).then((s) => s.isFile()).catch(() => false);
  if (!isFile) file = join(root, 'index.html');
  try {
    const body = await readFile(file);
    response.writeHead(200, {
      ...headers,
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    response.end(body);
  } catch {
    response
      .writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' })
      .end('The UI is not built yet. Run `npm run build` (or `npm run web`, which builds first).');
  }
}
