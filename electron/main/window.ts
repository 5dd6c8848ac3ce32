import { join } from 'node:path';
import { BrowserWindow as ElectronBrowserWindow, type BrowserWindow, type BrowserWindowConstructorOptions } from 'electron';
import { isLoopbackAddress } from '../services/util/loopback';
import { APP_INDEX_URL } from './app-protocol';
import { urlAtPage } from './last-page';
import type { RendererTarget } from './security';

/**
 * Paths of the built app, relative to the folder of the main bundle (`out/main`). In a packaged
 * app that folder is inside app.asar, and the same relative layout holds.
 */
export function preloadPath(mainDir: string): string {
  return join(mainDir, '../preload/index.cjs');
}

export function rendererDir(mainDir: string): string {
  return join(mainDir, '../renderer');
}

/**
 * Where to load the UI from. `ELECTRON_RENDERER_URL` (set by `electron-vite dev`) is honoured only
 * in an unpackaged app and only for a loopback http URL: otherwise anyone who can set the
 * environment of a shipped app could point it, with our preload API attached, at a remote page.
 */
export function resolveRendererTarget(options: {
  mainDir: string;
  isPackaged: boolean;
  env: Record<string, string | undefined>;
}): RendererTarget {
  const devUrl = options.env['ELECTRON_RENDERER_URL'];
  if (!options.isPackaged && devUrl) {
    try {
      const url = new URL(devUrl);
      if (url.protocol === 'http:' && isLoopbackAddress(url.hostname)) return { kind: 'dev', url: url.href };
    } catch {
      // Not a URL: fall through to the built files.
    }
  }
  return { kind: 'bundle', dir: rendererDir(options.mainDir) };
}

type WindowConstructor<W> = new (options: BrowserWindowConstructorOptions) => W;

/**
 * The one place the window's options are written. The constructor is a parameter (named
 * `BrowserWindow` on purpose) so that (a) `buildWindowOptions` can read the options without
 * Electron, for unit tests, and (b) the options stay an object literal at a `new BrowserWindow(...)`
 * site, which is where Electronegativity looks for them; behind a helper call it cannot see them
 * and reports contextIsolation/sandbox as missing.
 *
 * Every security-relevant webPreference is spelled out even where it equals Electron's default,
 * so a default changing upstream cannot silently weaken the app.
 */
function constructWindow<W>(BrowserWindow: WindowConstructor<W>, mainDir: string, allowDevTools: boolean): W {
  return new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 800,
    minHeight: 560,
    title: 'AgentSwarm Desktop',
    backgroundColor: '#111318',
    // Shown on 'ready-to-show' so the user never sees a blank white frame.
    show: false,
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath(mainDir),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: false,
      navigateOnDragDrop: false,
      // Middle-click would try to open links in new windows; the open handler denies them anyway.
      disableBlinkFeatures: 'Auxclick',
      // DevTools give whoever sits at the window a console with our preload API: development only.
      devTools: allowDevTools,
    },
  });
}

/** Whether this build may open DevTools: never in a packaged app. */
export interface WindowBuild {
  mainDir: string;
  isPackaged: boolean;
}

/** The BrowserWindow options, as a pure function (no Electron needed). */
export function buildWindowOptions({ mainDir, isPackaged }: WindowBuild): BrowserWindowConstructorOptions {
  let captured: BrowserWindowConstructorOptions | undefined;
  constructWindow(
    class {
      constructor(options: BrowserWindowConstructorOptions) {
        captured = options;
      }
    },
    mainDir,
    !isPackaged,
  );
  if (!captured) throw new Error('unreachable: the window options were not built');
  return captured;
}

/** Creates the one app window and starts loading the UI into it. */
export function createMainWindow(options: WindowBuild & { target: RendererTarget; page?: string | null }): BrowserWindow {
  const window = constructWindow(ElectronBrowserWindow, options.mainDir, !options.isPackaged);
  window.once('ready-to-show', () => window.show());
  // The bundle is served by the app:// protocol handler (app-protocol.ts), never from file://.
  // The last page goes in the fragment (last-page.ts), which the renderer reads at load.
  const loading = window.loadURL(urlAtPage(options.target.kind === 'dev' ? options.target.url : APP_INDEX_URL, options.page ?? null));
  loading.catch((error: unknown) => {
    // A failed load leaves an empty window; say why in the log instead of an unhandled rejection.
    console.error('[main] could not load the UI:', error instanceof Error ? error.message : String(error));
  });
  return window;
}
