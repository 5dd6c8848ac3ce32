import { extname, join, normalize, sep } from 'node:path';

/**
 * Shared by the two ways the built renderer is served: the browser host over HTTP and Electron's
 * app:// protocol. One path check and one type table, so both serve the same files the same way.
 */
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

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
}

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
