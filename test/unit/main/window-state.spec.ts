import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserWindow, resetElectronStub, screen } from '../../stubs/electron';
import { boot, type BootDeps } from '../../../electron/main/boot';
import { ShellStore, type WindowState } from '../../../electron/main/shell-store';
import { restoredBounds, trackWindowState } from '../../../electron/main/window-state';
import type { AppServices } from '../../../electron/services/app-services';
import type { Handlers } from '../../../electron/services/ipc/handlers';

const laptop = { x: 0, y: 0, width: 1920, height: 1040 };
const monitorRight = { x: 1920, y: 0, width: 2560, height: 1400 };
const saved = (over: Partial<WindowState> = {}): WindowState => ({ x: 2100, y: 100, width: 1400, height: 900, maximized: false, ...over });

describe('restoredBounds', () => {
  it('nothing saved: Electron centres the default size', () => {
    expect(restoredBounds(null, [laptop])).toEqual({ bounds: null, maximized: false });
  });

  it('restores the place on a display that is still there', () => {
    expect(restoredBounds(saved(), [laptop, monitorRight])).toEqual({ bounds: { x: 2100, y: 100, width: 1400, height: 900 }, maximized: false });
  });

  it('the monitor was unplugged: not restored off-screen (default place), maximized kept', () => {
    expect(restoredBounds(saved({ maximized: true }), [laptop])).toEqual({ bounds: null, maximized: true });
  });

  it('title bar above the top of every display: not restored', () => {
    expect(restoredBounds(saved({ x: 100, y: -500 }), [laptop])).toEqual({ bounds: null, maximized: false });
  });

  it('mostly off the right edge but the title bar still grabbable: restored', () => {
    expect(restoredBounds(saved({ x: 1700, y: 50 }), [laptop]).bounds).toMatchObject({ x: 1700, y: 50 });
  });

  it('bigger than the display it is on (resolution lowered): shrunk to its work area', () => {
    expect(restoredBounds(saved({ x: 0, y: 0, width: 3000, height: 2000 }), [laptop]).bounds).toEqual({ x: 0, y: 0, width: 1920, height: 1040 });
  });
});

describe('trackWindowState', () => {
  beforeEach(() => {
    resetElectronStub();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('saves once after a burst of moves has been quiet for the delay, and at once on close', () => {
    const window = new BrowserWindow();
    const saves: WindowState[] = [];
    trackWindowState(window as never, (s) => saves.push(s), 500);
    for (let x = 0; x < 30; x += 1) window.moveTo({ x, y: 10, width: 1000, height: 700 });
    vi.advanceTimersByTime(499);
    expect(saves).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(saves).toEqual([{ x: 29, y: 10, width: 1000, height: 700, maximized: false }]);
    window.moveTo({ x: 50, y: 60, width: 1000, height: 700 });
    window.close();
    expect(saves.at(-1)).toEqual({ x: 50, y: 60, width: 1000, height: 700, maximized: false });
    vi.advanceTimersByTime(1000);
    expect(saves).toHaveLength(2);
  });
});

describe('boot restores the window and remembers its moves (electron-store on disk)', () => {
  let dir: string;
  beforeEach(async () => {
    resetElectronStub();
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-window-'));
  });
  afterEach(async () => {
    vi.useRealTimers();
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

  it('a moved window opens in the same place at the next launch, maximized too', async () => {
    screen.displays.push({ id: 2, bounds: monitorRight, workArea: monitorRight });
    await boot(deps());
    vi.useFakeTimers();
    const first = BrowserWindow.instances[0]!;
    first.moveTo({ x: 2000, y: 120, width: 1300, height: 850 });
    first.maximize();
    vi.advanceTimersByTime(600);
    vi.useRealTimers();

    resetElectronStub();
    screen.displays.push({ id: 2, bounds: monitorRight, workArea: monitorRight });
    await boot(deps());
    const second = BrowserWindow.instances[0]!;
    expect(second.getNormalBounds()).toEqual({ x: 2000, y: 120, width: 1300, height: 850 });
    expect(second.isMaximized()).toBe(true);
  });
});
