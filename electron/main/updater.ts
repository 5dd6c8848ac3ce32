import { createRequire } from 'node:module';
import type { AppUpdater, ProgressInfo, UpdateInfo } from 'electron-updater';
import type { UpdatesHostOptions } from '../services/updates/register';
import type { DownloadProgress, FoundUpdate, UpdaterPort } from '../services/updates/updater-port';
import type { Logger } from '../services/util/logger';

/** The part of electron-updater's `AppUpdater` the adapter uses (so tests can hand in one built without Electron). */
export type AutoUpdaterLike = Pick<AppUpdater, 'checkForUpdates' | 'downloadUpdate' | 'quitAndInstall' | 'on' | 'off'> & {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  logger: AppUpdater['logger'];
};

/**
 * electron-updater's `autoUpdater` as the services' `UpdaterPort`. No decisions here: the state
 * machine (services/updates) decides when to check, download and install. electron-updater does
 * the feed (latest*.yml), the SHA-512 check of the download and, on Windows, the publisher check
 * of the installer's signature; on macOS Squirrel.Mac checks the code signature.
 */
export function adaptAutoUpdater(updater: AutoUpdaterLike): UpdaterPort {
  return {
    async check(): Promise<FoundUpdate | null> {
      const result = await updater.checkForUpdates();
      if (!result || !result.isUpdateAvailable) return null;
      return foundUpdate(result.updateInfo);
    },
    async download(onProgress: (progress: DownloadProgress) => void): Promise<void> {
      const listener = (info: ProgressInfo): void => onProgress({ percent: info.percent, transferred: info.transferred, total: info.total });
      updater.on('download-progress', listener);
      try {
        await updater.downloadUpdate();
      } finally {
        updater.off('download-progress', listener);
      }
    },
    install(): void {
      // Not silent (the NSIS installer shows its pages, as the config asks), and the app starts again afterwards.
      updater.quitAndInstall(false, true);
    },
  };
}

function foundUpdate(info: UpdateInfo): FoundUpdate {
  const notes = info.releaseNotes;
  // A GitHub feed may give notes per version (fullChangelog); they are joined newest first.
  const text = typeof notes === 'string' ? notes : Array.isArray(notes) ? notes.map((n) => `${n.version}\n${n.note ?? ''}`).join('\n\n') : null;
  return { version: info.version, notes: text, releaseDate: releaseDateText(info.releaseDate as unknown) };
}

/**
 * electron-builder quotes `releaseDate` in latest*.yml, but electron-updater parses the file with
 * js-yaml, which turns an unquoted timestamp (a hand-edited feed) into a Date: both become ISO text.
 */
function releaseDateText(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return typeof value === 'string' && value !== '' ? value : null;
}

export interface ElectronUpdatesDeps {
  isPackaged: boolean;
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** Loads `autoUpdater` from electron-updater; only called when this copy can update itself (it needs the real Electron). */
  loadAutoUpdater: () => AutoUpdaterLike;
  logger: Logger;
}

/**
 * Whether this copy can update itself, and the updater when it can: only a packaged app; on Linux
 * only the AppImage (its runtime sets APPIMAGE) — a .deb install belongs to the package manager.
 * macOS (dmg + zip) and Windows (nsis) update through electron-updater's own updaters.
 */
export function electronUpdates(deps: ElectronUpdatesDeps): UpdatesHostOptions {
  if (!deps.isPackaged) return { updater: null, unsupportedReason: 'not-packaged' };
  if (deps.platform === 'linux' && !deps.env['APPIMAGE']) return { updater: null, unsupportedReason: 'deb' };
  const updater = deps.loadAutoUpdater();
  // The user decides when to download (Settings → Updates); a downloaded update also installs when the app quits.
  updater.autoDownload = false;
  updater.autoInstallOnAppQuit = true;
  updater.logger = {
    info: (message?: unknown) => deps.logger.info?.(`updater: ${String(message)}`),
    warn: (message?: unknown) => deps.logger.warn(`updater: ${String(message)}`),
    error: (message?: unknown) => deps.logger.warn(`updater: ${String(message)}`),
  };
  return { updater: adaptAutoUpdater(updater) };
}

/**
 * electron-updater's `autoUpdater`, read only when called: its getter builds the platform's updater,
 * which needs the real Electron (it is never called under the test stand-in, nor in an unpackaged app).
 */
export function loadElectronAutoUpdater(): AutoUpdaterLike {
  const load = createRequire(import.meta.url);
  return (load('electron-updater') as { autoUpdater: AutoUpdaterLike }).autoUpdater;
}
