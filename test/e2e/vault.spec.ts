import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserHost } from '../../electron/browser-host/server';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { startTestApp, type TestApp } from '../support/test-app';
import { runAxe } from './axe';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// The credentials vault through the real backend and Chromium: set up a passphrase vault, lock and
// unlock it (a wrong passphrase first), add an LLM key, Test it against the fake LLM on 127.0.0.1,
// replace it, delete it. The key values are canaries: after each save they must be nowhere in the
// page (markup or field values), in no WebSocket frame and in no HTTP answer the page received.
const CANARY = 'sk-e2e-canary-3b9d71c04f2a8e65';
const CANARY_2 = 'sk-e2e-canary-replaced-94c1d0e7';
const PASSPHRASE = 'correct horse battery';
// scrypt (N=2^17) per set-up and unlock takes seconds on a loaded two-core machine.
const POLL_MS = 30_000;

describe('credentials vault in the UI (Chromium + browser host + fake LLM)', () => {
  let dir: string;
  let testApp: TestApp;
  let host: BrowserHost;
  let llm: FakeLlm;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  /** Everything the page received from the backend: WebSocket frames and HTTP answer bodies. */
  const received: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-e2e-vault-'));
    llm = await startFakeLlm();
    // No Docker needed here: an endpoint that is certainly not there.
    testApp = await startTestApp({ dataDir: dir, staticDir: rendererDir, dockerHost: `unix://${join(dir, 'none.sock')}` });
    if (!testApp.host) throw new Error('startTestApp served no UI');
    host = testApp.host;
    browser = await launchChromium();
    page = await openAppPage(browser, 'about:blank', errors);
    page.on('websocket', (socket) => {
      socket.on('framereceived', (frame) => received.push(String(frame.payload)));
    });
    page.on('response', (response) => {
      if (!response.url().includes('/api/')) return;
      void response.text().then(
        (text) => received.push(text),
        () => undefined,
      );
    });
    await page.goto(host.openUrl);
    await page.getByTestId('nav-settings').click();
  });
  afterEach(async (context) => {
    await saveScreenshot(page, `vault-${context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
  });
  afterAll(async () => {
    await browser?.close();
    await testApp?.dispose();
    await llm?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The canary is not in the markup, not in any field's value, and was never received from the backend. */
  async function expectNowhere(value: string): Promise<void> {
    const html = await page.evaluate(() => document.documentElement.outerHTML);
    expect(html.includes(value), 'page markup').toBe(false);
    const fieldValues = await page.evaluate(() => [...document.querySelectorAll('input, textarea')].map((el) => (el as HTMLInputElement).value));
    expect(fieldValues.filter((v) => v.includes(value)), 'field values').toEqual([]);
    expect(received.filter((payload) => payload.includes(value)), 'WebSocket frames and HTTP answers').toEqual([]);
  }

  const row = () => page.getByTestId('secret-row').filter({ hasText: 'Fake LLM' });

  it('sets up a passphrase vault, locks it, refuses a wrong passphrase and unlocks with the right one', async () => {
    const section = page.getByTestId('vault-section');
    await expect.poll(() => section.getByTestId('vault-status-text').textContent(), { timeout: POLL_MS }).toBe('Not set up');
    await section.getByTestId('vault-setup-choice-passphrase').check();
    await section.getByTestId('vault-setup-passphrase').fill(PASSPHRASE);
    await section.getByTestId('vault-setup-confirm').fill(PASSPHRASE);
    await section.getByTestId('vault-setup-submit').click();
    await expect.poll(() => section.getByTestId('vault-status-text').textContent(), { timeout: POLL_MS }).toBe('Unlocked');
    expect(await section.getByTestId('vault-backend').textContent()).toBe('Kept in: Passphrase');

    await section.getByTestId('vault-lock').click();
    await expect.poll(() => section.getByTestId('vault-status-text').textContent(), { timeout: POLL_MS }).toBe('Locked');
    const prompt = section.getByTestId('vault-unlock-prompt');
    await prompt.getByTestId('vault-unlock-passphrase').fill('not the passphrase');
    await prompt.getByTestId('vault-unlock-submit').click();
    await prompt.getByTestId('vault-unlock-wrong').waitFor();
    expect(await section.getByTestId('vault-status-text').textContent()).toBe('Locked');
    await prompt.getByTestId('vault-unlock-passphrase').fill(PASSPHRASE);
    await prompt.getByTestId('vault-unlock-passphrase').press('Enter');
    await expect.poll(() => section.getByTestId('vault-status-text').textContent(), { timeout: POLL_MS }).toBe('Unlocked');
    await expectNowhere(PASSPHRASE);
    expect(await runAxe(page)).toEqual([]);
  });

  it('adds an LLM key and tests it against the fake LLM: status and latency shown; the key never comes back', async () => {
    await page.getByTestId('secret-group').filter({ has: page.locator('#secret-group-llm') }).getByTestId('secret-add').click();
    const dialog = page.getByTestId('secret-dialog');
    await dialog.getByTestId('secret-form-name').fill('Fake LLM');
    await dialog.getByTestId('secret-form-base-url').fill(llm.url);
    await dialog.getByTestId('secret-form-model').fill('fake-debug-model');
    await dialog.getByTestId('secret-form-value').fill(CANARY);
    await dialog.getByTestId('secret-form-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await row().waitFor();
    expect(await row().getByTestId('secret-llm').textContent()).toBe(llm.url);
    // The check below is not vacuous: the page did receive the secrets' snapshots over the socket.
    await expect.poll(() => received.some((payload) => payload.includes('secrets:changed') && payload.includes('Fake LLM')), { timeout: POLL_MS }).toBe(true);
    await expectNowhere(CANARY);

    await row().getByTestId('secret-test').click();
    await expect.poll(() => row().getByTestId('secret-test-result').getAttribute('data-ok'), { timeout: POLL_MS }).toBe('true');
    expect(await row().getByTestId('secret-test-result').textContent()).toMatch(/Works · HTTP 200 · \d+ ms/);
    // The backend sent the stored key to the LLM, and only there.
    expect(llm.calls.some((call) => call.headers.authorization === `Bearer ${CANARY}`)).toBe(true);
    await expectNowhere(CANARY);
    expect(await runAxe(page)).toEqual([]);
  });

  it('replaces the key (the field starts empty); the next Test sends the new key, never showing it', async () => {
    await row().getByTestId('secret-replace').click();
    const dialog = page.getByTestId('secret-dialog');
    expect(await dialog.getByTestId('secret-form-value').inputValue()).toBe('');
    await dialog.getByTestId('secret-form-value').fill(CANARY_2);
    await dialog.getByTestId('secret-form-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await expectNowhere(CANARY_2);

    // The fake LLM runs without requireKey here (any key works), so the proof is what it received:
    // the replaced key, on the Test after the replace.
    const before = llm.calls.length;
    await row().getByTestId('secret-test').click();
    await expect.poll(() => llm.calls.slice(before).map((call) => call.headers.authorization), { timeout: POLL_MS }).toContain(`Bearer ${CANARY_2}`);
    expect(llm.calls.slice(before).some((call) => call.headers.authorization === `Bearer ${CANARY}`)).toBe(false);
    await expect.poll(async () => (await row().getByTestId('secret-test').textContent())?.trim(), { timeout: POLL_MS }).toBe('Test');
    expect(await row().getByTestId('secret-test-result').textContent()).toMatch(/HTTP 200 · \d+ ms/);
    await expectNowhere(CANARY);
    await expectNowhere(CANARY_2);
  });

  it('exports settings without the key, and imports that file back through the file picker', async () => {
    await page.getByTestId('settings-export').click();
    const saved = (await page.getByTestId('settings-exported').textContent({ timeout: POLL_MS })) ?? '';
    const path = /to (.+)\.$/.exec(saved)?.[1];
    expect(path, saved).toBeTruthy();
    try {
      const text = await readFile(path!, 'utf8');
      // The endpoint's plain attributes travel; its key does not.
      expect(text).toContain(llm.url);
      expect(text.includes(CANARY) || text.includes(CANARY_2)).toBe(false);
      await page.getByTestId('settings-import-file').setInputFiles(path!);
      await page.getByTestId('settings-imported').waitFor({ timeout: POLL_MS });
      expect(await page.getByTestId('settings-imported-list').textContent()).toMatch(/^(Imported: |Nothing was imported\.)/);
    } finally {
      await rm(path!, { force: true });
    }
    await expectNowhere(CANARY_2);
  });

  it('deletes the key after asking; the page raised no errors', async () => {
    await row().getByTestId('secret-delete').click();
    await row().getByTestId('secret-confirm-delete').waitFor();
    await row().getByTestId('secret-confirm-yes').click();
    await row().waitFor({ state: 'detached' });
    await page.reload();
    await page.getByTestId('nav-settings').click();
    await expect.poll(() => page.getByTestId('vault-status-text').textContent(), { timeout: POLL_MS }).not.toBe('Not set up');
    expect(await page.getByTestId('secret-row').count()).toBe(0);
    await expectNowhere(CANARY);
    await expectNowhere(CANARY_2);
    expect(errors).toEqual([]);
  });
});
