import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCsp } from '../../electron/shared/csp';
import { startTestApp, type TestApp } from '../support/test-app';
import { formatSmoke, originOf, runSmoke, type SmokeCheck } from '../smoke/packaged-smoke';
import { launchChromium, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// The packaged-app smoke module (test/smoke/packaged-smoke.ts) against the browser host in
// Chromium, so the assertions the release runners use on Electron are themselves run here on
// every CI run. Electron-only checks must come out `not-applicable`, never `pass`.
describe('packaged smoke module against the browser host (Chromium)', () => {
  let dir: string;
  let testApp: TestApp;
  let browser: Browser;
  let results: SmokeCheck[];
  let updatesText: string | null = null;

  beforeAll(async () => {
    requireBuiltRenderer();
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-e2e-smoke-'));
    // No engine needed: an endpoint that is certainly not there.
    testApp = await startTestApp({ dataDir: dir, staticDir: rendererDir, dockerHost: `unix://${join(dir, 'none.sock')}` });
    const host = testApp.host;
    if (!host) throw new Error('startTestApp served no UI');
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const response = await page.goto(host.openUrl);
    // What Settings → Updates says here (updates are off in the browser host).
    await page.getByTestId('nav-settings').click();
    updatesText = await page.getByTestId('updates-unsupported').textContent();
    await saveScreenshot(page, 'packaged-smoke-browser-host');
    results = await runSmoke({
      kind: 'browser-host',
      page,
      expectedOrigin: originOf(host.url),
      expectedCspHeader: buildCsp({ connect: [`ws://127.0.0.1:${host.port}`, `ws://localhost:${host.port}`] }),
      documentHeaders: async () => response?.headers() ?? null,
      quit: async () => {
        // An app quit: the page goes, the host and the services stop (this spec makes no containers).
        await page.close();
        await browser.close();
        await testApp.stop();
      },
    });
    console.log(formatSmoke(results));
  });
  afterAll(async () => {
    await browser?.close();
    await testApp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const outcome = (name: SmokeCheck['name']) => results.find((r) => r.name === name);

  it('passes every check that applies to a browser host', () => {
    for (const name of ['loads-from-app-origin', 'api-answers-app-info', 'csp-is-built-in', 'quits-within-10s'] as const) {
      expect(outcome(name), `${name}: ${outcome(name)?.detail}`).toMatchObject({ outcome: 'pass' });
    }
    expect(outcome('api-answers-app-info')?.detail).toContain('host browser');
  });

  it('reports the Electron-only checks as not applicable (never as passes)', () => {
    expect(outcome('devtools-closed')?.outcome).toBe('not-applicable');
    expect(outcome('window-bounds-restored')?.outcome).toBe('not-applicable');
    expect(results.map((r) => r.name)).toEqual(['loads-from-app-origin', 'api-answers-app-info', 'csp-is-built-in', 'devtools-closed', 'window-bounds-restored', 'quits-within-10s']);
  });

  it('Settings → Updates says updates are off in the browser host', () => {
    expect(updatesText).toContain('Updates are off in the browser host');
  });
});
