import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app';
import { auditBothSchemes } from './axe';
import { launchChromium, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// The page and its backend (`npm run web`) in Chromium: the backend (services and browser host) restarts under an
// open page, on the same port. The page says within seconds that it lost the backend, reconnects by itself when
// the token is the same, and takes a new token from a pasted address without a reload; either way it fetches the
// state again (the settings changed while it was away show).
/** No engine: the page's backend is what is tested, and npm test runs this file beside the integration files' containers. */
const NO_ENGINE = 'unix:///nonexistent/docker.sock';

describe('the page knows when it lost its backend (Chromium + a restarted browser host)', () => {
  let app: TestApp | null = null;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  let dataDir: string;

  beforeAll(async () => {
    requireBuiltRenderer();
    browser = await launchChromium();
  });
  afterEach(async (context) => {
    if (page) await saveScreenshot(page, context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
    await page?.close();
    await app?.dispose();
    app = null;
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Stops the backend under the page (an app quit; data kept) and starts it again on the same port. */
  async function restart(
    sameToken: boolean,
    whileDown: (next: TestApp) => Promise<void> = async () => {},
    whileStopped: () => Promise<void> = async () => {},
  ): Promise<{ lostAfterMs: number; lostRole: string | null; tokenRefused: string | null }> {
    const old = app!;
    const port = old.host!.port;
    const stoppedAt = Date.now();
    await old.stop();
    const lost = page.getByTestId('backend-lost');
    await lost.waitFor({ timeout: 20_000 });
    const lostAfterMs = Date.now() - stoppedAt;
    // Read while the backend is down: once it is back the page may reconnect before the test looks (CI-AA).
    const lostRole = await lost.getAttribute('role');
    const tokenRefused = await lost.getAttribute('data-token-refused');
    await whileStopped();
    // The same app again: no engine, as open() starts it.
    app = await startTestApp({ dataDir, staticDir: rendererDir, dockerHost: NO_ENGINE, hostPort: port, ...(sameToken ? { hostToken: old.host!.token } : {}) });
    await whileDown(app);
    return { lostAfterMs, lostRole, tokenRefused };
  }

  const frames: string[] = [];
  async function open(): Promise<void> {
    app = await startTestApp({ staticDir: rendererDir, dockerHost: NO_ENGINE });
    dataDir = app.dataDir;
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // What the page's event socket receives, to know its watch is armed (a heartbeat came) before freezing the host.
    page.on('websocket', (ws) => ws.on('framereceived', (frame) => frames.push(String(frame.payload))));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(app.host!.openUrl);
    await page.getByTestId('nav-servers').waitFor();
    // A page shown before the backend goes away (a new user would land on the wizard, fetched meanwhile).
    await page.getByTestId('nav-servers').click();
    await page.locator('main h1').waitFor();
    // A full reload would lose this; taking a new token must not need one.
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  }

  it('same token: says "lost" within 2 s, reconnects by itself, refetches, says it is back', async () => {
    await open();
    expect(await page.getByTestId('backend-lost').count()).toBe(0);
    const { lostAfterMs, lostRole, tokenRefused } = await restart(true, async (next) => {
      // Changed while the page was away: only a refetch shows it (the event went out before the page was back).
      await next.handlers['settings:update']({ language: 'zh-CN' });
    });
    expect(lostAfterMs).toBeLessThan(2000);
    expect(lostRole).toBe('alert');
    expect(tokenRefused).toBe('false');
    const reconnectStarted = Date.now();
    await page.getByTestId('backend-recovered').waitFor({ timeout: 10_000 });
    const reconnectMs = Date.now() - reconnectStarted;
    expect(await page.getByTestId('backend-lost').count()).toBe(0);
    expect(await page.getByTestId('backend-status').getAttribute('role')).toBe('status');
    // The refetched settings switch the language; its words are a chunk that may arrive after the banner shows.
    await expect.poll(() => page.getByTestId('nav-servers').textContent(), { timeout: 15_000 }).toContain('服务器');
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    console.log(`BENCH backend_link lost_shown_ms=${lostAfterMs} reconnected_after_restart_ms=${reconnectMs}`);
  }, 60_000);

  it('new token: says the token is refused; the pasted new address (only #token differs) reconnects without a reload', async () => {
    await open();
    // A page whose chunk (its code and its stylesheet) is asked for while nothing answers: both fail to load. Then back
    // to the page that was shown (loaded: its heading is there for the banner's audit below).
    await restart(false, undefined, async () => {
      const shown = (await page.locator('nav [aria-current="page"]').getAttribute('data-testid')) ?? 'nav-servers';
      await page.getByTestId('nav-runs').click();
      await expect.poll(() => errors.some((e) => /page runs did not load/.test(e)), { timeout: 15_000 }).toBe(true);
      await page.getByTestId(shown).click();
    });
    const lost = page.getByTestId('backend-lost');
    await page.locator('[data-testid="backend-lost"][data-token-refused="true"]').waitFor({ timeout: 10_000 });
    expect(await lost.textContent()).toContain('no longer accepts this page’s token');
    await saveScreenshot(page, 'backend-token-refused');
    const reports: string[] = [];
    await auditBothSchemes(page, 'the token-refused banner', reports);
    expect(reports).toEqual([]);
    await app!.handlers['settings:update']({ language: 'zh-CN' });

    const pastedAt = Date.now();
    await page.goto(app!.host!.openUrl); // the same address but the fragment: a same-document navigation
    await page.getByTestId('backend-recovered').waitFor({ timeout: 20_000 });
    const tokenTakenMs = Date.now() - pastedAt;
    expect(await page.getByTestId('backend-lost').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.evaluate(() => window.location.hash)).toBe(''); // the token left the address bar again
    // The refetched settings switch the language; its words are a chunk fetched after the banner already shows.
    await expect.poll(() => page.getByTestId('nav-servers').textContent(), { timeout: 15_000 }).toContain('服务器');
    // A request with the new token works (the Settings page loads its data through it).
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('app-log-section').waitFor();
    // The page that failed is fetched again, and with it its stylesheet: none is left failed in the page (Vite adds a
    // stylesheet only where no link to it is, and a failed one is removed: renderer/src/lib/failed-stylesheets.ts).
    await page.getByTestId('nav-runs').click();
    await page.getByTestId('runs-page').waitFor({ timeout: 15_000 });
    const unstyled = () =>
      page.evaluate(() => [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].filter((link) => link.sheet === null).map((link) => link.href));
    await expect.poll(unstyled, { timeout: 15_000 }).toEqual([]);
    expect(await page.evaluate(() => [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].some((link) => link.href.includes('RunsPage')))).toBe(true);
    // Also allowed: a page chunk the landing asked for while the backend was down ("page … did not load"; fetched again
    // on the next navigation, as here), and the same for the parts and words fetched on first use ("a part of the page
    // did not load", "the errors words did not load"; each tried again a few seconds later).
    expect(errors.filter((e) => !/WebSocket|Failed to load resource|ERR_CONNECTION_REFUSED|401|403|page \w+ did not load|a part of the page did not load|the [\w-]+ words did not load/.test(e))).toEqual([]);
    console.log(`BENCH backend_link new_token_reconnected_ms=${tokenTakenMs}`);
  }, 60_000);
  it('a frozen backend (its process stops answering, nothing closes): said within 3.5 s, back by itself when it answers again', async () => {
    await open();
    // The page notes when the banners appear: the test's own process is the frozen one and cannot watch meanwhile.
    await page.evaluate(() => {
      const w = window as unknown as { lostAt?: number; recoveredAt?: number };
      new MutationObserver(() => {
        if (w.lostAt === undefined && document.querySelector('[data-testid="backend-lost"]')) w.lostAt = Date.now();
        if (w.recoveredAt === undefined && document.querySelector('[data-testid="backend-recovered"]')) w.recoveredAt = Date.now();
      }).observe(document.body, { subtree: true, childList: true });
    });
    await expect.poll(() => frames.some((f) => f.startsWith('{"heartbeat":')), { timeout: 20_000 }).toBe(true);
    // The backend (services and browser host) runs in this process: block its event loop, as SIGSTOP would.
    const frozenAt = Date.now();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6000);
    const thawedAt = Date.now();
    await page.getByTestId('backend-recovered').waitFor({ timeout: 15_000 });
    const { lostAt, recoveredAt } = await page.evaluate(() => {
      const w = window as unknown as { lostAt?: number; recoveredAt?: number };
      return { lostAt: w.lostAt, recoveredAt: w.recoveredAt };
    });
    expect(lostAt).toBeDefined();
    expect(lostAt! - frozenAt).toBeLessThan(3500);
    expect(lostAt!).toBeLessThan(thawedAt);
    expect(recoveredAt!).toBeGreaterThanOrEqual(thawedAt);
    expect(await page.getByTestId('backend-lost').count()).toBe(0);
    console.log(`BENCH backend_link frozen_lost_shown_ms=${lostAt! - frozenAt} recovered_after_thaw_ms=${recoveredAt! - thawedAt}`);
  }, 60_000);
});
