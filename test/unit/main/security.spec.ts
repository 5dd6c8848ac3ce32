import { beforeEach, describe, expect, it } from 'vitest';
import { BrowserWindow, app, resetElectronStub, session, shell } from '../../stubs/electron';
import {
  externalUrlToOpen,
  installSecurity,
  isAppUrl,
  rendererCsp,
  type RendererTarget,
} from '../../../electron/main/security';

const fileTarget: RendererTarget = { kind: 'bundle', dir: '/opt/app/out/renderer' };
const devTarget: RendererTarget = { kind: 'dev', url: 'http://localhost:5173/' };
const APP_URL = 'agentswarm://app/index.html';

beforeEach(() => resetElectronStub());

describe('rendererCsp', () => {
  it('is the strict production policy for the built files', () => {
    expect(rendererCsp(fileTarget)).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(rendererCsp(fileTarget)).not.toContain('unsafe');
  });

  it('in dev allows only the dev server, its HMR socket and inline styles', () => {
    const csp = rendererCsp(devTarget);
    const directives = Object.fromEntries(
      csp.split('; ').map((d: string) => {
        const [name, ...sources] = d.split(' ');
        return [name, sources];
      }),
    );
    expect(directives['script-src']).toEqual(["'self'", 'http://localhost:5173']);
    expect(directives['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
    expect(directives['connect-src']).toEqual(["'self'", 'http://localhost:5173', 'ws://localhost:5173']);
    expect(directives['object-src']).toEqual(["'none'"]);
    // 'unsafe-inline' for styles is the only widening; scripts never get unsafe-*.
    expect(csp.match(/unsafe/g)).toHaveLength(1);
  });
});

describe('URL checks', () => {
  it('accepts pages of the app:// origin, with any hash or query', () => {
    expect(isAppUrl(APP_URL, fileTarget)).toBe(true);
    expect(isAppUrl(`${APP_URL}#/settings`, fileTarget)).toBe(true);
    expect(isAppUrl(`${APP_URL}?x=1`, fileTarget)).toBe(true);
    expect(isAppUrl('agentswarm://APP/index.html', fileTarget)).toBe(true);
  });

  it.each([
    'file:///opt/app/out/renderer/index.html',
    'file:///etc/passwd',
    'agentswarm://evil/index.html',
    'agentswarm://user:pw@app/index.html',
    'app://app/index.html',
    'https://app/index.html',
    '',
    'garbage',
  ])('refuses %s for the bundle target (file:// included: the UI never runs from it)', (url) => {
    expect(isAppUrl(url, fileTarget)).toBe(false);
  });

  it('matches the dev server by origin only', () => {
    expect(isAppUrl('http://localhost:5173/src/App.svelte', devTarget)).toBe(true);
    expect(isAppUrl('http://localhost:5174/', devTarget)).toBe(false);
    expect(isAppUrl('http://127.0.0.1:5173/', devTarget)).toBe(false);
    expect(isAppUrl(APP_URL, devTarget)).toBe(false);
  });

  it('opens only https links externally, never with credentials', () => {
    expect(externalUrlToOpen('https://github.com/modelscope/AgentJet')).toBe('https://github.com/modelscope/AgentJet');
    expect(externalUrlToOpen('http://example.com')).toBeNull();
    expect(externalUrlToOpen('file:///etc/passwd')).toBeNull();
    expect(externalUrlToOpen('javascript:alert(1)')).toBeNull();
    expect(externalUrlToOpen('smb://host/share')).toBeNull();
    expect(externalUrlToOpen('https://user:pw@example.com')).toBeNull();
    expect(externalUrlToOpen(undefined)).toBeNull();
  });
});

describe('installSecurity', () => {
  function windowContents() {
    installSecurity(fileTarget);
    return new BrowserWindow({}).webContents;
  }

  it('adds the CSP header to every response and keeps the other headers', () => {
    installSecurity(fileTarget);
    const listener = session.defaultSession.headersListener;
    expect(listener).not.toBeNull();
    let response: { responseHeaders?: Record<string, string[]> } | undefined;
    listener?.({ url: APP_URL, responseHeaders: { 'X-Other': ['1'] } }, (r) => (response = r));
    expect(response?.responseHeaders).toEqual({
      'X-Other': ['1'],
      'Content-Security-Policy': [rendererCsp(fileTarget)],
    });
  });

  it('installs the dev policy when loading from the dev server', () => {
    installSecurity(devTarget);
    let header: string[] | undefined;
    session.defaultSession.headersListener?.({ url: 'http://localhost:5173/' }, (r) => {
      header = r.responseHeaders?.['Content-Security-Policy'];
    });
    expect(header).toEqual([rendererCsp(devTarget)]);
  });

  it('denies every permission request and check', () => {
    installSecurity(fileTarget);
    const decisions: boolean[] = [];
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal']) {
      session.defaultSession.permissionRequestHandler?.({}, permission, (granted: boolean) => decisions.push(granted));
      expect(session.defaultSession.permissionCheckHandler?.({}, permission, APP_URL)).toBe(false);
    }
    expect(decisions).toEqual([false, false, false, false, false]);
  });

  it('guards web contents created after installation', () => {
    installSecurity(fileTarget);
    expect(app.listenerCount('web-contents-created')).toBe(1);
  });

  it('blocks navigation, redirects and frame navigation away from the app, allows the app URL', () => {
    const contents = windowContents();
    for (const event of ['will-navigate', 'will-redirect', 'will-frame-navigate']) {
      expect(contents.emitPreventable(event, { url: 'https://evil.example/' })).toBe(true);
      expect(contents.emitPreventable(event, { url: 'file:///etc/passwd' })).toBe(true);
      expect(contents.emitPreventable(event, { url: `${APP_URL}#/swarm` })).toBe(false);
    }
  });

  it('denies window.open; https links go to the OS browser, nothing else does', () => {
    const contents = windowContents();
    const open = (url: string): unknown => contents.windowOpenHandler?.({ url });
    expect(open('https://github.com/modelscope/AgentJet')).toEqual({ action: 'deny' });
    expect(open('http://example.com/')).toEqual({ action: 'deny' });
    expect(open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(open(APP_URL)).toEqual({ action: 'deny' });
    expect(shell.opened).toEqual(['https://github.com/modelscope/AgentJet']);
  });

  it('blocks a sub-frame navigating to a foreign page (will-frame-navigate)', () => {
    const contents = windowContents();
    const frame = { isMainFrame: false, url: 'https://evil.example/phish' };
    expect(contents.emitPreventable('will-frame-navigate', { url: frame.url, isMainFrame: false, frame })).toBe(true);
    expect(contents.emitPreventable('will-frame-navigate', { url: 'http://127.0.0.1:10086/', isMainFrame: false })).toBe(true);
  });

  it('refuses to attach a <webview>', () => {
    const contents = windowContents();
    expect(contents.emitPreventable('will-attach-webview', {}, { preload: '/x.js' }, { src: 'https://x' })).toBe(true);
  });
});
