import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { contentTypeFor, resolveInside } from '../services/util/static-content';

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
      'content-type': contentTypeFor(file),
      'cache-control': 'no-store',
    });
    response.end(body);
  } catch {
    response
      .writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' })
      .end('The UI is not built yet. Run `npm run build` (or `npm run web`, which builds first).');
  }
}
