import { describe, expect, it, vi } from 'vitest';
import { createBrowserApi, type BrowserHost } from '../../renderer/src/lib/api';
import type { WebSocketLike } from '../../renderer/src/lib/api/event-socket';
import { replayTable } from '../../renderer/src/lib/api/replay';

/** A stand-in WebSocket the test opens and drops by hand. */
class FakeSocket implements WebSocketLike {
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  constructor(readonly url: string) {}
  close(): void {}
  open(): void {
    this.onopen?.(new Event('open'));
  }
  drop(): void {
    this.onclose?.(new CloseEvent('close'));
  }
}

const ENGINES = [{ id: 'local', kind: 'local-docker', label: 'Local Docker', endpoint: 'unix:///x' }];

function makeHost() {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const fetch = vi.fn(async (url: string | URL | Request) => {
    const value = String(url) === '/api/invoke/engines:list' ? ENGINES : [];
    return { status: 200, json: async () => ({ ok: true, value }) } as unknown as Response;
  });
  const host: BrowserHost = {
    fetch: fetch as unknown as typeof globalThis.fetch,
    createWebSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    location: { hash: '#token=abc', host: '127.0.0.1:47100', protocol: 'http:', pathname: '/', search: '' },
    history: { state: null, replaceState: () => {} },
    sessionStorage: null,
    setTimeout: (fn, ms) => timers.push({ fn, ms }),
    clearTimeout: () => {},
  };
  const callsOn = (channel: string) => fetch.mock.calls.filter(([url]) => String(url) === `/api/invoke/${channel}`).length;
  return { host, fetch, sockets, timers, callsOn };
}

// Issue 35: a page load made 45 calls, several lists fetched 4 times (the stores' own reads, the
// socket's replay, and the reads its events triggered). The browser client now shares them.
describe('shared reads of a page that connects at once (the app: getApi)', () => {
  it('holds the first reads until the socket opens, then answers them with the replay: each list once', async () => {
    const { host, fetch, sockets, callsOn } = makeHost();
    const api = createBrowserApi(host, { connectAtOnce: true });
    expect(sockets).toHaveLength(1);
    // What the stores do as the page mounts: their first reads, some twice (two engines' sections), and a subscription.
    const seen: string[] = [];
    api.events.on('engines:changed', () => seen.push('engines:changed'));
    api.events.on('swarm:containers-changed', () => seen.push('containers-changed'));
    api.events.on('servers:changed', () => seen.push('servers:changed'));
    const first = [api.engines.list(), api.engines.list(), api.profiles.list(), api.profiles.list(), api.swarm.list({ engineId: 'local' }), api.settings.get()];
    await Promise.resolve();
    expect(fetch).not.toHaveBeenCalled();

    sockets[0]!.open();
    const answers = await Promise.all(first);
    expect(answers[0]).toEqual({ ok: true, value: ENGINES });
    expect(answers.every((answer) => answer.ok)).toBe(true);
    await vi.waitFor(() => expect(seen).toContain('servers:changed'));
    // The replay's reads, plus swarm:list (not a replayed snapshot): nothing twice.
    expect(fetch).toHaveBeenCalledTimes(replayTable.length + 1);
    for (const channel of ['engines:list', 'profiles:list', 'settings:get', 'swarm:list']) expect(callsOn(channel), channel).toBe(1);
    // Every read went out after the open: the first replay sends snapshots, not "read again".
    expect(seen).toEqual(['servers:changed']);
  });

  it('reads afresh once the replay is done, and a reconnect replays "read again" as before', async () => {
    const { host, sockets, timers, callsOn } = makeHost();
    const api = createBrowserApi(host, { connectAtOnce: true });
    const seen: string[] = [];
    api.events.on('engines:changed', () => seen.push('engines:changed'));
    sockets[0]!.open();
    await vi.waitFor(() => expect(callsOn('engines:list')).toBe(1));
    await new Promise((r) => setTimeout(r, 0));
    await api.engines.list();
    expect(callsOn('engines:list')).toBe(2);

    sockets[0]!.drop();
    timers.at(-1)!.fn();
    sockets[1]!.open();
    await vi.waitFor(() => expect(seen).toEqual(['engines:changed']));
  });

  it('lets the held reads go when the first open fails', async () => {
    const { host, sockets, callsOn } = makeHost();
    const api = createBrowserApi(host, { connectAtOnce: true });
    const pending = api.settings.get();
    sockets[0]!.drop();
    expect(await pending).toEqual({ ok: true, value: [] });
    expect(callsOn('settings:get')).toBe(1);
    // Later reads do not wait for the retries.
    await api.settings.get();
    expect(callsOn('settings:get')).toBe(2);
  });

  it('never shares writes: two identical starts in the replay window both reach the backend', async () => {
    const { host, sockets, callsOn } = makeHost();
    const api = createBrowserApi(host, { connectAtOnce: true });
    const starts = [api.swarm.start({ engineId: 'local', image: 'x/y:1' }), api.swarm.start({ engineId: 'local', image: 'x/y:1' })];
    sockets[0]!.open();
    await Promise.all(starts);
    expect(callsOn('swarm:start')).toBe(2);
  });
});
