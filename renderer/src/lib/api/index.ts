import type { ExposedApi } from '../../../../electron/shared/api';
import { createBrowserApi } from './browser-client';

export type { ExposedApi };
export { createBrowserApi, takeTokenFromHash, backendLinkOf, BACKEND_UNREACHABLE_MESSAGE } from './browser-client';
export type { BackendLink, BackendLinkMachine } from './backend-link';
export type { BrowserHost } from './browser-client';

let current: ExposedApi | null = null;

/**
 * The one way the UI reaches the backend. Under Electron the preload has put the API on
 * `window.api`; in a plain browser (`npm run web`) we build the HTTP + WebSocket client. Built
 * once, because the browser client consumes the token from the URL when it is created.
 */
export function getApi(): ExposedApi {
  // The page subscribes at once anyway: opening the event socket now lets its first reads share the socket's replay.
  if (!current) current = window.api ?? createBrowserApi(undefined, { connectAtOnce: true });
  return current;
}

/** Test seam: components under test talk to this fake instead of Electron or a server. */
export function setApiForTests(api: ExposedApi | null): void {
  current = api;
}
