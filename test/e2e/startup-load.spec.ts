import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';
import { launchChromium, rendererDir, requireBuiltRenderer } from './browser';

/** The page has loaded once no API call came for this long (its first reads all go out within a few ms). */
const QUIET_MS = 1_500;
/**
 * `app:visibility` is not a read but a lease the page renews (on load, focus and visibility changes,
 * and every few seconds): several on load are expected. Every other channel is a read of a list or a
 * state, and one page load asks for each once (issue 35).
 */
const REPORTS = new Set(['app:visibility']);

interface Load {
  page: Page;
  calls: Map<string, number>;
  scripts: Map<string, Response>;
  errors: string[];
}

/**
 * Opens the app in a fresh context, counting API calls per channel and the scripts fetched, until the
 * page `shown` waits for is there and no call came for QUIET_MS.
 */
async function openCounting(browser: Browser, url: string, shown = 'nav-servers'): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const calls = new Map<string, number>();
  const scripts = new Map<string, Response>();
  const errors: string[] = [];
  let lastCallAt = Date.now();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (!path.startsWith('/api/invoke/')) return;
    const channel = decodeURIComponent(path.slice('/api/invoke/'.length));
    calls.set(channel, (calls.get(channel) ?? 0) + 1);
    lastCallAt = Date.now();
  });
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (path.endsWith('.js')) scripts.set(path, response);
  });
  await page.goto(url);
  await page.getByTestId(shown).waitFor();
  lastCallAt = Date.now();
  while (Date.now() - lastCallAt < QUIET_MS) await new Promise((r) => setTimeout(r, 100));
  return { page, calls, scripts, errors };
}

// The built renderer in Chromium against the browser host and the real services: what one page load
// fetches (each list once, only the first page's code, compressed) and that the other chunks still come.
describe('page load (Chromium + browser host)', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
  });

  // Issue 32: at the bare address a new user (no server, profile, wizard progress) lands on the wizard, which mounts
  // after the landing decided, i.e. after the replay: it used to read wizard:state, vault:state and secrets:list twice.
  it('a new user at the bare address lands on the wizard and reads each list once', async () => {
    const load = await openCounting(browser, app.host!.openUrl, 'wizard-step-llm');
    try {
      expect(await load.page.getByTestId('nav-wizard').getAttribute('aria-current')).toBe('page');
      const reads = [...load.calls].filter(([channel]) => !REPORTS.has(channel));
      console.log(`new-user load: ${reads.reduce((n, [, c]) => n + c, 0)} reads over ${reads.length} channels`);
      expect(reads.filter(([, n]) => n > 1), 'channels read more than once on load').toEqual([]);
      for (const channel of ['wizard:state', 'vault:state', 'secrets:list', 'servers:list', 'profiles:list', 'fleet:states']) expect(load.calls.get(channel), channel).toBe(1);
      expect(load.errors).toEqual([]);
    } finally {
      await load.page.context().close();
    }
  });

  it('reads each list once, fetches only the Servers page and English, compressed', async () => {
    const load = await openCounting(browser, `${app.host!.openUrl}&page=servers`);
    try {
      const reads = [...load.calls].filter(([channel]) => !REPORTS.has(channel));
      expect(reads.length).toBeGreaterThan(5);
      expect(reads.filter(([, n]) => n > 1), 'channels read more than once on load').toEqual([]);
      expect(load.calls.get('engines:list')).toBe(1);
      expect(load.calls.get('settings:get')).toBe(1);

      const names = [...load.scripts.keys()].map((path) => path.split('/').pop()!.replace(/-[\w-]{8}\.js$/, ''));
      expect(names).toContain('ServersPage');
      // Strings come by topic (renderer/src/lib/i18n/topics.ts): the shell's and the page's, in English only.
      expect(names).toContain('en-shell');
      expect(names).toContain('en-profiles');
      expect(names.filter((name) => name.startsWith('zh-CN')), 'Chinese strings').toEqual([]);
      for (const notShown of ['SettingsPage', 'WizardPage', 'JobsPage', 'ServerDialog', 'TrainingDashboard', 'en-wizard', 'en-jobs', 'en-updates']) {
        expect(names, notShown).not.toContain(notShown);
      }
      for (const [path, response] of load.scripts) {
        const headers = await response.allHeaders();
        expect(headers['content-type'], path).toBe('text/javascript; charset=utf-8');
        if (Number(headers['content-length'] ?? 0) >= 1024) expect(headers['content-encoding'], path).toMatch(/^(gzip|br)$/);
        expect(headers.vary, path).toMatch(/Accept-Encoding/i);
      }
      expect(load.errors).toEqual([]);
    } finally {
      await load.page.context().close();
    }
  });

  it('fetches another page and the other language when asked, under the CSP, without errors', async () => {
    const load = await openCounting(browser, `${app.host!.openUrl}&page=servers`);
    try {
      await load.page.getByTestId('nav-settings').click();
      await load.page.getByTestId('settings-language-select').waitFor();
      expect([...load.scripts.keys()].some((path) => /\/SettingsPage-[\w-]+\.js$/.test(path))).toBe(true);
      await load.page.getByTestId('settings-language-select').selectOption('zh-CN');
      await expect.poll(async () => load.page.getByTestId('nav-settings').textContent(), { timeout: 20_000 }).toBe('设置');
      expect([...load.scripts.keys()].some((path) => /\/zh-CN-[\w-]+\.js$/.test(path))).toBe(true);
      // Back to English for the next test (the language is a backend setting).
      await load.page.getByTestId('settings-language-select').selectOption('en');
      await expect.poll(async () => load.page.getByTestId('nav-settings').textContent(), { timeout: 20_000 }).toBe('Settings');
      expect(load.errors).toEqual([]);
    } finally {
      await load.page.context().close();
    }
  });
});
