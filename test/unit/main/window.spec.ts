import { beforeEach, describe, expect, it } from 'vitest';
import { BrowserWindow, resetElectronStub } from '../../stubs/electron';
import { buildWindowOptions, createMainWindow, resolveRendererTarget } from '../../../electron/main/window';

const mainDir = '/opt/agentswarm/resources/app.asar/out/main';

beforeEach(() => resetElectronStub());

describe('buildWindowOptions', () => {
  it('turns on every security flag and points at the bundled CommonJS preload', () => {
    const options = buildWindowOptions(mainDir);
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
    });
  });

  it('sets no option that would re-enable Node or blink features in the page', () => {
    const prefs = buildWindowOptions(mainDir).webPreferences ?? {};
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
    expect(prefs).not.toHaveProperty('additionalArguments');
    expect(prefs).not.toHaveProperty('enableRemoteModule');
  });
});

describe('resolveRendererTarget', () => {
  it('loads the built index.html by default', () => {
    expect(resolveRendererTarget({ mainDir, isPackaged: false, env: {} })).toEqual({
      kind: 'file',
      file: '/opt/agentswarm/resources/app.asar/out/renderer/index.html',
    });
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
    expect(resolveRendererTarget({ mainDir, isPackaged: true, env }).kind).toBe('file');
  });

  it.each(['https://evil.example', 'http://10.0.0.5:5173', 'file:///tmp/x.html', 'not a url'])(
    'refuses a non-loopback or non-http dev URL: %s',
    (url) => {
      const target = resolveRendererTarget({ mainDir, isPackaged: false, env: { ELECTRON_RENDERER_URL: url } });
      expect(target.kind).toBe('file');
    },
  );
});

describe('createMainWindow', () => {
  it('creates one hidden window, loads the file, and shows it when ready', () => {
    const file = '/opt/app/out/renderer/index.html';
    const window = createMainWindow({ mainDir, target: { kind: 'file', file } }) as unknown as BrowserWindow;
    expect(BrowserWindow.instances).toHaveLength(1);
    // The real constructor gets exactly what the pure builder describes.
    expect(window.options).toEqual(buildWindowOptions(mainDir));
    expect(window.loaded).toEqual({ kind: 'file', target: file });
    expect(window.shown).toBe(false);
    window.emit('ready-to-show');
    expect(window.shown).toBe(true);
  });

  it('loads the dev server URL in dev', () => {
    const window = createMainWindow({
      mainDir,
      target: { kind: 'dev', url: 'http://localhost:5173/' },
    }) as unknown as BrowserWindow;
    expect(window.loaded).toEqual({ kind: 'url', target: 'http://localhost:5173/' });
  });
});
