import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { fillStartForm, launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// The app's own dry run holds a port and the user starts a swarm server on it from the Servers page (Chromium,
// browser host, real dockerd, the real dry run): the error names the dry run, not "node (pid …)", and its
// "Stop the dry run" frees the port.
describe("a port held by the app's dry run, in the UI (Chromium + browser host + real Docker)", () => {
  const testbed = loadTestbed();
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    if (page) await saveScreenshot(page, 'dry-run-holds-port');
    await browser?.close();
    await app?.dispose();
  });

  it('Start says the dry run holds the port, in words; Stop the dry run frees it', async () => {
    const port = await freePort();
    const view = await app.handlers['dryrun:start']({
      config: { port, llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none', secretId: null }, bootDelayMs: 300, trainingStepMs: 300, spend: { maxCallsPerEpisode: 5, maxCalls: 10, maxTokens: 10_000 } },
    });
    expect(view).toMatchObject({ state: 'running', port });

    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
    await fillStartForm(page, { image: testbed.fakeSwarmImage, port });
    await page.getByTestId('swarm-start-button').click();
    const banner = page.getByTestId('error-banner').filter({ has: page.getByTestId('stop-dry-run') });
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.getAttribute('data-error-code')).toBe('PORT_IN_USE');
    // The error words are fetched with the first error worded (issue 35): the title follows in a moment.
    await expect.poll(() => banner.locator('strong').textContent(), { timeout: 15_000 }).toBe(`The app's dry run holds port ${port} — stop the dry run or choose another port.`);
    expect(await banner.textContent()).not.toMatch(/node \(pid/);
    await saveScreenshot(page, 'dry-run-holds-port-banner');

    await banner.getByTestId('stop-dry-run-button').click();
    await banner.getByTestId('stop-dry-run-outcome').filter({ hasText: `port ${port} is free` }).waitFor({ timeout: 10_000 });
    expect((await app.handlers['dryrun:view']({})).state).toBe('stopped');
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
