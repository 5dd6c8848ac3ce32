import { beforeEach, describe, expect, it } from 'vitest';
import { BrowserWindow, resetElectronStub } from '../../stubs/electron';
import { buildWindowOptions, createMainWindow, resolveRendererTarget } from '../../../electron/main/window';

const mainDir = '/opt/agentswarm/resources/app.asar/out/main';

beforeEach(() => resetElectronStub());

describe('buildWindowOptions', () => {
  it('turns on every security flag and points at the bundled CommonJS preload', () => {
    const options = buildWindowOptions({ mainDir, isPackaged: false });
    expect(options.show).toBe(false);
    expect(options.webPreferences).toMatchObject({
      preload: '/opt/agentswarm/resources/app.asar/out/preload/index.cjs',
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
      disableBlinkFeatures: 'Auxclick',
      devTools: true,
    });
  });

  it('turns DevTools off in a packaged app', () => {
    expect(buildWindowOptions({ mainDir, isPackaged: true }).webPreferences?.devTools).toBe(false);
  });

  it('sets no option that would re-enable Node or blink features in the page', () => {
    const prefs = buildWindowOptions({ mainDir, isPackaged: false }).webPreferences ?? {};
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
    expect(prefs).not.toHaveProperty('additionalArguments');
    expect(prefs).not.toHaveProperty('enableRemoteModule');
  });
});

describe('resolveRendererTarget', () => {
  it('serves the built renderer folder by default', () => {
    expect(resolveRendererTarget({ mainDir, isPackaged: false, env: {} })).toEqual({
      kind: 'bundle',
      dir: '/opt/agentswarm/resources/app.asar/out/renderer',
    });
  });

  it.each(['http://127.0.0.1:5173', 'http://[::1]:5173', 'http://localhost:5173'])('accepts the loopback dev URL %s', (url) => {
    expect(resolveRendererTarget({ mainDir, isPackaged: false, env: { ELECTRON_RENDERER_URL: url } }).kind).toBe('dev');
  });

  it('uses the electron-vite dev server URL in an unpackaged app', () => {
    const env = { ELECTRON_RENDERER_URL: 'http://localhost:5173' };
    expect(resolveRendererTarget({ mainDir, isPackaged: false, env })).toEqual({
      kind: 'dev',
      url: 'http://localhost:5173/',
    });
  });

  it('ignores ELECTRON_RENDERER_URL in a packaged app', () => {
    const env = { ELECTRON_RENDERER_URL: 'http://localhost:5173' };
    expect(resolveRendererTarget({ mainDir, isPackaged: true, env }).kind).toBe('bundle');
  });

  it.each(['https://evil.example', 'http://10.0.0.5:5173', 'file:///tmp/x.html', 'not a url'])(
    'refuses a non-loopback or non-http dev URL: %s',
    (url) => {
      const target = resolveRendererTarget({ mainDir, isPackaged: false, env: { ELECTRON_RENDERER_URL: url } });
      expect(target.kind).toBe('bundle');
    },
  );
});

describe('createMainWindow', () => {
  it('creates one hidden window, loads the app:// index (never file://), and shows it when ready', () => {
    const window = createMainWindow({
      mainDir,
      isPackaged: true,
      target: { kind: 'bundle', dir: '/opt/app/out/renderer' },
    }) as unknown as BrowserWindow;
    expect(BrowserWindow.instances).toHaveLength(1);
    // The real constructor gets exactly what the pure builder describes.
    expect(window.options).toEqual(buildWindowOptions({ mainDir, isPackaged: true }));
    expect(window.loaded).toEqual({ kind: 'url', target: 'agentswarm://app/index.html' });
    expect(window.shown).toBe(false);
    window.emit('ready-to-show');
    expect(window.shown).toBe(true);
  });

  it('loads the dev server URL in dev', () => {
    const window = createMainWindow({
      mainDir,
      isPackaged: false,
      target: { kind: 'dev', url: 'http://localhost:5173/' },
    }) as unknown as BrowserWindow;
    expect(window.loaded).toEqual({ kind: 'url', target: 'http://localhost:5173/' });
  });
});
