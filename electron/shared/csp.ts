/**
 * The ONE Content-Security-Policy of the renderer. Electron's session header
 * (`electron/main/security.ts`), the app:// protocol responses, the browser host's header
 * (`electron/browser-host/server.ts`) and the <meta> tag injected into `renderer/index.html` at
 * build (`electron.vite.config.ts`) are all built here, so the copies cannot differ.
 *
 * connect-src is `'self'` only: the renderer talks to its backend through IPC (Electron) or its own
 * origin (browser host). It must not reach the unauthenticated swarm API or a Docker TCP port on
 * loopback, so no `127.0.0.1:*`-style source is ever allowed.
 */
type Directives = Record<string, readonly string[]>;

/** Everything from our own origin, nothing inline, no plugins, no framing, no form posts. */
const BASE_DIRECTIVES: Directives = {
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

/** Browsers ignore these in a <meta> tag and log an error for them; they go in headers only. */
const HEADER_ONLY = new Set(['frame-ancestors']);

export interface CspOptions {
  /**
   * Exact extra origins for connect-src (the browser host's own WebSocket, `ws://127.0.0.1:41234`).
   * Port wildcards are refused: they would open every loopback service to the page.
   */
  connect?: readonly string[];
  /** Development only: the Vite dev server origin (scripts from it, its HMR socket, inline styles). */
  devServer?: string;
  /** For a <meta http-equiv> tag: leave out the header-only directives. */
  meta?: boolean;
}

function exactOrigin(source: string): string {
  const url = new URL(source);
  if (source.includes('*') || url.origin === 'null' || url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`CSP source must be an exact origin such as ws://127.0.0.1:41234, not ${source}`);
  }
  return `${url.protocol}//${url.host}`;
}

export function buildCsp(options: CspOptions = {}): string {
  const directives: Record<string, string[]> = Object.fromEntries(
    Object.entries(BASE_DIRECTIVES).map(([name, sources]) => [name, [...sources]]),
  );
  for (const source of options.connect ?? []) directives['connect-src']!.push(exactOrigin(source));
  if (options.devServer) {
    const origin = exactOrigin(options.devServer);
    directives['script-src']!.push(origin);
    // Vite injects component CSS as <style> tags in dev; builds emit .css files instead.
    directives['style-src']!.push("'unsafe-inline'");
    directives['connect-src']!.push(origin, origin.replace(/^http/, 'ws'));
  }
  return Object.entries(directives)
    .filter(([name]) => !(options.meta && HEADER_ONLY.has(name)))
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}
