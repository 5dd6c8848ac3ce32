import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const repoRoot = resolve(import.meta.dirname, '..', '..');
/**
 * The built UI the browser host serves: out/renderer, or the copy `npm test` makes for the e2e files it runs beside the
 * integration files (packaging.spec and npm-start.spec rebuild out/ meanwhile; scripts/run-tests.mjs).
 */
export const rendererDir = process.env.AGENTSWARM_E2E_RENDERER_DIR || join(repoRoot, 'out', 'renderer');
export const screenshotDir = join(repoRoot, 'test-results', 'e2e');

/**
 * Debian's Chromium, headless. Background networking and friends are off: this machine has no
 * network beyond loopback, and tests must not try to reach anything else. Playwright gives each
 * launch a fresh, empty profile of its own.
 *
 * Tests use `chromium-headless-shell`, the same Chromium built as Playwright's default headless browser: on the same
 * e2e files it took 28 CPU s where the full browser's new headless mode took 49 (issue 35: CI's cores are busy
 * throughout, and Chromium was a quarter of their work). `full` launches the full browser, as the startup bench and the
 * docs' screenshots (scripts/docs-screenshot.ts, getting-started.spec) do: what they measure and show is the browser
 * users run. CHROMIUM_PATH overrides both.
 */
export const HEADLESS_SHELL_PATH = '/usr/bin/chromium-headless-shell';
export const FULL_CHROMIUM_PATH = '/usr/bin/chromium';

export async function launchChromium(options: { full?: boolean } = {}): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? (options.full ? FULL_CHROMIUM_PATH : HEADLESS_SHELL_PATH);
  if (!existsSync(executablePath)) {
    throw new Error(`${executablePath} not found: run \`bash test/testbed/testbed.sh up\` (it installs Debian's chromium and chromium-headless-shell).`);
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--disable-extensions',
    ],
  });
}

/**
 * A fresh page on the app's URL that records page errors and console errors into `errors`, so a
 * test can assert the UI raised none. It opens at `startPage` (`#page=…`) as a returning user's
 * window does; `null` opens the bare address, where a new user lands on the wizard (lib/landing.ts).
 */
export async function openAppPage(browser: Browser, url: string, errors: string[], startPage: string | null = 'servers'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  if (startPage !== null) url = `${url}${url.includes('#') ? '&' : '#'}page=${encodeURIComponent(startPage)}`;
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(url);
  return page;
}

export function requireBuiltRenderer(): void {
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`${join(rendererDir, 'index.html')} is missing: run \`npx electron-vite build\` first (npm test does).`);
  }
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Shows one place in the Servers page's detail by clicking its row in the list (issue 32):
 * `engine:<id>`, `dry-run` or `ssh:<server id>`.
 */
export async function showServer(page: Page, rowId: string): Promise<void> {
  // A page opened at the bare address lands where the landing rules say (a returning user with a swarm server: the
  // fleet home), so go to Servers first unless it is the page shown.
  const nav = page.getByTestId('nav-servers');
  if ((await nav.getAttribute('aria-current')) !== 'page') await nav.click();
  await page.locator(`[data-testid="server-row"][data-row="${rowId}"]`).click();
  await page.locator(`[data-testid="server-detail"][data-row="${rowId}"]`).waitFor();
}

/** Fills the Servers page's start form (local Docker) for the fake swarm image on the test bed's host network. */
export async function fillStartForm(page: Page, options: { image: string; port: number }): Promise<void> {
  await page.getByTestId('nav-servers').click();
  await showServer(page, 'engine:local');
  await page.getByTestId('swarm-image-input').fill(options.image);
  await page.getByTestId('swarm-port-input').fill(String(options.port));
  await page.getByTestId('swarm-network-select').selectOption('host');
  await page.getByTestId('swarm-gpus-checkbox').setChecked(false);
}
