import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserWindow, resetElectronStub } from '../../stubs/electron';
import { APP_INDEX_URL } from '../../../electron/main/app-protocol';
import { boot, type BootDeps } from '../../../electron/main/boot';
import { pageOfUrl, urlAtPage } from '../../../electron/main/last-page';
import { ShellStore } from '../../../electron/main/shell-store';
import type { AppServices } from '../../../electron/services/app-services';
import type { Handlers } from '../../../electron/services/ipc/handlers';

describe('pageOfUrl / urlAtPage', () => {
  it('reads the page param of the fragment, ignoring other params and malformed ids', () => {
    expect(pageOfUrl(`${APP_INDEX_URL}#page=jobs`)).toBe('jobs');
    expect(pageOfUrl(`${APP_INDEX_URL}#x=1&page=settings`)).toBe('settings');
    expect(pageOfUrl(APP_INDEX_URL)).toBeNull();
    expect(pageOfUrl(`${APP_INDEX_URL}#page=../../etc`)).toBeNull();
    expect(pageOfUrl('not a url')).toBeNull();
  });
  it('opens at the page, or at the plain URL when none is remembered', () => {
    expect(urlAtPage(APP_INDEX_URL, 'jobs')).toBe(`${APP_INDEX_URL}#page=jobs`);
    expect(urlAtPage(APP_INDEX_URL, null)).toBe(APP_INDEX_URL);
  });
});

describe('boot remembers the last page across launches', () => {
  let dir: string;
  beforeEach(async () => {
    resetElectronStub();
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-last-page-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function deps(): BootDeps {
    const logger = { warn: vi.fn(), info: vi.fn(), error: vi.fn() };
    const services = {
      handlers: {} as Handlers,
      settings: {} as AppServices['settings'],
      logger,
      start: async () => undefined,
      systemResumed: () => undefined,
      dispose: async () => undefined,
    } satisfies AppServices;
    return { createAppServices: () => services, mainDir: '/opt/app/out/main', env: {}, platform: 'linux', logger, openShellStore: () => ShellStore.open({ cwd: dir }) };
  }

  it('an in-page navigation to #page=jobs is saved; the next window loads at it; sub-frames are ignored', async () => {
    await boot(deps());
    const contents = BrowserWindow.instances[0]!.webContents;
    expect(BrowserWindow.instances[0]!.loaded?.target).toBe(APP_INDEX_URL);
    contents.emit('did-navigate-in-page', {}, `${APP_INDEX_URL}#page=settings`, false);
    contents.emit('did-navigate-in-page', {}, `${APP_INDEX_URL}#page=jobs`, true);

    resetElectronStub();
    await boot(deps());
    expect(BrowserWindow.instances[0]!.loaded?.target).toBe(`${APP_INDEX_URL}#page=jobs`);
  });
});
