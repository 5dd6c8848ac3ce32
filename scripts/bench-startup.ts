/**
 * `npm run bench -- startup [--rounds N]`: how fast the built renderer comes up, medians of N (default 5).
 *   first_paint_ms      the page's first-contentful-paint in headless Chromium (the test bed's, test/e2e/browser.ts),
 *                       each round a fresh browser context on the browser host's URL
 *   initial_js_gz_kb    the JavaScript that one page load fetches (every .js response until the network is
 *                       quiet), each file gzipped at level 9 from out/renderer, summed, in kB (1,000 bytes), for
 *                       the bare address (a new user: the wizard); each page opened by `#page=…` is printed too
 *   api_calls_on_load   API calls one page load makes, counted at the browser host's handlers until the
 *                       page has been quiet for QUIET_MS
 *   cold_start_ms       `tsx electron/browser-host/cli.ts` (what `npm run web` runs after building): from
 *                       spawning the process to the first 200 on `/`
 * Needs `npx electron-vite build` first (it measures out/renderer as built). The calls per channel of the
 * last load are printed, so a list fetched twice shows, and so are its largest scripts. The last line is machine-readable:
 * `BENCH startup first_paint_ms=… initial_js_gz_kb=… api_calls_on_load=… cold_start_ms=…`
 */
import { spawn } from 'node:child_process';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startBrowserHost } from '../electron/browser-host/server';
import { createAppServices } from '../electron/services/app-services';
import { EventHub } from '../electron/services/events';
import type { Handlers } from '../electron/services/ipc/handlers';
import { freePort } from '../test/support/helpers';
import { launchChromium, rendererDir, requireBuiltRenderer } from '../test/e2e/browser';

const root = resolve(import.meta.dirname, '..');
/** The page counts as loaded when no API call came for this long after the network went idle. */
const QUIET_MS = 1_500;
const COLD_START_TIMEOUT_MS = 180_000;
/** The pages a window can open at (renderer/src/lib/pages.ts: Electron reopens the page left last). */
const FIRST_PAGES = ['fleet', 'wizard', 'servers', 'jobs', 'runs', 'settings'];

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The app's handlers, each call counted by channel (the browser host's only way into the services). */
function countingHandlers(handlers: Handlers, onCall: (channel: string) => void): Handlers {
  const wrapped: Record<string, (request: unknown) => Promise<unknown>> = {};
  for (const [channel, handler] of Object.entries(handlers) as [string, (request: unknown) => Promise<unknown>][]) {
    wrapped[channel] = (request) => {
      onCall(channel);
      return handler(request);
    };
  }
  return wrapped as unknown as Handlers;
}

/** Each script's gzipped size in kB, keyed by its path. */
async function gzippedKb(paths: Set<string>): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const path of paths) sizes.set(path, gzipSync(await readFile(join(rendererDir, path)), { level: 9 }).length / 1000);
  return sizes;
}

interface PageLoad {
  firstPaintMs: number;
  jsGzKb: number;
  apiCalls: number;
  byChannel: Map<string, number>;
  byScript: Map<string, number>;
}

async function measurePageLoads(rounds: number): Promise<PageLoad[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agentswarm-bench-startup-'));
  const hub = new EventHub();
  const services = createAppServices({ dataDir, host: 'browser', version: 'bench-startup', events: hub });
  await services.start();
  let counts = new Map<string, number>();
  let lastCallAt = 0;
  const host = await startBrowserHost({
    handlers: countingHandlers(services.handlers, (channel) => {
      counts.set(channel, (counts.get(channel) ?? 0) + 1);
      lastCallAt = Date.now();
    }),
    hub,
    staticDir: rendererDir,
  });
  const browser = await launchChromium({ full: true });
  const loads: PageLoad[] = [];
  const byFirstPage = new Map<string, Map<string, number>>();
  /** One load in a fresh context: the scripts it fetched (gzipped kB each) and its first paint. */
  async function loadOnce(url: string): Promise<{ firstPaintMs: number; byScript: Map<string, number>; shownPage: string }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const scripts = new Set<string>();
      page.on('response', (response) => {
        const responseUrl = new URL(response.url());
        if (responseUrl.origin === new URL(host.url).origin && responseUrl.pathname.endsWith('.js')) scripts.add(responseUrl.pathname);
      });
      await page.goto(url);
      // The app has mounted when its navigation shows, and its first page (chosen once the startup facts are in, at
      // the bare address) when that page's heading shows; then it is loaded once no API call came for QUIET_MS.
      await page.getByTestId('nav-servers').waitFor({ timeout: 60_000 });
      await page.locator('main h1').first().waitFor({ timeout: 60_000 });
      const shownPage = await page.locator('nav [aria-current="page"]').first().getAttribute('data-testid');
      lastCallAt = Date.now();
      while (Date.now() - lastCallAt < QUIET_MS) await new Promise((r) => setTimeout(r, 100));
      const firstPaintMs = await page.evaluate(
        () =>
          new Promise<number>((done) => {
            new PerformanceObserver((list) => {
              const paint = list.getEntries().find((entry) => entry.name === 'first-contentful-paint');
              if (paint) done(paint.startTime);
            }).observe({ type: 'paint', buffered: true });
          }),
      );
      return { firstPaintMs, byScript: await gzippedKb(scripts), shownPage: shownPage?.replace('nav-', '') ?? '?' };
    } finally {
      await context.close();
    }
  }
  const total = (byScript: Map<string, number>) => [...byScript.values()].reduce((sum, kb) => sum + kb, 0);
  try {
    for (let round = 0; round < rounds; round += 1) {
      counts = new Map();
      const { firstPaintMs, byScript, shownPage } = await loadOnce(host.openUrl);
      const apiCalls = [...counts.values()].reduce((sum, n) => sum + n, 0);
      loads.push({ firstPaintMs, jsGzKb: total(byScript), apiCalls, byChannel: counts, byScript });
      console.log(`load ${round + 1}: first paint ${firstPaintMs.toFixed(0)} ms, ${byScript.size} scripts, ${apiCalls} API calls, landed on ${shownPage}`);
    }
    // A returning user's window opens at the page left last (`#page=…`): each page's first load must meet the goal too.
    for (const id of FIRST_PAGES) byFirstPage.set(id, (await loadOnce(`${host.openUrl}&page=${id}`)).byScript);
  } finally {
    await browser.close();
    await host.close();
    await services.dispose();
    await rm(dataDir, { recursive: true, force: true });
  }
  console.log(`initial JS when the window opens at a page (gzipped kB): ${[...byFirstPage].map(([id, byScript]) => `${id} ${total(byScript).toFixed(1)}`).join(', ')}`);
  for (const [id, byScript] of byFirstPage) {
    const largest = [...byScript].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(`  ${id}: ${largest.map(([path, kb]) => `${path.replace('/assets/', '')} ${kb.toFixed(1)}`).join(', ')}`);
  }
  return loads;
}

function firstOk(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const request = get({ host: '127.0.0.1', port, path: '/' }, (response) => {
      response.resume();
      ok(response.statusCode === 200);
    });
    request.on('error', () => ok(false));
    request.setTimeout(1_000, () => request.destroy());
  });
}

/** Process start to the first 200 on `/`, polled every 5 ms. */
async function coldStartMs(): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agentswarm-bench-cold-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, 'electron/browser-host/cli.ts'), '--port', String(port), '--data-dir', dataDir], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    while (!(await firstOk(port))) {
      if (child.exitCode !== null) throw new Error(`the browser host exited with ${child.exitCode}`);
      if (performance.now() - started > COLD_START_TIMEOUT_MS) throw new Error('the browser host did not answer within 180 s');
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - started;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  requireBuiltRenderer();
  const rounds = Number(option('rounds', '5'));
  const loads = await measurePageLoads(rounds);
  const last = loads.at(-1)!;
  console.log('API calls of the last load, by channel:');
  for (const [channel, n] of [...last.byChannel].sort()) console.log(`  ${channel.padEnd(32)} ${n}`);
  // The scripts that weigh most, so the next cut is chosen from numbers (chunk names come from their first module).
  console.log('Largest scripts of the last load (gzipped kB):');
  for (const [path, kb] of [...last.byScript].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${path.padEnd(48)} ${kb.toFixed(1)}`);
  const cold: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    cold.push(await coldStartMs());
    console.log(`cold start ${round + 1}: ${cold.at(-1)!.toFixed(0)} ms`);
  }
  console.log(
    `BENCH startup first_paint_ms=${median(loads.map((l) => l.firstPaintMs)).toFixed(0)} initial_js_gz_kb=${median(loads.map((l) => l.jsGzKb)).toFixed(1)} ` +
      `api_calls_on_load=${median(loads.map((l) => l.apiCalls))} cold_start_ms=${median(cold).toFixed(0)}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
