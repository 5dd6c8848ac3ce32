import { pathToFileURL } from 'node:url';
import { app, session, shell, type Session, type WebContents } from 'electron';

/**
 * Where the renderer comes from: the electron-vite dev server (development only) or the built
 * `out/renderer/index.html` on disk. Every "is this our app?" decision is made against it.
 */
export type RendererTarget = { kind: 'dev'; url: string } | { kind: 'file'; file: string };

type Directives = Record<string, string[]>;

/** The production policy: everything from our own files, nothing inline, no plugins, no framing. */
const PROD_DIRECTIVES: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

function serialize(directives: Directives): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/**
 * The Content-Security-Policy for the renderer. Dev widens it only as far as Vite needs: its origin
 * for scripts, its WebSocket for HMR, and inline styles because Vite injects CSS as <style> tags in
 * dev. Production keeps the strict policy, with no 'unsafe-*' source at all.
 */
export function buildCsp(target: RendererTarget): string {
  if (target.kind === 'file') return serialize(PROD_DIRECTIVES);
  const origin = new URL(target.url).origin;
  const ws = origin.replace(/^http/, 'ws');
  return serialize({
    ...PROD_DIRECTIVES,
    'script-src': ["'self'", origin],
    'style-src': ["'self'", "'unsafe-inline'"],
    'connect-src': ["'self'", origin, ws],
  });
}

function parseUrl(value: string | null | undefined): URL | null {
  if (!value) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * True when `candidate` is our renderer page: same dev-server origin, or exactly our index.html on
 * disk (any query or hash, since the UI may route with the hash). Any other file:// URL is foreign:
 * file: pages can read other local files, so "some file on disk" is not good enough.
 */
export function isAppUrl(candidate: string | null | undefined, target: RendererTarget): boolean {
  const url = parseUrl(candidate);
  if (!url) return false;
  if (target.kind === 'dev') return url.origin === new URL(target.url).origin;
  const index = pathToFileURL(target.file);
  return url.protocol === 'file:' && url.host === index.host && url.pathname === index.pathname;
}

/**
 * The URL to hand to the OS browser, or null. Only https: leaves the app: `shell.openExternal` with
 * file:, smb:, custom schemes or even plain http: can launch programs or leak credentials.
 */
export function externalUrlToOpen(candidate: string | null | undefined): string | null {
  const url = parseUrl(candidate);
  if (!url || url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  return url.href;
}

/**
 * Installs the CSP header and denies every permission (camera, notifications, clipboard…) for the
 * session. The app needs none, so a compromised renderer cannot ask the user for them either.
 * The CSP is sent as a response header in dev AND prod (Vite's dev server sends none of its own).
 */
export function installSessionSecurity(ses: Session, csp: string): void {
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
}

/** Navigation, pop-up and <webview> guards for one webContents. */
export function guardWebContents(contents: WebContents, target: RendererTarget): void {
  // A renderer that navigates away would keep our preload API on a foreign page.
  contents.on('will-navigate', (event) => {
    if (!isAppUrl(event.url, target)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isAppUrl(event.url, target)) event.preventDefault();
  });
  // No in-app pop-ups ever. Links to https pages open in the user's browser instead.
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalUrlToOpen(url);
    if (external) void shell.openExternal(external);
    return { action: 'deny' };
  });
  // We never use <webview>; webviewTag is off, and this blocks one being attached regardless.
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
  });
}

/**
 * Wires the guards for every webContents the app will ever create (windows, devtools, anything a
 * library might open), and the session policy. Call after `app.whenReady()` (the default session
 * does not exist before) and before the first window is created.
 */
export function installSecurity(target: RendererTarget): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, target));
  installSessionSecurity(session.defaultSession, buildCsp(target));
}
