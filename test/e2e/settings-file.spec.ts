import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserHost } from '../../electron/browser-host/server';
import { startTestApp, type TestApp } from '../support/test-app';
import { launchChromium, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// What a user sees when settings.json cannot be read: the app starts anyway, says so in the shell
// and on Settings (naming the file), and the App log section shows where the log is and its lines.
describe('an unreadable settings file and the app log in the UI (Chromium + browser host)', () => {
  let dir: string;
  let testApp: TestApp;
  let host: BrowserHost;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    requireBuiltRenderer();
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-e2e-settings-'));
    await mkdir(join(dir, 'settings.json'));
    // No Docker needed here: an endpoint that is certainly not there.
    testApp = await startTestApp({ dataDir: dir, staticDir: rendererDir, dockerHost: `unix://${join(dir, 'none.sock')}` });
    if (!testApp.host) throw new Error('startTestApp served no UI');
    host = testApp.host;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });
  afterEach(async (context) => {
    await saveScreenshot(page, context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
  });
  afterAll(async () => {
    await browser?.close();
    await testApp?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows the notice in the shell, the file and reason on Settings, and again after a reload', async () => {
    await page.goto(host.openUrl);
    const short = page.getByTestId('settings-file-notice-short');
    await short.waitFor();
    expect(await short.textContent()).toContain('could not be read');
    await short.getByRole('button').click();
    const full = page.getByTestId('settings-file-notice');
    await full.waitFor();
    expect(await page.getByTestId('settings-file-path').textContent()).toBe(join(dir, 'settings.json'));
    expect(await full.textContent()).toContain('EISDIR');
    // A reload comes back to the page the user was on (Settings, kept in the URL fragment), which
    // shows the full notice; every other page shows the short one in the shell.
    await page.reload();
    await page.getByTestId('settings-file-notice').waitFor();
    await page.getByTestId('nav-servers').click();
    await page.getByTestId('settings-file-notice-short').waitFor();
  });

  it('shows the app log path and recent lines on Settings; no Open button in a browser', async () => {
    await page.goto(host.openUrl);
    await page.getByTestId('nav-settings').click();
    const section = page.getByTestId('app-log-section');
    await section.waitFor();
    await expect.poll(async () => page.getByTestId('app-log-path').inputValue()).toBe(join(dir, 'app.log'));
    expect(await page.getByTestId('app-log-lines').inputValue()).toContain('settings.json: unreadable');
    expect(await section.getByTestId('app-log-open').count()).toBe(0);
    await section.scrollIntoViewIfNeeded();
  });
});
