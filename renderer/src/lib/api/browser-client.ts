import { buildLayoutApi, type ExposedApi } from '../../../../electron/shared/api';
import { readAgainEvents, replayTable } from './replay';
import {
  eventContract,
  isEventChannel,
  type EventChannel,
  type EventPayload,
  type InvokeChannel,
} from '../../../../electron/shared/contract';
import type { Result } from '../../../../electron/shared/result';
import { BackendLinkMachine } from './backend-link';
import { EventSocket, type SocketClosed, type WebSocketLike } from './event-socket';
import { SharedReads } from './shared-reads';

/** Detail under the translated `errors.BACKEND_UNREACHABLE` title when fetch itself fails. */
export const BACKEND_UNREACHABLE_MESSAGE = 'The request did not reach the app backend. Check that `npm run web` is still running.';

/** The browser globals the client needs, injectable so tests can use fakes instead of a server. */
export interface BrowserHost {
  fetch: typeof fetch;
  createWebSocket: (url: string) => WebSocketLike;
  location: Pick<Location, 'hash' | 'host' | 'protocol' | 'pathname' | 'search'>;
  history: Pick<History, 'replaceState' | 'state'>;
  /** Tab-scoped storage for the token (see `takeTokenFromHash`); null where storage is blocked. */
  sessionStorage: Pick<Storage, 'getItem' | 'setItem'> | null;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
  /** Calls `listener` when the address's fragment changes (a new `#token=` pasted into this tab); absent in tests that need none. */
  onHashChange?: (listener: () => void) => void;
}

function defaultHost(): BrowserHost {
  return {
    fetch: (...args) => globalThis.fetch(...args),
    createWebSocket: (url) => new WebSocket(url),
    location: window.location,
    history: window.history,
    sessionStorage: openSessionStorage(),
    setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
    clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
    onHashChange: (listener) => window.addEventListener('hashchange', listener),
  };
}

function openSessionStorage(): Pick<Storage, 'getItem' | 'setItem'> | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage can be disabled by browser policy; the token then lives in memory only.
    return null;
  }
}

const TOKEN_KEY = 'agentswarm.token';

/**
 * Takes the access token from `#token=<hex>` and removes it from the address bar, so it does not
 * end up in screenshots, bookmarks or the history list. Besides memory it goes to sessionStorage
 * (never localStorage): that storage belongs to this one tab and is wiped when the tab closes, yet
 * survives a reload, which would otherwise leave the page without a token and every call refused.
 */
export function takeTokenFromHash(
  host: Pick<BrowserHost, 'location' | 'history' | 'sessionStorage'>,
): string | null {
  const params = new URLSearchParams(host.location.hash.replace(/^#/, ''));
  const fromHash = params.get('token');
  if (fromHash === null) return readStored(host.sessionStorage);
  params.delete('token');
  const rest = params.toString();
  host.history.replaceState(
    host.history.state,
    '',
    `${host.location.pathname}${host.location.search}${rest ? `#${rest}` : ''}`,
  );
  if (!fromHash) return readStored(host.sessionStorage);
  try {
    host.sessionStorage?.setItem(TOKEN_KEY, fromHash);
  } catch {
    // Quota or policy errors only cost the reload convenience.
  }
  return fromHash;
}

function readStored(storage: BrowserHost['sessionStorage']): string | null {
  try {
    return storage?.getItem(TOKEN_KEY) || null;
  } catch {
    return null;
  }
}

function isEnvelope(value: unknown): value is Result<unknown> {
  if (typeof value !== 'object' || value === null || !('ok' in value)) return false;
  if (value.ok === true) return 'value' in value;
  if (value.ok !== false || !('error' in value)) return false;
  const error = value.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}

const links = new WeakMap<ExposedApi, BackendLinkMachine>();

/** The link to the browser host of an API made by `createBrowserApi`; null for Electron's (IPC does not drop) and test fakes. */
export function backendLinkOf(api: ExposedApi): BackendLinkMachine | null {
  return links.get(api) ?? null;
}

/**
 * The `ExposedApi` over the browser host's HTTP + WebSocket endpoints, used when the UI runs in a
 * normal browser (`npm run web`) rather than under Electron's preload.
 */
export function createBrowserApi(host: BrowserHost = defaultHost(), options: { connectAtOnce?: boolean } = {}): ExposedApi {
  // Replaced when a new `#token=` arrives in the address (the host restarted with a new token): no reload needed.
  let token = takeTokenFromHash(host);
  const link = new BackendLinkMachine();

  async function invoke(channel: InvokeChannel, request: unknown): Promise<Result<unknown>> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    let response: Response;
    try {
      response = await host.fetch(`/api/invoke/${channel}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(request ?? {}),
      });
    } catch {
      return { ok: false, error: { code: 'BACKEND_UNREACHABLE', message: BACKEND_UNREACHABLE_MESSAGE } };
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    if (isEnvelope(body)) return body;
    // Something other than our host answered (a proxy error page, an old server): say so plainly.
    return {
      ok: false,
      error: { code: 'INTERNAL', message: `Unexpected answer from the app backend (HTTP ${response.status}).` },
    };
  }

  const scheme = host.location.protocol === 'https:' ? 'wss' : 'ws';
  // `heartbeat=1`: the host then beats every second, so a frozen backend is told from a quiet one (event-socket.ts).
  const eventsUrl = () => `${scheme}://${host.location.host}/api/events?token=${encodeURIComponent(token ?? '')}&heartbeat=1`;
  const listeners = new Map<EventChannel, Set<(payload: unknown) => void>>();
  function dispatch(message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const { channel, payload } = message as { channel?: unknown; payload?: unknown };
    if (typeof channel !== 'string' || !isEventChannel(channel)) return;
    // Validate like the IPC path does, so a listener never sees a payload of the wrong shape.
    const parsed = eventContract[channel].safeParse(payload);
    if (!parsed.success) return;
    for (const listener of listeners.get(channel) ?? []) listener(parsed.data);
  }

  /**
   * On every open of the socket (the first one included), replay the current state as events (the
   * rows of `replayTable`), so every view catches up through the paths it already listens on. The
   * stores take their first snapshot while the socket is still connecting, and events pushed before
   * the open, or while it was down, never reach them otherwise. Fetched together, dispatched in
   * table order.
   */
  async function replayState(skipReadAgain: boolean): Promise<void> {
    const answers = await Promise.all(replayTable.map((row) => reads.call(row.request, {})));
    replayTable.forEach((row, index) => {
      const answer = answers[index];
      if (!answer?.ok) return;
      for (const message of row.toEvents(answer.value)) {
        if (skipReadAgain && readAgainEvents.has(message.channel)) continue;
        // The backend's own event came first and is as new or newer: dispatched after it, the replay's answer undid a
        // language switch made while the page reconnected (idle CI-AB, backend-link.spec).
        if (reads.snapshotEventCame(message.channel)) continue;
        dispatch(message);
      }
    });
  }

  /**
   * A try to open the socket failed: the browser does not say why, so ask the host once. HTTP 401 means it runs but
   * refuses this token (it restarted with a new one): the page says to open the new address instead of retrying
   * silently. No answer at all: it is down, and the socket keeps trying.
   */
  async function probeToken(): Promise<void> {
    try {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (token) headers.Authorization = `Bearer ${token}`;
      const response = await host.fetch('/api/invoke/settings:status', { method: 'POST', headers, body: '{}' });
      if (response.status === 401) link.tokenRefused();
    } catch {
      // Down: the banner already says so.
    }
  }

  function onClosed(closed: SocketClosed): void {
    if (!closed.wasOpen) reads.firstOpenFailed();
    link.closed(closed.retryInMs);
    if (!closed.wasOpen) void probeToken();
  }

  // On every open: fetch the current state again (replayState), then the link says the page is up to date.
  // Each list once per load: reads wait for the first open and share requests while its replay runs (shared-reads.ts).
  const reads = new SharedReads(invoke);
  // An event from the backend (not one the replay made from an answer) makes a handed-on answer of its snapshot stale.
  const fromSocket = (message: unknown): void => {
    const channel = typeof message === 'object' && message !== null ? (message as { channel?: unknown }).channel : undefined;
    if (typeof channel === 'string') reads.eventArrived(channel);
    dispatch(message);
  };
  const socket = new EventSocket(eventsUrl(), host, fromSocket, () => {
    link.opened();
    // Every call of a page that connected at once waited for this first open: nothing needs reading again.
    const skipReadAgain = options.connectAtOnce === true && reads.beforeFirstOpen;
    reads.opened();
    const replayed = replayState(skipReadAgain).finally(() => reads.replayed());
    reads.release();
    void replayed.then(() => link.caughtUp());
  }, onClosed);
  link.reconnect = () => socket.reconnectNow();
  host.onHashChange?.(() => {
    // Only a token in the new fragment counts; takeTokenFromHash hides it from the address again.
    if (!new URLSearchParams(host.location.hash.replace(/^#/, '')).get('token')) return;
    token = takeTokenFromHash(host);
    socket.setUrl(eventsUrl());
    link.tokenChanged();
    socket.reconnectNow();
  });

  const layout = buildLayoutApi((channel, request) => reads.call(channel, request));
  const api: ExposedApi = {
    ...layout,
    app: { ...layout.app, rendererReady: () => {} },
    events: {
      on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void) {
        const set = listeners.get(channel) ?? new Set();
        listeners.set(channel, set);
        const untyped = listener as (payload: unknown) => void;
        set.add(untyped);
        reads.socketRequested();
        socket.ensureOpen();
        return () => {
          set.delete(untyped);
        };
      },
    },
  };
  links.set(api, link);
  if (options.connectAtOnce) {
    // The page's first reads (made as components mount, before any of them subscribes) then wait for the socket too.
    reads.socketRequested();
    socket.ensureOpen();
  }
  return api;
}
