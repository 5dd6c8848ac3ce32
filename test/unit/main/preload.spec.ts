import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExposedApi } from '../../../electron/shared/api';
import { apiLayout } from '../../../electron/shared/api';
import { EVENT_BRIDGE_CHANNEL, RENDERER_READY_CHANNEL } from '../../../electron/shared/contract';

import type * as ElectronStub from '../../stubs/electron';

type Stub = typeof ElectronStub;

let stub: Stub;
let api: ExposedApi;

/** The preload exposes its API at import time, so each test loads a fresh copy against fresh fakes. */
beforeEach(async () => {
  vi.resetModules();
  stub = await import('../../stubs/electron');
  await import('../../../electron/preload/index');
  api = stub.contextBridge.exposed.get('api') as ExposedApi;
});

afterEach(() => vi.restoreAllMocks());

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe('preload surface', () => {
  it('exposes exactly one global, `api`', () => {
    expect([...stub.contextBridge.exposed.keys()]).toEqual(['api']);
  });

  it('has exactly the namespaced methods of the layout, plus rendererReady and events.on', () => {
    const shape = Object.fromEntries(Object.entries(api).map(([ns, methods]) => [ns, Object.keys(methods).sort()]));
    const expected: Record<string, string[]> = Object.fromEntries(
      Object.entries(apiLayout).map(([ns, methods]) => [ns, Object.keys(methods)]),
    );
    expected['app'] = [...(expected['app'] ?? []), 'rendererReady'];
    expected['events'] = ['on'];
    expect(shape).toEqual(Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, [...v].sort()])));
    for (const methods of Object.values(api)) {
      for (const fn of Object.values(methods)) expect(typeof fn).toBe('function');
    }
  });

  it('is deeply frozen', () => {
    expect(isDeepFrozen(api)).toBe(true);
    expect(() => {
      (api.swarm as { start: unknown }).start = () => 'hijacked';
    }).toThrow(TypeError);
  });

  it('hands out nothing generic: no ipcRenderer, invoke-by-name, send or env', () => {
    const text = JSON.stringify(Object.keys(api)) + JSON.stringify(Object.values(api).map((m) => Object.keys(m)));
    for (const forbidden of ['ipcRenderer', 'invoke', 'send', 'process', 'env', 'require']) {
      expect(text).not.toContain(`"${forbidden}"`);
    }
  });
});

describe('invoking', () => {
  it('invokes the channel of each method with the request', async () => {
    stub.ipcRenderer.invokeResult = { ok: true, value: 'pong' };
    await expect(api.swarm.start({ engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' })).resolves.toEqual({
      ok: true,
      value: 'pong',
    });
    await api.swarm.stop({ engineId: 'local', containerId: 'a1b2c3d4e5f6' });
    expect(stub.ipcRenderer.invocations).toEqual([
      { channel: 'swarm:start', args: [{ engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' }] },
      { channel: 'swarm:stop', args: [{ engineId: 'local', containerId: 'a1b2c3d4e5f6' }] },
    ]);
  });

  it('sends {} when called without a request', async () => {
    await api.engines.list();
    await api.settings.get();
    expect(stub.ipcRenderer.invocations).toEqual([
      { channel: 'engines:list', args: [{}] },
      { channel: 'settings:get', args: [{}] },
    ]);
  });

  it('maps every layout entry to its own channel', async () => {
    for (const [ns, methods] of Object.entries(apiLayout)) {
      for (const [method, channel] of Object.entries(methods)) {
        const fn = (api as unknown as Record<string, Record<string, () => Promise<unknown>>>)[ns]?.[method];
        await fn?.();
        expect(stub.ipcRenderer.invocations.at(-1)?.channel).toBe(channel);
      }
    }
  });

  it('rendererReady sends the ready signal and nothing else', () => {
    api.app.rendererReady();
    expect(stub.ipcRenderer.sent).toEqual([{ channel: RENDERER_READY_CHANNEL, args: [] }]);
    expect(stub.ipcRenderer.invocations).toEqual([]);
  });
});

describe('events.on', () => {
  const status = { engineId: 'local', containerId: 'a1b2c3d4e5f6' };

  it('delivers only its channel, and only the payload', () => {
    const seen: unknown[][] = [];
    const off = api.events.on('swarm:containers-changed', (...args: unknown[]) => seen.push(args));
    stub.ipcRenderer.deliver(EVENT_BRIDGE_CHANNEL, { channel: 'settings:changed', payload: { x: 1 } });
    stub.ipcRenderer.deliver(EVENT_BRIDGE_CHANNEL, { channel: 'swarm:containers-changed', payload: { engineId: 'local' } });
    expect(seen).toEqual([[{ engineId: 'local' }]]);
    off();
  });

  it('ignores malformed bridge messages and other Electron channels', () => {
    const listener = vi.fn();
    const off = api.events.on('swarm:status', listener);
    stub.ipcRenderer.deliver(EVENT_BRIDGE_CHANNEL, null);
    stub.ipcRenderer.deliver(EVENT_BRIDGE_CHANNEL, 'swarm:status');
    stub.ipcRenderer.deliver(EVENT_BRIDGE_CHANNEL, { channel: 'not-a-channel', payload: status });
    stub.ipcRenderer.deliver('swarm:status', { channel: 'swarm:status', payload: status });
    expect(listener).not.toHaveBeenCalled();
    off();
  });

  it('uses one Electron listener for all subscriptions and removes it after the last unsubscribe', () => {
    const a = vi.fn();
    const b = vi.fn();
    const offA = api.events.on('swarm:status', a);
    const offB = api.events.on('settings:changed', b);
    expect(stub.ipcRenderer.listenerCount(EVENT_BRIDGE_CHANNEL)).toBe(1);
    offA();
    stub.ipcRenderer.deliver(EVENT_BRIDGE_CHANNEL, { channel: 'swarm:status', payload: status });
    expect(a).not.toHaveBeenCalled();
    offB();
    offB(); // a second call is harmless
    expect(stub.ipcRenderer.listenerCount(EVENT_BRIDGE_CHANNEL)).toBe(0);
  });

  it('keeps delivering to other listeners when one throws', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const good = vi.fn();
    const offBad = api.events.on('swarm:status', () => {
      throw new Error('ui bug');
    });
    const offGood = api.events.on('swarm:status', good);
    stub.ipcRenderer.deliver(EVENT_BRIDGE_CHANNEL, { channel: 'swarm:status', payload: status });
    expect(good).toHaveBeenCalledWith(status);
    offBad();
    offGood();
  });

  it('refuses channels outside the event contract and registers nothing', () => {
    const on = api.events.on as (channel: string, listener: () => void) => () => void;
    for (const channel of [EVENT_BRIDGE_CHANNEL, RENDERER_READY_CHANNEL, 'swarm:start', '__proto__', 'toString']) {
      expect(() => on(channel, () => undefined)).toThrow(TypeError);
    }
    expect(() => (api.events.on as (c: string, l: unknown) => void)('swarm:status', 'nope')).toThrow(TypeError);
    expect(stub.ipcRenderer.listenerCount(EVENT_BRIDGE_CHANNEL)).toBe(0);
  });
});
