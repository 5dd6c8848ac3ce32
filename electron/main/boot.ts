import { join } from 'node:path';
import { app, screen, type BrowserWindow } from 'electron';
import type { AppServices, AppServicesOptions } from '../services/app-services';
import type { Logger } from '../services/util/logger';
import { EventQueue, listenForRendererReady, registerIpc, trustedSender } from './ipc';
import { installAppProtocol, registerAppScheme } from './app-protocol';
import { electronNotifier } from './notifier';
import { openPathInDesktop } from './open-path';
import { installSecurity, rendererCsp } from './security';
import { watchSystemResume } from './system-resume';
import { applyPasswordStoreSwitch, createKeychain } from './keychain';
import { rememberLastPage } from './last-page';
import { SHELL_STORE_NAME, ShellStore } from './shell-store';
import { createMainWindow, resolveRendererTarget } from './window';
import { restoredBounds, trackWindowState } from './window-state';
import { electronUpdates, loadElectronAutoUpdater, type AutoUpdaterLike } from './updater';

export interface BootDeps {
  /** Injected so the boot wiring can be tested with fake services (and no Docker). */
  createAppServices: (options: AppServicesOptions) => AppServices;
  /** Opens the app log in the system's viewer (default: `shell.openPath`, see open-path.ts). */
  openPath?: (path: string) => Promise<void>;
  /** Folder of the main bundle (`out/main`); the preload and renderer are found relative to it. */
  mainDir: string;
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  /** Also gets every log entry, besides the app log file (default: the console). */
  logger?: Logger;
  /** Longest we wait for services to shut down before quitting anyway (default 5 s). */
  disposeTimeoutMs?: number;
  /** The shell's own store (default: `<userData>/shell-state.json`, opened before `ready`). */
  openShellStore?: () => ShellStore;
  /** electron-updater's `autoUpdater` (default: loaded on first use; tests pass one of their own). */
  loadAutoUpdater?: () => AutoUpdaterLike;
}

export interface BootedApp {
  services: AppServices;
  shell: ShellStore;
  events: EventQueue;
  window(): BrowserWindow | null;
}

const consoleLogger: Logger = {
  warn: (message, meta) => console.warn(`[main] ${message}`, meta ?? ''),
};

/**
 * Boots the desktop app: single-instance lock, security policy, services, IPC, window. Returns
 * null when another instance already runs (that one gets focused instead and this one quits).
 * Kept free of business logic: everything the UI can do lives in the services.
 */
export async function boot(deps: BootDeps): Promise<BootedApp | null> {
  const platform = deps.platform ?? process.platform;

  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  // Every renderer sandboxed, whatever options some code path might pass to a BrowserWindow.
  app.enableSandbox();
  // Custom schemes get their privileges only if registered before 'ready'.
  registerAppScheme();
  // Read synchronously before 'ready': Chromium picks the Linux secret store from this switch once.
  const shell = openShellStore(deps);
  const passwordStore = applyPasswordStoreSwitch(shell.get(), app.commandLine);

  let window: BrowserWindow | null = null;
  const focusWindow = (): void => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  };
  app.on('second-instance', focusWindow);

  await app.whenReady();

  const target = resolveRendererTarget({
    mainDir: deps.mainDir,
    isPackaged: app.isPackaged,
    env: deps.env ?? process.env,
  });
  installSecurity(target);
  if (target.kind === 'bundle') installAppProtocol(target.dir, rendererCsp(target));

  // After 'ready': before it, safeStorage reports no backend and no encryption on Linux.
  const keychain = createKeychain({ shell, passwordStore, platform, env: deps.env ?? process.env });

  // The queue exists before the services (they emit into it); it logs through them once built.
  let logger: Logger = deps.logger ?? consoleLogger;
  const events = new EventQueue(undefined, { warn: (message, meta) => logger.warn(message, meta) });
  const services = deps.createAppServices({
    dataDir: app.getPath('userData'),
    host: 'electron',
    version: app.getVersion(),
    events,
    logger: deps.logger ?? consoleLogger,
    openPath: deps.openPath ?? openPathInDesktop,
    // Clicking a notification brings the window forward, like a second launch does.
    notifier: electronNotifier({ onClick: () => focusWindow(), logger: deps.logger ?? consoleLogger }),
    keychain,
    shellStoreStatus: () => shell.status(),
    // electron-builder's extraResources copy resources/templates and resources/python next to app.asar;
    // unpackaged, the services find the repository's resources/ themselves.
    ...(app.isPackaged ? { resourcesDir: process.resourcesPath } : {}),
    // Packaged AppImage, dmg and nsis update themselves; a .deb, an unpackaged run say why not.
    updates: electronUpdates({
      isPackaged: app.isPackaged,
      platform,
      env: deps.env ?? process.env,
      loadAutoUpdater: deps.loadAutoUpdater ?? loadElectronAutoUpdater,
      // Forwarded: the services' logger (the app log) replaces the console one just below.
      logger: { warn: (message, meta) => logger.warn(message, meta), info: (message, meta) => logger.info?.(message, meta) },
    }),
  });
  // The app log file (teed with the console): INTERNAL errors land there with their stack.
  logger = services.logger;
  const shellStatus = shell.status();
  if (shellStatus.problem) logger.warn(`shell state: ${shellStatus.problem}`, { ...shellStatus });
  const isTrustedSender = trustedSender(target);
  registerIpc(services.handlers, { isTrustedSender, logger });
  listenForRendererReady(events, isTrustedSender);

  const openWindow = (): void => {
    const created = createMainWindow({ mainDir: deps.mainDir, isPackaged: app.isPackaged, target, page: shell.get().lastPage });
    window = created;
    restoreWindow(created, shell);
    rememberLastPage(created.webContents, shell);
    events.attach(created.webContents);
    created.on('closed', () => {
      if (window === created) window = null;
    });
  };
  openWindow();

  // macOS keeps the app (and its services) alive without windows; the dock icon reopens one.
  app.on('activate', () => {
    if (!window) openWindow();
  });
  app.on('window-all-closed', () => {
    if (platform !== 'darwin') app.quit();
  });
  installDisposeOnQuit(services, logger, deps.disposeTimeoutMs ?? 5000);
  // Sleep/wake and network changes: SSH servers re-check their links at once.
  watchSystemResume(() => services.systemResumed());

  try {
    // Never stops on a settings problem (defaults in memory, `settings:status` tells the UI) and
    // still resumes watching swarm servers; this catch is the last line of defence only.
    await services.start();
  } catch (error) {
    // The window is up: the UI reports engine and settings problems itself, so keep running.
    logger.warn('services failed to start', { message: error instanceof Error ? error.message : String(error) });
  }

  return { services, shell, events, window: () => window };
}

/** Never stops the launch: a store that cannot be opened at all leaves defaults in memory (and says so). */
function openShellStore(deps: BootDeps): ShellStore {
  try {
    return deps.openShellStore ? deps.openShellStore() : ShellStore.open({ cwd: app.getPath('userData') });
  } catch (error) {
    const file = join(app.getPath('userData'), `${SHELL_STORE_NAME}.json`);
    return ShellStore.inMemory(file, error instanceof Error ? error.message : String(error));
  }
}

/** Puts the window where the user left it (if that place is still on a display) and remembers moves. */
function restoreWindow(window: BrowserWindow, shell: ShellStore): void {
  const { bounds, maximized } = restoredBounds(
    shell.get().window,
    screen.getAllDisplays().map((d) => d.workArea),
  );
  if (bounds) window.setBounds(bounds);
  if (maximized) window.maximize();
  trackWindowState(window, (state) => {
    try {
      shell.set('window', state);
    } catch {
      // A window position is not worth an error dialog; the next move tries again.
    }
  });
}

/**
 * Electron does not wait for async work in 'before-quit', so the first quit is held back until
 * the services have stopped (containers keep running; only watchers and connections close), then
 * quit is requested again. A hung dispose cannot block quitting for longer than `timeoutMs`.
 */
function installDisposeOnQuit(services: AppServices, logger: Logger, timeoutMs: number): void {
  let state: 'running' | 'disposing' | 'disposed' = 'running';
  app.on('before-quit', (event) => {
    if (state === 'disposed') return;
    event.preventDefault();
    if (state === 'disposing') return;
    state = 'disposing';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        logger.warn('services did not stop in time; quitting anyway', { timeoutMs });
        resolve();
      }, timeoutMs);
    });
    const disposing = services.dispose().catch((error: unknown) => {
      logger.warn('services failed to stop cleanly', { name: error instanceof Error ? error.name : typeof error });
    });
    void Promise.race([disposing, timeout]).then(() => {
      clearTimeout(timer);
      state = 'disposed';
      app.quit();
    });
  });
}
