/**
 * The packaged-app smoke test, written once (issue 35). It takes a Playwright `Page` showing the
 * app and a description of where it runs:
 *  - the browser host in Chromium (test/e2e/packaged-smoke.spec.ts, every CI run here), and
 *  - the packaged Electron app (scripts/smoke-packaged.ts, on every release runner before upload).
 * Checks that only mean something under Electron (DevTools, window bounds) are `not-applicable` in
 * the browser host — reported as such, never as passes.
 */
import type { Page } from 'playwright-core';
import { buildCsp } from '../../electron/shared/csp';

export type SmokeOutcome = 'pass' | 'fail' | 'not-applicable';

export interface SmokeCheck {
  name: SmokeCheckName;
  outcome: SmokeOutcome;
  detail: string;
}

export type SmokeCheckName = 'loads-from-app-origin' | 'api-answers-app-info' | 'csp-is-built-in' | 'devtools-closed' | 'window-bounds-restored' | 'quits-within-10s';

export interface WindowBounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What only the Electron runner can do: ask the shell about DevTools and restart the app. */
export interface ElectronSmokeHooks {
  /** Whether any DevTools window or panel is open for the app. */
  devToolsOpen(): Promise<boolean>;
  /**
   * Moves the window to `bounds`, quits, starts the app again with the same data folder and
   * returns the new window's bounds (the page given to `runSmoke` is gone afterwards; `page()` is the new one).
   */
  restartWithBounds(bounds: WindowBounds): Promise<WindowBounds>;
  page(): Page;
}

export interface SmokeTarget {
  kind: 'electron' | 'browser-host';
  page: Page;
  /** `agentswarm://app` under Electron; the browser host's `http://127.0.0.1:<port>`. */
  expectedOrigin: string;
  /** The CSP header the document must have come with (Electron: `buildCsp()`; browser host: plus its socket). */
  expectedCspHeader: string;
  /** The document's headers as the runner saw them (CDP/Playwright response of the page load), or null if not seen. */
  documentHeaders: () => Promise<Record<string, string> | null>;
  electron?: ElectronSmokeHooks;
  /** Quits the app (Electron) or closes the page and stops the host (browser host); resolves once it has exited. */
  quit(): Promise<void>;
}

export const QUIT_LIMIT_MS = 10_000;
const MOVED_BOUNDS: WindowBounds = { x: 140, y: 110, width: 1040, height: 720 };
/** Window managers may shift a window by its decorations; more than this is not "restored". */
const BOUNDS_TOLERANCE_PX = 48;

/** Origin of an app URL; `new URL('agentswarm://app/').origin` is "null" for non-special schemes, so it is built by hand. */
export function originOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

async function check(name: SmokeCheckName, run: () => Promise<string>): Promise<SmokeCheck> {
  try {
    return { name, outcome: 'pass', detail: await run() };
  } catch (error) {
    return { name, outcome: 'fail', detail: error instanceof Error ? error.message : String(error) };
  }
}

function notApplicable(name: SmokeCheckName, why: string): SmokeCheck {
  return { name, outcome: 'not-applicable', detail: why };
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** `app:info` through the page's own API: the preload's `window.api` (Electron) or the host's HTTP API with the page's token. */
async function appInfo(page: Page, kind: SmokeTarget['kind']): Promise<unknown> {
  if (kind === 'electron') {
    return page.evaluate(async () => {
      const api = (window as unknown as { api?: { app?: { info?: () => Promise<unknown> } } }).api;
      if (!api?.app?.info) return { ok: false, error: { message: 'window.api.app.info is missing (preload not loaded?)' } };
      return api.app.info();
    });
  }
  return page.evaluate(async () => {
    const token = window.sessionStorage.getItem('agentswarm.token');
    const response = await fetch('/api/invoke/app:info', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: '{}',
    });
    return response.json();
  });
}

/** Runs every check in order (the quit last) and returns each outcome; it never throws. */
export async function runSmoke(target: SmokeTarget): Promise<SmokeCheck[]> {
  const results: SmokeCheck[] = [];
  let page = target.page;

  results.push(
    await check('loads-from-app-origin', async () => {
      await page.getByTestId('nav-settings').waitFor({ timeout: 30_000 });
      const origin = originOf(page.url());
      assert(origin === target.expectedOrigin, `the page is at ${origin}, expected ${target.expectedOrigin}`);
      return `${origin} (the UI rendered its navigation)`;
    }),
  );

  results.push(
    await check('api-answers-app-info', async () => {
      const answer = (await appInfo(page, target.kind)) as { ok?: boolean; value?: { version?: string; host?: string }; error?: { message?: string } };
      assert(answer?.ok === true, `app:info failed: ${answer?.error?.message ?? JSON.stringify(answer)}`);
      const expectedHost = target.kind === 'electron' ? 'electron' : 'browser';
      assert(answer.value?.host === expectedHost, `app:info says host ${answer.value?.host}, expected ${expectedHost}`);
      return `version ${answer.value?.version}, host ${answer.value?.host}`;
    }),
  );

  results.push(
    await check('csp-is-built-in', async () => {
      const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      const builtIn = buildCsp({ meta: true });
      assert(meta === builtIn, `the <meta> CSP is ${JSON.stringify(meta)}, expected ${JSON.stringify(builtIn)}`);
      const headers = await target.documentHeaders();
      assert(headers, 'the document response was not observed, so its CSP header could not be checked');
      const header = headers['content-security-policy'];
      assert(header === target.expectedCspHeader, `the CSP header is ${JSON.stringify(header)}, expected ${JSON.stringify(target.expectedCspHeader)}`);
      return 'the <meta> tag and the response header equal electron/shared/csp.ts';
    }),
  );

  const electron = target.electron;
  results.push(
    electron
      ? await check('devtools-closed', async () => {
          assert(!(await electron.devToolsOpen()), 'DevTools are open');
          return 'no DevTools window or panel';
        })
      : notApplicable('devtools-closed', 'Electron only: a browser tab has no app DevTools to check'),
  );

  results.push(
    electron
      ? await check('window-bounds-restored', async () => {
          const restored = await electron.restartWithBounds(MOVED_BOUNDS);
          page = electron.page();
          const off = Math.max(
            Math.abs(restored.x - MOVED_BOUNDS.x),
            Math.abs(restored.y - MOVED_BOUNDS.y),
            Math.abs(restored.width - MOVED_BOUNDS.width),
            Math.abs(restored.height - MOVED_BOUNDS.height),
          );
          assert(off <= BOUNDS_TOLERANCE_PX, `second start opened at ${JSON.stringify(restored)}, saved ${JSON.stringify(MOVED_BOUNDS)}`);
          return `saved ${JSON.stringify(MOVED_BOUNDS)}, restored ${JSON.stringify(restored)}`;
        })
      : notApplicable('window-bounds-restored', 'Electron only: the browser host has no app window of its own'),
  );

  results.push(
    await check('quits-within-10s', async () => {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running after ${QUIT_LIMIT_MS} ms`)), QUIT_LIMIT_MS);
      });
      try {
        await Promise.race([target.quit(), limit]);
      } finally {
        clearTimeout(timer);
      }
      return `exited in ${Date.now() - started} ms`;
    }),
  );
  return results;
}

/** One line per check, for logs and the GitHub job summary. */
export function formatSmoke(results: readonly SmokeCheck[]): string {
  return results.map((r) => `${r.outcome === 'pass' ? 'PASS' : r.outcome === 'fail' ? 'FAIL' : 'N/A '} ${r.name}: ${r.detail}`).join('\n');
}
