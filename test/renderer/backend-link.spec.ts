import { describe, expect, it, vi } from 'vitest';
import { backendLinkOf, createBrowserApi, type BackendLink, type BrowserHost } from '../../renderer/src/lib/api';
import { BackendLinkMachine } from '../../renderer/src/lib/api/backend-link';
import { MAX_RETRY_MS, type WebSocketLike } from '../../renderer/src/lib/api/event-socket';
import { replayTable } from '../../renderer/src/lib/api/replay';
import { FakeApi } from './fake-api';

// The browser page's link to its backend: the state machine alone, then driven by the real transport over a
// TEST DOUBLE socket and fetch (the e2e spec test/e2e/backend-link.spec.ts restarts a real host under Chromium).

/** TEST DOUBLE: a WebSocket the test opens and drops by hand. */
class FakeSocket implements WebSocketLike {
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {}
  close(): void {
    this.closed = true;
  }
  open(): void {
    this.onopen?.(new Event('open'));
  }
  drop(): void {
    this.onclose?.(new CloseEvent('close'));
  }
}

function makeHost() {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
  let hashListener: (() => void) | null = null;
  const location = { hash: '#token=aaaa1111', host: '127.0.0.1:47100', protocol: 'http:', pathname: '/', search: '' };
  let status = 200;
  const fetch = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) => {
    if (status === 0) throw new TypeError('Failed to fetch');
    return { status, json: async () => (status === 200 ? { ok: true, value: [] } : { ok: false, error: { code: 'FORBIDDEN', message: 'wrong token' } }) } as unknown as Response;
  });
  const host: BrowserHost = {
    fetch: fetch as unknown as typeof globalThis.fetch,
    createWebSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    location,
    history: { state: null, replaceState: (_s, _t, url) => void (location.hash = String(url).includes('#') ? String(url).slice(String(url).indexOf('#')) : '') },
    sessionStorage: null,
    setTimeout: (fn, ms) => {
      const timer = { fn, ms, cleared: false };
      timers.push(timer);
      return timer;
    },
    clearTimeout: (handle) => void ((handle as { cleared: boolean }).cleared = true),
    onHashChange: (listener) => void (hashListener = listener),
  };
  return {
    host,
    fetch,
    sockets,
    timers,
    setStatus: (s: number) => void (status = s),
    pasteHash(hash: string) {
      location.hash = hash;
      hashListener?.();
    },
  };
}

function follow(machine: BackendLinkMachine): BackendLink[] {
  const seen: BackendLink[] = [];
  machine.subscribe((link) => seen.push(link));
  return seen;
}

describe('BackendLinkMachine', () => {
  it('connecting → connected; a close is a loss that counts tries from when it began; back, then caught up', () => {
    let now = 1000;
    const machine = new BackendLinkMachine(() => now);
    const seen = follow(machine);
    expect(seen).toEqual([{ kind: 'connecting' }]);
    machine.opened();
    machine.caughtUp(); // the first open is no recovery
    expect(machine.link).toEqual({ kind: 'connected', recovered: false });
    machine.closed(500);
    now = 1600;
    machine.closed(1000);
    expect(machine.link).toEqual({ kind: 'lost', since: 1000, attempts: 2, retryInMs: 1000, tokenRefused: false });
    machine.opened();
    expect(machine.link).toEqual({ kind: 'connected', recovered: false });
    machine.caughtUp();
    expect(machine.link).toEqual({ kind: 'connected', recovered: true });
    machine.caughtUp();
    expect(seen.filter((l) => l.kind === 'connected' && l.recovered)).toHaveLength(1);
  });

  it('a refused token holds until a new token arrives; "Retry now" asks the transport at once', () => {
    const machine = new BackendLinkMachine(() => 5);
    const reconnect = vi.fn();
    machine.reconnect = reconnect;
    machine.tokenRefused(); // not lost: nothing to say
    expect(machine.link.kind).toBe('connecting');
    machine.closed(500);
    machine.tokenRefused();
    machine.closed(1000); // still refused on the next failed try
    expect(machine.link).toMatchObject({ kind: 'lost', attempts: 2, tokenRefused: true });
    machine.tokenChanged();
    expect(machine.link).toMatchObject({ kind: 'lost', tokenRefused: false, retryInMs: null });
    machine.retryNow();
    expect(reconnect).toHaveBeenCalledTimes(1);
  });
});

describe('browser transport and its link', () => {
  it('says a loss at the close, retries with backoff up to 5 s, and says it is back once the state was fetched again', async () => {
    const { host, sockets, timers, fetch } = makeHost();
    const api = createBrowserApi(host);
    const machine = backendLinkOf(api)!;
    api.events.on('swarm:status', () => {});
    sockets[0]!.open();
    await vi.waitFor(() => expect(machine.link).toEqual({ kind: 'connected', recovered: false }));

    sockets[0]!.drop();
    expect(machine.link).toMatchObject({ kind: 'lost', attempts: 1, retryInMs: 500 });
    for (let i = 0; i < 6; i += 1) {
      timers.at(-1)!.fn();
      sockets.at(-1)!.drop();
    }
    expect(timers.map((t) => t.ms)).toEqual([500, 1000, 2000, 4000, MAX_RETRY_MS, MAX_RETRY_MS, MAX_RETRY_MS]);
    expect(machine.link).toMatchObject({ kind: 'lost', attempts: 7, tokenRefused: false });

    const before = fetch.mock.calls.length;
    timers.at(-1)!.fn();
    sockets.at(-1)!.open();
    expect(machine.link).toEqual({ kind: 'connected', recovered: false });
    // The replay (every row of the table) is the refetch; then the page says it is current again.
    await vi.waitFor(() => expect(machine.link).toEqual({ kind: 'connected', recovered: true }));
    expect(fetch.mock.calls.slice(before).map(([url]) => String(url))).toEqual(replayTable.map((row) => `/api/invoke/${row.request}`));
  });

  it('a failed try asks the host once: 401 is a refused token, no answer is a host that is down', async () => {
    const { host, sockets, timers, setStatus } = makeHost();
    const api = createBrowserApi(host);
    const link = backendLinkOf(api)!;
    api.events.on('swarm:status', () => {});
    const socketsBefore = sockets.length;
    setStatus(0);
    sockets.at(-1)!.drop();
    await Promise.resolve();
    expect(link.link).toMatchObject({ kind: 'lost', tokenRefused: false });
    setStatus(401);
    timers.at(-1)!.fn();
    sockets.at(-1)!.drop();
    await vi.waitFor(() => expect(link.link).toMatchObject({ kind: 'lost', attempts: 2, tokenRefused: true }));
    expect(sockets.length).toBe(socketsBefore + 1);
  });

  it('a new #token in the address reconnects at once with it, without a reload; another fragment is ignored', async () => {
    const { host, sockets, timers, fetch, setStatus, pasteHash } = makeHost();
    const api = createBrowserApi(host);
    const link = backendLinkOf(api)!;
    api.events.on('swarm:status', () => {});
    expect(sockets[0]!.url).toBe('ws://127.0.0.1:47100/api/events?token=aaaa1111&heartbeat=1');
    expect(host.location.hash).toBe(''); // taken from the address
    sockets[0]!.open();
    setStatus(401);
    sockets[0]!.drop();
    timers.at(-1)!.fn();
    sockets.at(-1)!.drop();
    await vi.waitFor(() => expect(link.link).toMatchObject({ tokenRefused: true }));

    pasteHash('#page=servers');
    expect(sockets).toHaveLength(2);
    setStatus(200);
    const pending = timers.at(-1)!;
    pasteHash('#token=bbbb2222');
    expect(host.location.hash).toBe('');
    expect(pending.cleared).toBe(true); // no waiting for the backoff
    expect(sockets).toHaveLength(3);
    expect(sockets[2]!.url).toBe('ws://127.0.0.1:47100/api/events?token=bbbb2222&heartbeat=1');
    expect(link.link).toMatchObject({ kind: 'lost', tokenRefused: false });
    sockets[2]!.open();
    await vi.waitFor(() => expect(link.link).toEqual({ kind: 'connected', recovered: true }));
    await api.swarm.list({ engineId: 'local' });
    expect((fetch.mock.calls.at(-1)![1]!.headers as Record<string, string>).Authorization).toBe('Bearer bbbb2222');
  });

  it('an API that is not the browser transport has no link (Electron, test fakes)', () => {
    expect(backendLinkOf(new FakeApi())).toBeNull();
  });
});

describe('a host that stops answering without closing (frozen)', () => {
  it('once it has sent heartbeats, 3 s of silence is a loss: the socket is given up and retried', async () => {
    const { host, sockets, timers } = makeHost();
    const api = createBrowserApi(host);
    const link = backendLinkOf(api)!;
    const seen: unknown[] = [];
    api.events.on('engines:changed', (e) => seen.push(e));
    const socket = sockets[0]!;
    socket.open();
    // No heartbeat yet (an older host): no watch, however long it is quiet.
    expect(timers).toHaveLength(0);
    socket.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ heartbeat: 1 }) }));
    socket.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ channel: 'engines:changed', payload: {} }) }));
    expect(seen).toEqual([{}]); // the heartbeat is not an event
    const watches = timers.filter((t) => t.ms === 3000);
    expect(watches).toHaveLength(2); // re-armed by each message
    expect(watches[0]!.cleared).toBe(true);
    watches[1]!.fn();
    expect(socket.closed).toBe(true);
    expect(link.link).toMatchObject({ kind: 'lost', attempts: 1, retryInMs: 500 });
    // Its close event, when it comes, is not a second loss.
    socket.drop();
    expect(link.link).toMatchObject({ attempts: 1 });
    timers.at(-1)!.fn();
    expect(sockets).toHaveLength(2);
  });
});
