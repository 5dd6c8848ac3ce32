import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';
import { formatViolations, runAxe } from './axe';
import { launchChromium, rendererDir, requireBuiltRenderer, saveScreenshot, showServer } from './browser';

// Issue 32, items 1, 6–8 in Chromium at 800×600 against the browser host and the test bed's real
// dockerd: the Servers page is a list with a detail (not a 6,000 px column), "Skip to content" is
// the first Tab stop, "Add server" is at most 5 Tabs from load, focus follows navigation, the
// start form follows the engine's GPUs (the test bed's dockerd has no NVIDIA runtime), axe-clean.
describe('Servers page at 800×600: list and detail, skip link, Tabs to Add server (Chromium)', () => {
  let app: TestApp;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
  });

  async function open(): Promise<Page> {
    await app.services.settings.update({ language: 'en' });
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.host!.openUrl);
    await page.getByTestId('nav-servers').click();
    await page.locator('[data-testid="server-row"][data-row="dry-run"]').waitFor({ timeout: 15_000 });
    return page;
  }

  const focused = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? null);

  it('reaches "Add server" within 5 Tabs from load; the first Tab is "Skip to content", which lands on the heading', async () => {
    const page = await open();
    try {
      await page.reload();
      await page.getByTestId('server-add').waitFor();
      const stops: (string | null)[] = [];
      for (let tabs = 1; tabs <= 10; tabs += 1) {
        await page.keyboard.press('Tab');
        stops.push(await focused(page));
        if (stops.at(-1) === 'server-add') break;
      }
      console.log(`Tabs from load to "Add server": ${stops.length} (${stops.join(' → ')})`);
      expect(stops[0]).toBe('skip-link');
      expect(stops.at(-1)).toBe('server-add');
      expect(stops.length).toBeLessThanOrEqual(5);

      await page.reload();
      await page.getByTestId('server-add').waitFor();
      await page.keyboard.press('Tab');
      expect(await page.getByTestId('skip-link').isVisible()).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    } finally {
      await page.close();
    }
  });

  it('moves focus to the new page heading after a navigation click, and to the detail heading after a row click, in view', async () => {
    const page = await open();
    try {
      await page.getByTestId('nav-jobs').click();
      await expect.poll(() => page.evaluate(() => (document.activeElement?.tagName === 'H1' ? document.activeElement.textContent : null))).toBeTruthy();
      await page.getByTestId('nav-servers').click();
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

      // Every row is above the fold at 800×600; the chosen one's detail heading takes focus and is in view.
      for (const row of await page.getByTestId('server-row').all()) {
        const box = await row.boundingBox();
        expect(box && box.y + box.height <= 600).toBe(true);
      }
      await showServer(page, 'dry-run');
      const heading = page.getByTestId('server-detail').locator('h2').first();
      await expect.poll(() => heading.evaluate((el) => el === document.activeElement)).toBe(true);
      const box = await heading.boundingBox();
      expect(box && box.y >= 0 && box.y + box.height <= 600).toBe(true);
      await saveScreenshot(page, 'servers-800x600-dry-run');
    } finally {
      await page.close();
    }
  });

  it('shows one place at a time: the page is far shorter than one column of every card; axe finds nothing', async () => {
    const page = await open();
    try {
      await showServer(page, 'engine:local');
      const heights: Record<string, number> = {};
      for (const row of ['engine:local', 'dry-run']) {
        await showServer(page, row);
        heights[row] = await page.locator('main').evaluate((main) => main.scrollHeight);
      }
      console.log(`Servers page height at 800×600: ${JSON.stringify(heights)}`);
      for (const height of Object.values(heights)) expect(height).toBeLessThan(4000);
      expect(await page.getByTestId('dryrun-card').count()).toBe(1);
      expect(await page.getByTestId('engine-card').count()).toBe(0);
      const violations = await runAxe(page);
      expect(violations, formatViolations('servers at 800×600', violations)).toEqual([]);
      await showServer(page, 'engine:local');
      const more = await runAxe(page);
      expect(more, formatViolations('servers (local engine) at 800×600', more)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('leaves "Use all GPUs" unticked on an engine that reports no GPUs for containers, and says why', async () => {
    const page = await open();
    try {
      await showServer(page, 'engine:local');
      await page.getByTestId('swarm-gpus-engine').waitFor({ timeout: 15_000 });
      expect(await page.getByTestId('swarm-gpus-engine').textContent()).toContain('reports no GPUs for containers');
      expect(await page.getByTestId('swarm-gpus-checkbox').isChecked()).toBe(false);
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
