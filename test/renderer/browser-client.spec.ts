import { deriveServerState } from '../../electron/services/server-state/derive';
import { describe, expect, it, vi } from 'vitest';
import {
  BACKEND_UNREACHABLE_MESSAGE,
  createBrowserApi,
  getApi,
  setApiForTests,
  type BrowserHost,
} from '../../renderer/src/lib/api';
import type { WebSocketLike } from '../../renderer/src/lib/api/event-socket';
import { notReplayed, replayTable } from '../../renderer/src/lib/api/replay';
import { apiLayout } from '../../electron/shared/api';
import { eventChannels, eventContract, type InvokeChannel } from '../../electron/shared/contract';
import { FakeApi, makeStatus } from './fake-api';
import { AlertThresholds } from '../../electron/shared/schemas-fleet';

/** A stand-in WebSocket the test drives by hand: open, message, close. */
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
  receive(data: unknown): void {
    this.onmessage?.(new MessageEvent('message', { data: typeof data === 'string' ? data : JSON.stringify(data) }));
  }
  drop(): void {
    this.onclose?.(new CloseEvent('close'));
  }
}

/** In-memory stand-in for window.sessionStorage (shared across "reloads" when passed in). */
class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

function makeHost(hash = '#token=00ff00ff', sessionStorage = new MemoryStorage()) {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const replaceState = vi.fn();
  const fetch = vi.fn(
    async (_url: string | URL | Request, _init?: RequestInit) =>
      ({ status: 200, json: async () => ({ ok: true, value: [] }) }) as unknown as Response,
  );
  const host: BrowserHost = {
    fetch: fetch as unknown as typeof globalThis.fetch,
    createWebSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    location: { hash, host: '127.0.0.1:47100', protocol: 'http:', pathname: '/', search: '' },
    history: { state: null, replaceState },
    sessionStorage,
    setTimeout: (fn, ms) => timers.push({ fn, ms }),
    clearTimeout: () => {},
  };
  return { host, fetch, sockets, timers, replaceState, sessionStorage };
}

describe('browser-host API client', () => {
  it('reads the token from the hash, hides it from the URL and sends it as a Bearer header', async () => {
    const { host, fetch, replaceState } = makeHost('#token=00ff00ff');
    const api = createBrowserApi(host);
    expect(replaceState).toHaveBeenCalledWith(null, '', '/');

    const result = await api.swarm.list({ engineId: 'local' });

    expect(result).toEqual({ ok: true, value: [] });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/api/invoke/swarm:list');
    expect(init?.method).toBe('POST');
    expect(init?.headers).toEqual({ 'Content-Type': 'application/json', Authorization: 'Bearer 00ff00ff' });
    expect(init?.body).toBe(JSON.stringify({ engineId: 'local' }));
    expect(window.localStorage.length).toBe(0);
  });

  it('keeps the token for a reload of the same tab (sessionStorage), never in localStorage', async () => {
    const first = makeHost('#token=abc123');
    createBrowserApi(first.host);
    expect([...first.sessionStorage.items.values()]).toEqual(['abc123']);

    // After the reload the hash is gone; the token comes back from this tab's session storage.
    const reloaded = makeHost('', first.sessionStorage);
    await createBrowserApi(reloaded.host).settings.get();
    expect(reloaded.fetch.mock.calls[0]![1]?.headers).toMatchObject({ Authorization: 'Bearer abc123' });
    expect(window.localStorage.length).toBe(0);
  });

  it('keeps other hash parameters when removing the token', () => {
    const { host, replaceState } = makeHost('#token=abc123&view=servers');
    createBrowserApi(host);
    expect(replaceState).toHaveBeenCalledWith(null, '', '/#view=servers');
  });

  it('sends {} when a call has no request', async () => {
    const { host, fetch } = makeHost();
    await createBrowserApi(host).settings.get();
    expect(fetch.mock.calls[0]![1]?.body).toBe('{}');
    expect(fetch.mock.calls[0]![0]).toBe('/api/invoke/settings:get');
  });

  it('passes backend error envelopes through unchanged', async () => {
    const { host, fetch } = makeHost();
    const envelope = { ok: false, error: { code: 'PORT_IN_USE', message: 'port 10086 is taken' } };
    fetch.mockResolvedValueOnce({ status: 200, json: async () => envelope } as unknown as Response);
    expect(await createBrowserApi(host).swarm.start({ engineId: 'local', image: 'x/y:1' })).toEqual(envelope);
  });

  it('turns a network failure into a BACKEND_UNREACHABLE error that says to check `npm run web`', async () => {
    const { host, fetch } = makeHost();
    fetch.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    expect(await createBrowserApi(host).engines.list()).toEqual({
      ok: false,
      error: { code: 'BACKEND_UNREACHABLE', message: BACKEND_UNREACHABLE_MESSAGE },
    });
    expect(BACKEND_UNREACHABLE_MESSAGE).toContain('npm run web');
  });

  it('turns a non-envelope answer into an INTERNAL error naming the HTTP status', async () => {
    const { host, fetch } = makeHost();
    fetch.mockResolvedValueOnce({
      status: 502,
      json: async () => {
        throw new SyntaxError('Unexpected token <');
      },
    } as unknown as Response);
    const result = await createBrowserApi(host).engines.list();
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toContain('HTTP 502');
  });

  it('delivers valid events from one WebSocket and reconnects with backoff when it closes', () => {
    const { host, sockets, timers } = makeHost('#token=abc123');
    const api = createBrowserApi(host);
    const statuses: unknown[] = [];
    const changes: unknown[] = [];
    const offStatus = api.events.on('swarm:status', (s) => statuses.push(s));
    api.events.on('swarm:containers-changed', (c) => changes.push(c));

    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.url).toBe('ws://127.0.0.1:47100/api/events?token=abc123&heartbeat=1');
    sockets[0]!.open();
    const status = makeStatus('0123456789ab');
    sockets[0]!.receive({ channel: 'swarm:status', payload: status });
    sockets[0]!.receive({ channel: 'swarm:containers-changed', payload: { engineId: 'local' } });
    // Malformed, unknown or wrongly shaped messages are dropped, not passed to listeners.
    sockets[0]!.receive('not json');
    sockets[0]!.receive({ channel: 'nope', payload: {} });
    sockets[0]!.receive({ channel: 'swarm:status', payload: { containerId: 'zz' } });
    expect(statuses).toEqual([status]);
    expect(changes).toEqual([{ engineId: 'local' }]);

    sockets[0]!.drop();
    expect(timers.map((t) => t.ms)).toEqual([500]);
    timers[0]!.fn();
    expect(sockets).toHaveLength(2);
    sockets[1]!.drop();
    expect(timers.map((t) => t.ms)).toEqual([500, 1000]);
    timers[1]!.fn();
    sockets[2]!.open();
    sockets[2]!.drop();
    // A successful open resets the delay.
    expect(timers.map((t) => t.ms)).toEqual([500, 1000, 500]);
    timers[2]!.fn();

    offStatus();
    sockets[3]!.receive({ channel: 'swarm:status', payload: status });
    expect(statuses).toHaveLength(1);
  });

  it('replays statuses, list refreshes, settings and their status on the first open and again after a reconnect', async () => {
    const { host, sockets, timers, fetch } = makeHost('#token=abc123');
    const status = makeStatus('0123456789ab');
    const settings = { language: 'zh-CN', swarm: { image: 'a/b:1', port: 10086, networkMode: 'publish', gpus: false, shmSizeGb: 32 } };
    const settingsStatus = { file: '/x/settings.json', problem: 'unreadable', writable: false, detail: 'EISDIR', movedTo: null, resetFields: [] };
    const answers: Record<string, unknown> = {
      '/api/invoke/swarm:statuses': [status],
      '/api/invoke/engines:list': [{ id: 'local', kind: 'local-docker', label: 'Local Docker', endpoint: 'unix:///x' }],
      '/api/invoke/settings:get': settings,
      '/api/invoke/settings:status': settingsStatus,
      '/api/invoke/servers:list': [],
    };
    fetch.mockImplementation(async (url) => ({ status: 200, json: async () => ({ ok: true, value: answers[String(url)] ?? [] }) }) as unknown as Response);
    const api = createBrowserApi(host);
    const seen: unknown[] = [];
    api.events.on('swarm:status', (s) => seen.push(['status', s]));
    api.events.on('swarm:containers-changed', (c) => seen.push(['changed', c]));
    api.events.on('settings:changed', (s) => seen.push(['settings', s]));
    api.events.on('settings:status-changed', (s) => seen.push(['settings-status', s]));
    api.events.on('engines:changed', (e) => seen.push(['engines', e]));
    api.events.on('servers:changed', (s) => seen.push(['servers', s]));
    const replay = [
      ['status', status],
      ['engines', {}],
      ['changed', { engineId: 'local' }],
      ['settings', settings],
      ['settings-status', settingsStatus],
      ['servers', []],
    ];
    expect(fetch).not.toHaveBeenCalled(); // nothing is fetched before the socket is open

    // The stores' first snapshot races the socket's connect: the first open already catches up.
    sockets[0]!.open();
    await vi.waitFor(() => expect(seen).toHaveLength(6));
    expect(seen).toEqual(replay);
    expect(fetch).toHaveBeenCalledTimes(replayTable.length);

    sockets[0]!.drop();
    timers[0]!.fn();
    expect(fetch).toHaveBeenCalledTimes(replayTable.length); // a new socket that has not opened yet replays nothing
    sockets[1]!.open();
    await vi.waitFor(() => expect(seen).toHaveLength(12));
    expect(seen).toEqual([...replay, ...replay]);
    expect(fetch).toHaveBeenCalledTimes(2 * replayTable.length);
  });

  it("does not dispatch the replay's snapshot after the backend's newer event of it (a change made while the page reconnected)", async () => {
    const { host, sockets, fetch } = makeHost('#token=abc123');
    const before = { language: 'en', swarm: { image: 'a/b:1', port: 10086, networkMode: 'publish', gpus: false, shmSizeGb: 32 } };
    const after = { ...before, language: 'zh-CN' };
    // The settings read of the replay is answered only after the backend's event of the change went out.
    let answerSettings: (() => void) | null = null;
    fetch.mockImplementation(async (url) => {
      if (String(url) === '/api/invoke/settings:get') await new Promise<void>((resolve) => (answerSettings = resolve));
      return { status: 200, json: async () => ({ ok: true, value: String(url) === '/api/invoke/settings:get' ? before : [] }) } as unknown as Response;
    });
    const api = createBrowserApi(host);
    const seen: string[] = [];
    api.events.on('settings:changed', (settings) => seen.push(settings.language ?? 'none'));
    sockets[0]!.open();
    await vi.waitFor(() => expect(answerSettings).not.toBeNull());
    sockets[0]!.receive({ channel: 'settings:changed', payload: after });
    answerSettings!();
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(replayTable.length));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual(['zh-CN']);
  });

  it('has every method of apiLayout, each posting to its own channel (built by looping over the layout)', async () => {
    const { host, fetch } = makeHost();
    const api = createBrowserApi(host) as unknown as Record<string, Record<string, (request?: unknown) => Promise<unknown>>>;
    const expected: string[] = [];
    for (const [namespace, methods] of Object.entries(apiLayout)) {
      for (const [method, channel] of Object.entries(methods) as [string, InvokeChannel][]) {
        expected.push(`/api/invoke/${channel}`);
        await api[namespace]![method]!({});
      }
    }
    expect(fetch.mock.calls.map(([url]) => String(url))).toEqual(expected);
  });

  it('replays through a table whose rows produce valid payloads for every event channel', () => {
    // With when it was last confirmed and through which link (issue 31).
    const status = makeStatus('0123456789ab', { confirmedAt: '2026-12-03T00:00:00.000Z', via: 'ssh-tunnel' });
    const settings = { language: 'en', swarm: { image: 'a/b:1', port: 10086, networkMode: 'publish', gpus: true, shmSizeGb: 32 } };
    const sample: Partial<Record<InvokeChannel, unknown>> = {
      'swarm:statuses': [status],
      'engines:list': [{ id: 'local', kind: 'local-docker', label: 'Local Docker', endpoint: 'unix:///x' }],
      'settings:get': settings,
      'settings:status': { file: '/x/settings.json', problem: 'unreadable', writable: false, detail: 'EISDIR: it is a folder', movedTo: null, resetFields: [] },
      'servers:list': [],
      'profiles:list': [],
      'doctor:reports': [
        { profileId: 'p', engineId: 'local', ranAt: '2026-12-03T00:00:00.000Z', durationMs: 5, verdict: 'pass', checks: [] },
      ],
      'fleet:states': [
        deriveServerState(
          {
            engineKind: 'local-docker',
            container: { id: '0123456789ab', name: 'agentswarm-a', engineId: 'local', image: 'a/b:1', state: 'running', statusText: 'Up 2 seconds', port: 10086, networkMode: 'publish', createdAt: '2026-12-03T00:00:00.000Z', startedAt: '2026-12-03T00:00:01.000Z', finishedAt: null, exitCode: null },
            status,
            stopping: false,
          },
          undefined,
          Date.parse('2026-12-03T00:00:05.000Z'),
        ),
      ],
      'images:pulls': [
        { pullId: 'a1', engineId: 'local', image: 'a/b:1', phase: 'done', percent: 100, layersDone: 1, layersTotal: 1, bytesDone: 10, bytesTotal: 10, etaSeconds: null, startedAt: '2026-12-03T00:00:00.000Z', endedAt: '2026-12-03T00:00:01.000Z', error: null },
      ],
      'logs:heads': [{ engineId: 'local', containerId: '0123456789ab', total: 3, lines: [] }],
      'training:views': [
        { engineId: 'local', containerId: '0123456789ab', runId: null, engineStatus: null, statusSince: null, bootingSeconds: null, globalStep: null, modelPath: null, sampleCollectionMethod: null, episodes: null, tasks: null, nonDummyTasks: null, expectedRepeat: null, runningEpisodes: [], taskRewards: [], rewardMean: null, rewardStd: null, activeClients: [], missingRoutes: [], lastError: null, checkedAt: '2026-12-03T00:00:00.000Z' },
      ],
      'runs:list': [],
      'vault:state': { status: 'locked', backend: 'passphrase', protected: true, persisted: true, available: ['passphrase', 'session'], keychain: null, file: '/x/vault.json', movedAside: null, problem: null, secretCount: 2 },
      'secrets:list': [],
      'dryrun:view': { state: 'stopped', url: null, port: null, portNote: null, config: null, keySource: null, engineStatus: null, globalStep: null, train: null, spend: { calls: 0, promptTokens: 0, completionTokens: 0, maxCalls: 2000, maxTokens: 2000000, stoppedBy: null }, stall: null, startRefusal: null, error: null },
      'dryrun:traces': { total: 0, episodes: [], steps: [], taskIds: [] },
      'jobs:list': [
        {
          id: 'job-1', kind: 'episode-test', label: null, state: 'succeeded', cwd: '/p', script: 'run_episode_once.py', args: ['0'],
          python: '/usr/bin/python3', swarm: null, swarmUrl: null, llmSecretId: null, startedAt: '2026-12-03T00:00:00Z',
          endedAt: '2026-12-03T00:00:02Z', durationMs: 2000, exitCode: 0, signal: null, pid: null,
          result: { reward: 1, count: null, items: [], raw: { reward: 1 } }, failure: null, logLines: 3, logFile: '/d/jobs/job-1.log',
        },
      ],
      'wizard:state': {
        current: 'llm', steps: [{ id: 'llm', status: 'todo', fact: null, doneAt: null, dependsOn: [], missing: [] }],
        llm: null, project: null, code: null, swarm: null, debug: null, trainJobId: null, runningJobIds: [],
      },
      'updates:state': { currentVersion: '0.1.0', state: { status: 'unsupported', reason: 'browser-host' } },
      'workers:list': [
        {
          poolId: 'pool-1', label: null, createdAt: '2026-12-03T00:00:00Z', state: 'running',
          swarm: { engineId: 'local', containerId: '0123456789ab', profileId: null }, swarmUrl: 'http://127.0.0.1:10086',
          split: { batchSize: 2, grpoN: 2, workers: 1, shares: [{ index: 0, batchShare: 2, parallelEpisodes: 4 }], totalParallelEpisodes: 4 },
          workers: [
            {
              index: 0, placement: { kind: 'local' }, where: 'this computer', state: 'running', exitCode: null, signal: null, pid: 42, jobId: 'job-2',
              batchShare: 2, parallelEpisodes: 4, clientUuid: null, episodes: 3, failedEpisodes: 0, episodesPerMinute: 12, lastError: null,
              startedAt: '2026-12-03T00:00:00Z', endedAt: null, logLines: 5, note: null,
            },
          ],
          episodesPerMinute: 12, episodes: 3,
        },
      ],
      'gpus:samples': [
        {
          key: 'local', engineId: 'local', engineIds: ['local'], containerId: null, hostLabel: 'this computer', hostKind: 'local', at: '2026-01-01T00:00:00.000Z',
          gpus: [{ index: 0, uuid: 'GPU-0', utilizationPct: 97, memoryUsedMiB: 40120, memoryTotalMiB: 81920 }], error: null,
        },
      ],
      'alerts:list': [
        { id: 'a1', rule: 'gpus-idle', engineId: 'local', containerId: 'c1', name: 'night run', state: 'open', openedAt: '2026-01-01T00:00:00.000Z', resolvedAt: null, detail: '4 GPUs under 5 % for 15 min' },
      ],
      'alerts:thresholds': AlertThresholds.parse({ idleMinutes: 30 }),
    };
    const produced = new Set<string>(notReplayed);
    for (const row of replayTable) {
      expect(sample, `add a sample answer for ${row.request}`).toHaveProperty([row.request]);
      for (const message of row.toEvents(sample[row.request])) {
        expect(eventContract[message.channel].safeParse(message.payload).success, message.channel).toBe(true);
        produced.add(message.channel);
      }
    }
    // A new event channel needs a replay row, or the browser UI misses it after a reconnect.
    expect([...produced].sort()).toEqual([...eventChannels].sort());
  });

  it('works without a token (the backend then answers FORBIDDEN) and leaves the URL alone', async () => {
    const { host, fetch, replaceState } = makeHost('');
    await createBrowserApi(host).app.info();
    expect(replaceState).not.toHaveBeenCalled();
    expect(fetch.mock.calls[0]![1]?.headers).toEqual({ 'Content-Type': 'application/json' });
  });

  it('rendererReady is a no-op in the browser', () => {
    const { host, fetch } = makeHost();
    createBrowserApi(host).app.rendererReady();
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('getApi', () => {
  it('prefers the Electron preload API on window.api', () => {
    setApiForTests(null);
    const preload = new FakeApi();
    window.api = preload;
    expect(getApi()).toBe(preload);
  });

  it('returns an injected test API', () => {
    const fake = new FakeApi();
    setApiForTests(fake);
    expect(getApi()).toBe(fake);
  });
});
