/**
 * What the update service needs from an updater. Electron's glue (electron/main/updater.ts) adapts
 * electron-updater's `autoUpdater` to it; tests pass an updater of their own or one built on
 * electron-updater's pieces without Electron (test/unit/services/updates/local-feed.spec.ts).
 */
export interface FoundUpdate {
  version: string;
  /** Release notes as the feed has them (HTML or text), or null. */
  notes: string | null;
  releaseDate: string | null;
}

export interface DownloadProgress {
  percent: number;
  transferred: number;
  total: number;
}

export interface UpdaterPort {
  /** Asks the feed. Resolves with the newer version, or null when this one is the latest. Rejects on failure. */
  check(): Promise<FoundUpdate | null>;
  /** Downloads the version the last check found (and verifies it as electron-updater does); rejects on failure. */
  download(onProgress: (progress: DownloadProgress) => void): Promise<void>;
  /** Quits the app and runs the installer of the downloaded version (electron-updater's quitAndInstall). */
  install(): void;
}

/** An error as electron-updater and Node raise it: a message, often a `code`, sometimes an HTTP status. */
export interface UpdaterErrorLike {
  message?: unknown;
  code?: unknown;
  statusCode?: unknown;
}
