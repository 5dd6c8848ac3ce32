import { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { UpdateCheckResult } from 'electron-updater';
import { app, resetElectronStub } from '../../stubs/electron';
import { boot, type BootDeps } from '../../../electron/main/boot';
import { adaptAutoUpdater, electronUpdates, type AutoUpdaterLike } from '../../../electron/main/updater';
import { tempShellStore } from './temp-shell-store';
import type { AppServices, AppServicesOptions } from '../../../electron/services/app-services';
import type { Handlers } from '../../../electron/services/ipc/handlers';

/**
 * TEST DOUBLE: an `autoUpdater` that records calls and emits progress like electron-updater's
 * does. The real electron-updater (AppImageUpdater against a local feed) is driven in
 * test/unit/services/updates/local-feed.spec.ts.
 */
class RecordingAutoUpdater extends EventEmitter {
  autoDownload = true;
  autoInstallOnAppQuit = false;
  logger: AutoUpdaterLike['logger'] = null;
  checkResult: Partial<UpdateCheckResult> | null = null;
  quitAndInstallCalls: unknown[][] = [];
  checkForUpdates = vi.fn(async () => this.checkResult as UpdateCheckResult | null);
  downloadUpdate = vi.fn(async () => {
    this.emit('download-progress', { percent: 40, transferred: 4, total: 10, bytesPerSecond: 1, delta: 4 });
    this.emit('download-progress', { percent: 100, transferred: 10, total: 10, bytesPerSecond: 1, delta: 6 });
    return ['/cache/update.AppImage'];
  });
  quitAndInstall(...args: unknown[]): void {
    this.quitAndInstallCalls.push(args);
  }
}

const asLike = (u: RecordingAutoUpdater): AutoUpdaterLike => u as unknown as AutoUpdaterLike;

beforeEach(() => resetElectronStub());

describe('adaptAutoUpdater (electron-updater → UpdaterPort)', () => {
  it('reports a newer version with its notes, and null when the feed has none newer', async () => {
    const updater = new RecordingAutoUpdater();
    const port = adaptAutoUpdater(asLike(updater));
    updater.checkResult = { isUpdateAvailable: true, updateInfo: { version: '0.2.0', releaseNotes: 'Faster', releaseDate: '2026-12-01', files: [], path: '', sha512: '' } };
    expect(await port.check()).toEqual({ version: '0.2.0', notes: 'Faster', releaseDate: '2026-12-01' });
    updater.checkResult = { isUpdateAvailable: false, updateInfo: { version: '0.1.0', files: [], path: '', sha512: '', releaseDate: '' } };
    expect(await port.check()).toBeNull();
    updater.checkResult = null; // electron-updater answers null when it is inactive
    expect(await port.check()).toBeNull();
  });

  it('joins per-version notes (a GitHub feed with fullChangelog)', async () => {
    const updater = new RecordingAutoUpdater();
    updater.checkResult = {
      isUpdateAvailable: true,
      updateInfo: { version: '0.3.0', releaseNotes: [{ version: '0.3.0', note: 'B' }, { version: '0.2.0', note: 'A' }], releaseDate: '', files: [], path: '', sha512: '' },
    };
    expect(await adaptAutoUpdater(asLike(updater)).check()).toEqual({ version: '0.3.0', notes: '0.3.0\nB\n\n0.2.0\nA', releaseDate: null });
  });

  it('forwards download progress while downloading and stops listening afterwards', async () => {
    const updater = new RecordingAutoUpdater();
    const seen: number[] = [];
    await adaptAutoUpdater(asLike(updater)).download((p) => seen.push(p.percent));
    expect(seen).toEqual([40, 100]);
    expect(updater.listenerCount('download-progress')).toBe(0);
  });

  it('installs with quitAndInstall(not silent, run the app afterwards)', () => {
    const updater = new RecordingAutoUpdater();
    adaptAutoUpdater(asLike(updater)).install();
    expect(updater.quitAndInstallCalls).toEqual([[false, true]]);
  });
});

describe('electronUpdates (which copies update themselves)', () => {
  const logger = { warn: vi.fn(), info: vi.fn() };
  it('is off in an unpackaged app and never loads electron-updater there', () => {
    const load = vi.fn();
    expect(electronUpdates({ isPackaged: false, platform: 'linux', env: {}, loadAutoUpdater: load, logger })).toEqual({ updater: null, unsupportedReason: 'not-packaged' });
    expect(load).not.toHaveBeenCalled();
  });

  it('sends a .deb install (Linux without APPIMAGE) to the package manager', () => {
    const load = vi.fn();
    expect(electronUpdates({ isPackaged: true, platform: 'linux', env: {}, loadAutoUpdater: load, logger })).toEqual({ updater: null, unsupportedReason: 'deb' });
    expect(load).not.toHaveBeenCalled();
  });

  it.each([
    ['linux', { APPIMAGE: '/home/u/AgentSwarm.AppImage' }],
    ['darwin', {}],
    ['win32', {}],
  ] as const)('updates a packaged %s app, downloading only when asked', (platform, env) => {
    const updater = new RecordingAutoUpdater();
    const host = electronUpdates({ isPackaged: true, platform, env, loadAutoUpdater: () => asLike(updater), logger });
    expect(host.updater).not.toBeNull();
    expect(updater.autoDownload).toBe(false);
    expect(updater.autoInstallOnAppQuit).toBe(true);
    updater.logger?.info('checking');
    expect(logger.info).toHaveBeenCalledWith('updater: checking');
  });
});

describe('boot gives the services their updater (against the electron stand-in)', () => {
  function bootWith(created: AppServicesOptions[], extra: Partial<BootDeps>): Promise<unknown> {
    const services = {
      handlers: {} as Handlers,
      settings: {} as AppServices['settings'],
      logger: { warn: vi.fn(), info: vi.fn(), error: vi.fn() },
      start: vi.fn(async () => undefined),
      systemResumed: vi.fn(),
      dispose: vi.fn(async () => undefined),
    } satisfies AppServices;
    return boot({
      createAppServices: (options) => {
        created.push(options);
        return services;
      },
      mainDir: '/opt/app/out/main',
      openShellStore: tempShellStore(),
      logger: services.logger,
      ...extra,
    });
  }

  it('unpackaged (npm start): updates are off, electron-updater is not loaded', async () => {
    const created: AppServicesOptions[] = [];
    const load = vi.fn();
    await bootWith(created, { env: {}, platform: 'linux', loadAutoUpdater: load });
    expect(created[0]!.updates).toEqual({ updater: null, unsupportedReason: 'not-packaged' });
    expect(load).not.toHaveBeenCalled();
  });

  it('packaged on Windows: the services get an updater that drives electron-updater', async () => {
    app.isPackaged = true;
    const created: AppServicesOptions[] = [];
    const updater = new RecordingAutoUpdater();
    await bootWith(created, { env: {}, platform: 'win32', loadAutoUpdater: () => asLike(updater) });
    const port = created[0]!.updates!.updater!;
    updater.checkResult = { isUpdateAvailable: true, updateInfo: { version: '9.9.9', files: [], path: '', sha512: '', releaseDate: '' } };
    expect(await port.check()).toMatchObject({ version: '9.9.9' });
    expect(updater.checkForUpdates).toHaveBeenCalledTimes(1);
  });
});
