/**
 * Smoke-tests the PACKAGED Electron app (issue 35) with the one smoke module
 * (test/smoke/packaged-smoke.ts). Used by .github/workflows/release.yml on every runner before
 * upload; on Linux under `xvfb-run`.
 *
 *   npx tsx scripts/smoke-packaged.ts <path to the packaged executable>
 *
 * Why CDP and not playwright-core's `_electron.launch`: `_electron` attaches through Node's
 * `--inspect`, which the shipped binary refuses (electron-builder.yml flips the
 * EnableNodeCliInspectArguments fuse off; Playwright's docs list that fuse as the cause of launch
 * timeouts). Chromium's `--remote-debugging-port` still works, so the app is started as users
 * start it, fuses and all, and Playwright connects over CDP: the same `Page` API, the window's
 * bounds through CDP's Browser domain, DevTools as CDP targets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildCsp } from '../electron/shared/csp';
import { formatSmoke, runSmoke, type WindowBounds } from '../test/smoke/packaged-smoke';
import { freePort } from '../test/support/helpers';

const APP_ORIGIN = 'agentswarm://app';

interface Running {
  child: ChildProcess;
  exited: Promise<number | null>;
  browser: Browser;
  page: Page;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function start(executable: string, dataDir: string): Promise<Running> {
  const port = await freePort();
  const child = spawn(executable, [`--remote-debugging-port=${port}`, `--user-data-dir=${join(dataDir, 'userData')}`], {
    // XDG_CONFIG_HOME too: wherever Electron puts userData on Linux, it is inside this run's folder.
    env: { ...process.env, XDG_CONFIG_HOME: join(dataDir, 'config') },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor('the app to open its debugging port', 60_000, async () => ((await fetch(`http://127.0.0.1:${port}/json/version`)).ok ? true : null));
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  const page = await waitFor('the app window', 60_000, async () => {
    const pages = browser.contexts().flatMap((context) => context.pages());
    return pages.find((p) => p.url().startsWith(`${APP_ORIGIN}/`)) ?? null;
  });
  return { child, exited, browser, page };
}

async function windowBounds(page: Page): Promise<{ windowId: number; bounds: WindowBounds }> {
  const session = await page.context().newCDPSession(page);
  const { windowId, bounds } = (await session.send('Browser.getWindowForTarget')) as {
    windowId: number;
    bounds: { left: number; top: number; width: number; height: number };
  };
  return { windowId, bounds: { x: bounds.left, y: bounds.top, width: bounds.width, height: bounds.height } };
}

/** Closes the window as a user would (window.close → 'close' saves bounds → app quits); macOS keeps apps without windows alive, so it gets a SIGTERM (Electron quits cleanly on it). */
async function quit(running: Running): Promise<void> {
  await running.page.evaluate(() => window.close()).catch(() => undefined);
  if (process.platform === 'darwin') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    running.child.kill('SIGTERM');
  }
  const code = await running.exited;
  await running.browser.close().catch(() => undefined);
  if (code !== 0 && code !== null) throw new Error(`the app exited with code ${code}`);
}

async function main(): Promise<void> {
  const executable = process.argv[2];
  if (!executable) throw new Error('usage: tsx scripts/smoke-packaged.ts <path to the packaged executable>');
  const dataDir = mkdtempSync(join(tmpdir(), 'agentswarm-smoke-'));
  let running = await start(executable, dataDir);
  // The page was loaded before we connected: reload once to see the document's response headers.
  const response = await running.page.reload();
  const headers = response ? await response.allHeaders() : null;
  try {
    const results = await runSmoke({
      kind: 'electron',
      page: running.page,
      expectedOrigin: APP_ORIGIN,
      expectedCspHeader: buildCsp(),
      documentHeaders: async () => headers,
      electron: {
        async devToolsOpen() {
          const session = await running.browser.newBrowserCDPSession();
          const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: { url: string; type: string }[] };
          return targetInfos.some((t) => t.url.startsWith('devtools://'));
        },
        async restartWithBounds(bounds) {
          const { windowId } = await windowBounds(running.page);
          const session = await running.page.context().newCDPSession(running.page);
          await session.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } });
          await session.send('Browser.setWindowBounds', { windowId, bounds: { left: bounds.x, top: bounds.y, width: bounds.width, height: bounds.height } });
          // The app saves bounds after moves have been quiet for 500 ms, and again on close.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          await quit(running);
          running = await start(executable, dataDir);
          await running.page.getByTestId('nav-settings').waitFor({ timeout: 30_000 });
          return (await windowBounds(running.page)).bounds;
        },
        page: () => running.page,
      },
      quit: () => quit(running),
    });
    const report = formatSmoke(results);
    console.log(report);
    if (process.env['GITHUB_STEP_SUMMARY']) {
      appendFileSync(process.env['GITHUB_STEP_SUMMARY'], `### Packaged smoke test (${process.platform} ${process.arch})\n\n\`\`\`\n${report}\n\`\`\`\n`);
    }
    if (results.some((r) => r.outcome !== 'pass')) process.exitCode = 1;
  } finally {
    if (running.child.exitCode === null) running.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`smoke test failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exit(1);
});
