import { app, session, shell, type Session, type WebContents } from 'electron';
import { buildCsp } from '../shared/csp';
import { APP_HOST, APP_SCHEME } from './app-protocol';

/**
 * Where the renderer comes from: the electron-vite dev server (development only) or the built
 * `out/renderer` folder, served on the app:// scheme (`app-protocol.ts`). Every "is this our app?"
 * decision is made against it.
 */
export type RendererTarget = { kind: 'dev'; url: string } | { kind: 'bundle'; dir: string };

/**
 * The renderer's Content-Security-Policy, from the one source in `shared/csp.ts`. Dev widens it only
 * as far as Vite needs (its origin, its HMR socket, inline styles); the bundle gets the strict policy.
 */
export function rendererCsp(target: RendererTarget): string {
  return target.kind === 'dev' ? buildCsp({ devServer: new URL(target.url).origin }) : buildCsp();
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
 * True when `candidate` is a page of our app: the dev server's origin, or the app:// origin (which
 * serves only the built renderer folder). Anything else, file:// included, is foreign.
 */
export function isAppUrl(candidate: string | null | undefined, target: RendererTarget): boolean {
  const url = parseUrl(candidate);
  if (!url) return false;
  if (target.kind === 'dev') return url.origin === new URL(target.url).origin;
  return url.protocol === `${APP_SCHEME}:` && url.host.toLowerCase() === APP_HOST && !url.username && !url.password;
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
  // will-navigate sees only the main frame; this covers every frame (an injected <iframe> or a
  // frame navigated by script), so no frame of ours ever shows a foreign page.
  contents.on('will-frame-navigate', (event) => {
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
  installSessionSecurity(session.defaultSession, rendererCsp(target));
}
