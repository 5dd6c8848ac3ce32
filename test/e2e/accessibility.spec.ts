import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Language } from '../../electron/shared/schemas';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { formatViolations, runAxe } from './axe';
import { launchChromium, rendererDir, requireBuiltRenderer, saveScreenshot, showServer } from './browser';

const NAV_SERVERS: Record<Language, string> = { en: 'Servers', 'zh-CN': '服务器' };

// axe-core over every page of the built UI in Chromium, in both languages and both colour schemes,
// plus the states the foundation audit failed on (an error banner, the remove confirmation). Every
// later page is checked too, because the page list comes from the app's own page table. The
// keyboard and narrow-window checks below use the same real services and one fake swarm container.
describe('accessibility (axe-core, keyboard, 800 px) in Chromium', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  let app: TestApp;
  let browser: Browser;
  let containerId: string;
  let blocker: net.Server;
  let blockedPort: number;

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
    // A running server gives the list a row, a Stop button and the remove confirmation to audit.
    const container = await app.handlers['swarm:start']({
      engineId: 'local',
      image: testbed.fakeSwarmImage,
      port: await freePort(),
      networkMode: 'host',
      gpus: false,
      shmSizeGb: 1,
    });
    containerId = container.id;
    // A port someone else holds: starting on it shows the PORT_IN_USE banner.
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    blockedPort = (blocker.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    blocker?.close();
    await browser?.close();
    await app?.dispose();
  });

  async function open(language: Language, options: { colorScheme?: 'light' | 'dark'; width?: number } = {}): Promise<Page> {
    await app.services.settings.update({ language });
    const page = await browser.newPage({
      viewport: { width: options.width ?? 1280, height: 800 },
      colorScheme: options.colorScheme ?? 'light',
    });
    await page.goto(app.host!.openUrl);
    await expect.poll(async () => (await page.getByTestId('nav-servers').textContent())?.trim()).toBe(NAV_SERVERS[language]);
    await showServer(page, 'engine:local');
    return page;
  }

  function row(page: Page) {
    return page.locator(`[data-testid="swarm-container-row"][data-container-id="${containerId}"]`);
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const language of ['en', 'zh-CN'] as const) {
      it(`has 0 axe violations on every page, with an error and a confirmation shown (${language}, ${colorScheme})`, async () => {
        const page = await open(language, { colorScheme });
        const reports: string[] = [];
        const audit = async (where: string): Promise<void> => {
          const violations = await runAxe(page);
          if (violations.length > 0) reports.push(formatViolations(`${where} (${language}, ${colorScheme})`, violations));
        };
        try {
          // The navigation renders the app's page table, so a page added later is audited too.
          const pageIds = await page.locator('nav [data-testid^="nav-"]').evaluateAll((buttons) =>
            buttons.map((button) => (button.getAttribute('data-testid') ?? '').slice('nav-'.length)),
          );
          expect(pageIds).toEqual(expect.arrayContaining(['wizard', 'servers', 'jobs', 'settings']));
          for (const id of pageIds) {
            await page.getByTestId(`nav-${id}`).click();
            await page.locator('main h1').waitFor();
            if (id === 'servers') {
              // The Servers page shows one place at a time (issue 32): the local engine's row holds the container.
              await showServer(page, 'engine:local');
              await row(page).waitFor({ timeout: 15_000 });
            }
            await audit(`page ${id}`);
          }

          await page.getByTestId('nav-servers').click();
          await page.getByTestId('swarm-image-input').fill(testbed.fakeSwarmImage);
          await page.getByTestId('swarm-port-input').fill(String(blockedPort));
          await page.getByTestId('swarm-network-select').selectOption('host');
          await page.getByTestId('swarm-gpus-checkbox').setChecked(false);
          await page.getByTestId('swarm-start-button').click();
          await page.locator('[data-testid="error-banner"][data-error-code="PORT_IN_USE"]').waitFor({ timeout: 15_000 });
          await audit('servers with a PORT_IN_USE error');

          await row(page).getByTestId('swarm-remove-button').click();
          await row(page).getByTestId('swarm-remove-confirm').waitFor();
          await audit('servers with the remove confirmation open');
          await saveScreenshot(page, `a11y-servers-${language}-${colorScheme}`);
        } finally {
          await page.close();
        }
        expect(reports, reports.join('\n\n')).toEqual([]);
      });
    }
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`has 0 axe violations with the settings-file notice shown, in the shell and on Settings (${colorScheme})`, async () => {
      // A settings file that is not a JSON object is moved aside: the app says so in its shell.
      const dataDir = await mkdtemp(join(tmpdir(), 'agentswarm-a11y-settings-'));
      await writeFile(join(dataDir, 'settings.json'), '[1, 2, 3]');
      const broken = await startTestApp({ staticDir: rendererDir, dataDir });
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme });
      const reports: string[] = [];
      try {
        await page.goto(broken.host!.openUrl);
        await page.getByTestId('settings-file-notice-short').waitFor({ timeout: 15_000 });
        // The shell shows the notice before the landing page (a part loaded on demand) is in: audit the page as the
        // user sees it, heading and all (loaded run L7 audited the shell alone: "page-has-heading-one").
        await page.locator('main h1').waitFor();
        let violations = await runAxe(page);
        if (violations.length > 0) reports.push(formatViolations(`shell notice (${colorScheme})`, violations));
        await page.getByTestId('nav-settings').click();
        await page.getByTestId('settings-file-notice').waitFor();
        await page.getByTestId('app-log-section').waitFor();
        violations = await runAxe(page);
        if (violations.length > 0) reports.push(formatViolations(`settings notice and app log (${colorScheme})`, violations));
      } finally {
        await page.close();
        await broken.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
      expect(reports, reports.join('\n\n')).toEqual([]);
    });
  }

  it('keeps keyboard focus on the question and back on Remove: confirmation in view, focused, Escape closes it', async () => {
    // A short window puts the list below the fold, where the confirmation used to open unseen.
    const page = await browser.newPage({ viewport: { width: 1280, height: 500 } });
    try {
      await app.services.settings.update({ language: 'en' });
      await page.goto(app.host!.openUrl);
      await showServer(page, 'engine:local');
      const remove = row(page).getByTestId('swarm-remove-button');
      await remove.focus();
      await page.keyboard.press('Enter');
      const confirm = row(page).getByTestId('swarm-remove-confirm');
      await confirm.waitFor();
      expect(await confirm.evaluate((el) => el === document.activeElement)).toBe(true);
      const box = await confirm.boundingBox();
      expect(box && box.y >= 0 && box.y + box.height <= 500).toBe(true);

      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('swarm-remove-confirm-button');
      await page.keyboard.press('Escape');
      await confirm.waitFor({ state: 'detached' });
      expect(await remove.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await docker.getContainer(containerId).inspect()).toMatchObject({ State: { Running: true } });
    } finally {
      await page.close();
    }
  });

  it('never drops focus to <body>: a failed Start keeps it on Start and shows the error once; Dismiss and Check again keep it', async () => {
    const page = await open('en');
    try {
      const focusedTestId = () => page.evaluate(() => (document.activeElement === document.body ? 'BODY' : document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.textContent?.trim()));
      await page.getByTestId('swarm-image-input').fill(testbed.fakeSwarmImage);
      await page.getByTestId('swarm-port-input').fill(String(blockedPort));
      await page.getByTestId('swarm-network-select').selectOption('host');
      await page.getByTestId('swarm-gpus-checkbox').setChecked(false);
      await page.getByTestId('swarm-start-button').focus();
      await page.keyboard.press('Enter');
      await page.locator('[data-testid="error-banner"][data-error-code="PORT_IN_USE"]').waitFor({ timeout: 15_000 });
      expect(await page.getByTestId('error-banner').count()).toBe(1);
      expect(await focusedTestId()).toBe('swarm-start-button');

      await page.getByTestId('error-banner').getByRole('button', { name: 'Dismiss' }).focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('error-banner').waitFor({ state: 'detached' });
      expect(await focusedTestId()).toBe('swarm-start-button');

      const recheck = page.getByTestId('engine-card').getByRole('button', { name: 'Check again' });
      await recheck.focus();
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await page.getByTestId('engine-status').textContent()) ?? '').toContain('Reachable');
      expect(await focusedTestId()).toBe('Check again');
    } finally {
      await page.close();
    }
  });

  it('holds its layout at 800 px: the network select shows its whole choice and Stop stays out of the status column', async () => {
    const page = await open('en', { width: 800 });
    try {
      await row(page).waitFor({ timeout: 15_000 });
      const select = page.getByTestId('swarm-network-select');
      // The selected option's text, measured in the select's own font, must fit inside it.
      const fits = await select.evaluate((el: HTMLSelectElement) => {
        const style = getComputedStyle(el);
        const probe = document.createElement('span');
        probe.style.font = style.font;
        probe.style.whiteSpace = 'nowrap';
        probe.textContent = el.selectedOptions[0]?.textContent ?? '';
        document.body.append(probe);
        const textWidth = probe.getBoundingClientRect().width;
        probe.remove();
        // Padding plus room for the drop-down arrow.
        return { textWidth, room: el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20 };
      });
      expect(fits.textWidth).toBeLessThanOrEqual(fits.room);

      const stop = await row(page).getByTestId('swarm-stop-button').boundingBox();
      const state = await row(page).locator('td').nth(2).boundingBox();
      const training = await row(page).locator('td').nth(3).boundingBox();
      expect(stop && state && training).toBeTruthy();
      expect(stop!.x).toBeGreaterThanOrEqual(training!.x + training!.width);
      expect(stop!.x).toBeGreaterThanOrEqual(state!.x + state!.width);
      // The training-code URL stays whole inside its own column.
      const url = await row(page).getByTestId('swarm-url').boundingBox();
      const urlCell = await row(page).locator('td').nth(1).boundingBox();
      expect(url!.x + url!.width).toBeLessThanOrEqual(urlCell!.x + urlCell!.width);
      await row(page).scrollIntoViewIfNeeded();
      await saveScreenshot(page, 'a11y-servers-800px');
    } finally {
      await page.close();
    }
  });

  it('moves focus from Stop to Remove once the server stopped, and from Remove to the list heading', async () => {
    const page = await open('en');
    try {
      const stop = row(page).getByTestId('swarm-stop-button');
      await stop.focus();
      await page.keyboard.press('Enter');
      await stop.waitFor({ state: 'detached', timeout: 30_000 });
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
        .toBe('swarm-remove-button');

      await page.keyboard.press('Enter');
      await row(page).waitFor({ state: 'detached', timeout: 15_000 });
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toMatch(/^containers-heading/);
    } finally {
      await page.close();
    }
  });
});
