import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BrowserWindow,
  app,
  fakeIpcEvent,
  ipcMain,
  resetElectronStub,
  protocol,
  session,
  powerMonitor,
  net,
} from '../../stubs/electron';
import { boot, type BootDeps } from '../../../electron/main/boot';
import { tempShellStore } from './temp-shell-store';
import { APP_INDEX_URL } from '../../../electron/main/app-protocol';
import { rendererCsp } from '../../../electron/main/security';
import type { AppServices, AppServicesOptions } from '../../../electron/services/app-services';
import type { Handlers } from '../../../electron/services/ipc/handlers';
import { EVENT_BRIDGE_CHANNEL, RENDERER_READY_CHANNEL, invokeChannels } from '../../../electron/shared/contract';

const mainDir = '/opt/app/out/main';
const APP_URL = 'agentswarm://app/index.html';

function fakeServices(logger: AppServices['logger']) {
  const created: AppServicesOptions[] = [];
  const services = {
    handlers: Object.fromEntries(invokeChannels.map((c) => [c, vi.fn(async () => ({ from: c }))])) as unknown as Handlers,
    settings: {} as AppServices['settings'],
    logger,
    start: vi.fn(async () => undefined),
    systemResumed: vi.fn(() => undefined),
    dispose: vi.fn(async () => undefined),
  } satisfies AppServices;
  const createAppServices = (options: AppServicesOptions): AppServices => {
    created.push(options);
    return services;
  };
  return { services, created, createAppServices };
}

function deps(overrides: Partial<BootDeps> = {}) {
  const logger = { warn: vi.fn(), info: vi.fn(), error: vi.fn() };
  const fake = fakeServices(logger);
  return {
    fake,
    logger,
    deps: { createAppServices: fake.createAppServices, mainDir, env: {}, platform: 'linux', logger, openShellStore: tempShellStore(), ...overrides } as BootDeps,
  };
}

beforeEach(() => {
  resetElectronStub();
  app.paths['userData'] = '/home/u/.config/AgentSwarm Desktop';
  app.version = '1.2.3';
});

describe('boot', () => {
  it('wires services, IPC, security and one window', async () => {
    const { deps: d, fake } = deps();
    const booted = await boot(d);
    expect(booted).not.toBeNull();

    expect(app.sandboxEnabled).toBe(true);
    expect(fake.created).toHaveLength(1);
    expect(fake.created[0]).toMatchObject({ dataDir: '/home/u/.config/AgentSwarm Desktop', host: 'electron', version: '1.2.3' });
    expect(fake.created[0]?.events).toBe(booted?.events);

    expect([...ipcMain.handlers.keys()].sort()).toEqual([...invokeChannels].sort());
    expect(BrowserWindow.instances).toHaveLength(1);
    const window = BrowserWindow.instances[0];
    expect(window?.loaded).toEqual({ kind: 'url', target: APP_INDEX_URL });
    expect((window?.options['webPreferences'] as { preload: string }).preload).toBe('/opt/app/out/preload/index.cjs');
    expect(window?.webContents.windowOpenHandler).not.toBeNull();

    let csp: string[] | undefined;
    session.defaultSession.headersListener?.({ url: APP_URL }, (r) => (csp = r.responseHeaders?.['Content-Security-Policy']));
    expect(csp).toEqual([rendererCsp({ kind: 'bundle', dir: '/opt/app/out/renderer' })]);
    expect(fake.services.start).toHaveBeenCalledOnce();
  });

  it('serves the UI from the app:// scheme (registered before ready), never from file://', async () => {
    app.holdReady();
    const { deps: d } = deps();
    const booting = boot(d);
    // The stand-in throws if the scheme is registered after ready, as Electron would ignore it.
    expect(protocol.privileged.map((s) => s.scheme)).toEqual(['agentswarm']);
    expect(protocol.privileged[0]?.privileges).toMatchObject({ standard: true, secure: true });
    expect(protocol.isProtocolHandled('agentswarm')).toBe(false);
    app.fireReady();
    await booting;
    expect(protocol.isProtocolHandled('agentswarm')).toBe(true);
    const window = BrowserWindow.instances[0];
    expect(window?.loaded?.kind).toBe('url');
    expect(window?.loaded?.target).toMatch(/^agentswarm:\/\/app\//);
    // The handler answers from /opt/app/out/renderer (absent here) with the CSP on every response.
    const response = await protocol.fetch('agentswarm://app/index.html');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-security-policy')).toBe(rendererCsp({ kind: 'bundle', dir: '/opt/app/out/renderer' }));
  });

  it('allows DevTools only in an unpackaged app', async () => {
    const { deps: d } = deps();
    await boot(d);
    expect((BrowserWindow.instances[0]?.options['webPreferences'] as { devTools: boolean }).devTools).toBe(true);
    resetElectronStub();
    app.isPackaged = true;
    await boot(deps().deps);
    expect((BrowserWindow.instances[0]?.options['webPreferences'] as { devTools: boolean }).devTools).toBe(false);
  });

  it('routes calls from the window to the services and refuses foreign frames', async () => {
    const { deps: d, fake } = deps();
    await boot(d);
    await expect(ipcMain.invoke('app:info', fakeIpcEvent(APP_URL))).resolves.toEqual({
      ok: true,
      value: { from: 'app:info' },
    });
    await expect(ipcMain.invoke('app:info', fakeIpcEvent('https://evil.example/'))).resolves.toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    });
    expect(fake.services.handlers['app:info']).toHaveBeenCalledOnce();
  });

  it('holds service events until the window says ready, then delivers them over the bridge', async () => {
    const { deps: d } = deps();
    const booted = await boot(d);
    booted?.events.emit('swarm:containers-changed', { engineId: 'local' });
    const contents = BrowserWindow.instances[0]!.webContents;
    expect(contents.sent).toEqual([]);
    ipcMain.emit(RENDERER_READY_CHANNEL, fakeIpcEvent(APP_URL, { sender: contents }));
    expect(contents.sent).toEqual([
      { channel: EVENT_BRIDGE_CHANNEL, args: [{ channel: 'swarm:containers-changed', payload: { engineId: 'local' } }] },
    ]);
  });

  it('quits when another instance holds the lock, creating nothing', async () => {
    app.singleInstanceLock = false;
    const { deps: d, fake } = deps();
    await expect(boot(d)).resolves.toBeNull();
    expect(app.quitCalls).toBe(1);
    expect(fake.created).toHaveLength(0);
    expect(BrowserWindow.instances).toHaveLength(0);
  });

  it('focuses (and restores) the window when a second instance starts', async () => {
    const { deps: d } = deps();
    await boot(d);
    const window = BrowserWindow.instances[0]!;
    window.minimized = true;
    app.emit('second-instance', {}, [], '/');
    expect(window.minimized).toBe(false);
    expect(window.focused).toBe(true);
  });

  it('quits when the last window closes, except on macOS where activate reopens one', async () => {
    const linux = deps();
    await boot(linux.deps);
    BrowserWindow.instances[0]!.close();
    app.emit('window-all-closed');
    expect(app.quitCalls).toBe(1);

    resetElectronStub();
    const mac = deps({ platform: 'darwin' });
    const booted = await boot(mac.deps);
    BrowserWindow.instances[0]!.close();
    app.emit('window-all-closed');
    expect(app.quitCalls).toBe(0);
    expect(booted?.window()).toBeNull();
    app.emit('activate');
    expect(BrowserWindow.instances).toHaveLength(2);
    expect(booted?.window()).toBe(BrowserWindow.instances[1]);
  });

  it('holds the first quit until services are disposed, then quits for real', async () => {
    const { deps: d, fake } = deps();
    let finish!: () => void;
    fake.services.dispose.mockImplementationOnce(() => new Promise<undefined>((r) => (finish = () => r(undefined))));
    await boot(d);

    expect(app.emitPreventable('before-quit')).toBe(true);
    expect(app.emitPreventable('before-quit')).toBe(true); // a second quit while disposing waits too
    expect(fake.services.dispose).toHaveBeenCalledOnce();
    expect(app.quitCalls).toBe(0);

    finish();
    await vi.waitFor(() => expect(app.quitCalls).toBe(1));
    expect(app.emitPreventable('before-quit')).toBe(false);
  });

  it('quits anyway when disposing hangs', async () => {
    const { deps: d, fake, logger } = deps({ disposeTimeoutMs: 20 });
    fake.services.dispose.mockImplementationOnce(() => new Promise<undefined>(() => undefined));
    await boot(d);
    app.emitPreventable('before-quit');
    await vi.waitFor(() => expect(app.quitCalls).toBe(1));
    expect(logger.warn).toHaveBeenCalledWith('services did not stop in time; quitting anyway', { timeoutMs: 20 });
  });

  it('keeps the window up when services fail to start', async () => {
    const { deps: d, fake, logger } = deps();
    fake.services.start.mockRejectedValueOnce(new Error('settings file is corrupt'));
    const booted = await boot(d);
    expect(booted?.window()).toBe(BrowserWindow.instances[0]);
    expect(logger.warn).toHaveBeenCalledWith('services failed to start', { message: 'settings file is corrupt' });
  });

  it('does not create services or windows before the app is ready', async () => {
    app.holdReady();
    const { deps: d, fake } = deps();
    const booting = boot(d);
    await Promise.resolve();
    expect(fake.created).toHaveLength(0);
    expect(BrowserWindow.instances).toHaveLength(0);
    app.fireReady();
    await booting;
    expect(BrowserWindow.instances).toHaveLength(1);
  });

  it('tells the services when the computer wakes, the screen unlocks or the network comes back', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { deps: d, fake } = deps();
      await boot(d);
      expect(fake.services.systemResumed).not.toHaveBeenCalled();
      powerMonitor.emit('resume');
      powerMonitor.emit('unlock-screen');
      expect(fake.services.systemResumed).toHaveBeenCalledTimes(2);
      // Offline, then online again: one call when it comes back, none while it stays offline or online.
      net.online = false;
      vi.advanceTimersByTime(4000);
      expect(fake.services.systemResumed).toHaveBeenCalledTimes(2);
      net.online = true;
      vi.advanceTimersByTime(2000);
      expect(fake.services.systemResumed).toHaveBeenCalledTimes(3);
      vi.advanceTimersByTime(10_000);
      expect(fake.services.systemResumed).toHaveBeenCalledTimes(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
