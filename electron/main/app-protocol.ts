import { readFile } from 'node:fs/promises';
import { protocol } from 'electron';
import { contentTypeFor, resolveInside } from '../services/util/static-content';

/**
 * The UI is served from `agentswarm://app/…` through `protocol.handle`, not from file://. A file:
 * page gets privileges a web page never has (reading other local files, an opaque origin shared
 * by every file), which is why the GrantFileProtocolExtraPrivileges fuse is off in packaged builds
 * (electron-builder.yml). This scheme serves exactly the built renderer folder and nothing else.
 */
export const APP_SCHEME = 'agentswarm';
export const APP_HOST = 'app';
export const APP_INDEX_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * Must run before the app is ready. `standard` gives the scheme real origins (so 'self' in the CSP,
 * relative URLs and same-origin ES module scripts work), `secure` makes it a secure context like
 * https. No service workers, no stream or bypassCSP privileges: the page needs none of them.
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } },
  ]);
}

function plain(status: number, text: string, csp: string): Response {
  return new Response(text, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'content-security-policy': csp },
  });
}

/**
 * Answers one app:// request from `rendererDir`: GET only, host `app` only, never a path outside
 * the folder (`..`, encoded slashes). Every answer carries the CSP, so the policy holds even where
 * a session header hook does not see custom-protocol responses.
 */
export function createAppProtocolHandler(rendererDir: string, csp: string): (request: Request) => Promise<Response> {
  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return plain(400, 'bad URL', csp);
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host.toLowerCase() !== APP_HOST) return plain(404, 'not found', csp);
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed', csp);
    const file = resolveInside(rendererDir, url.pathname === '/' || url.pathname === '' ? '/index.html' : url.pathname);
    if (!file) return plain(400, 'bad path', csp);
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      return plain(404, 'not found', csp);
    }
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: {
        'content-type': contentTypeFor(file),
        'content-security-policy': csp,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      },
    });
  };
}

/** Serves the built renderer on the app scheme. Call after `app.whenReady()`, before loading the window. */
export function installAppProtocol(rendererDir: string, csp: string): void {
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererDir, csp));
}
