import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, startRequest } from '../integration/support/jobs-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';
import { formatViolations, runAxe } from './axe';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// Chromium against the browser host and the real job runner: real Python runs small scripts
// written here (a crash, a long-running one, one that reports its reward), and the Jobs page shows
// them live: the history, a run's summary with its traceback, its log, Cancel, Run again, and the
// log file's path (the browser host cannot open files).
const CRASH = ['print("loading items")', 'def load():', '    return {}["id"]', 'load()'].join('\n');
const SLOW = ['import sys, time', 'for i in range(600):', '    print("tick", i, flush=True)', '    if i % 7 == 0: print("careful", i, file=sys.stderr, flush=True)', '    time.sleep(0.05)'].join('\n');
const REWARD = ['import json', 'for i in range(40): print("step", i)', 'print("AGENTSWARM_RESULT " + json.dumps({"reward": 0.75}))'].join('\n');

describe('Jobs page end to end (Chromium + browser host + real Python)', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let project: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    project = await makeProject({ 'crash.py': CRASH, 'slow.py': SLOW, 'reward.py': REWARD });
    // The Jobs page needs no engine: a Docker socket that is not there keeps the shared dockerd's containers (npm test
    // runs this file beside the integration files) off its pages.
    app = await startTestApp({ staticDir: rendererDir, dockerHost: 'unix:///nonexistent/docker.sock' });
    browser = await launchChromium();
  });

  afterAll(async () => {
    if (page) await saveScreenshot(page, 'jobs-page');
    await browser?.close();
    await app?.dispose();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('lists runs live, shows a crash with its traceback and log, cancels a running run, runs one again and shows the log path', async () => {
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
    await page.getByTestId('nav-jobs').click();
    // No runs yet: the page says what creates them.
    await page.getByTestId('jobs-empty').waitFor();

    const crash = await app.handlers['jobs:start'](startRequest({ cwd: project, script: 'crash.py', label: 'Crashing script' }));
    const reward = await app.handlers['jobs:start'](startRequest({ cwd: project, script: 'reward.py', label: 'Reward script' }));
    const rows = page.getByTestId('job-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    await page.locator(`[data-testid="job-row"][data-job-id="${crash.id}"] [data-testid="job-state"]`).filter({ hasText: 'Failed' }).waitFor({ timeout: 15_000 });
    await page.locator(`[data-testid="job-row"][data-job-id="${reward.id}"] [data-testid="job-row-reward"]`).filter({ hasText: '0.75' }).waitFor({ timeout: 15_000 });

    // The crash in detail: the exception, file and line, and the log with the traceback on stderr.
    await page.getByRole('button', { name: 'Crashing script' }).click();
    const detail = page.getByTestId('job-detail');
    const where = detail.getByTestId('job-traceback');
    await where.waitFor();
    expect(await where.textContent()).toContain('KeyError');
    expect(await where.textContent()).toContain('crash.py, line 3');
    const log = detail.getByRole('region', { name: 'Log of Crashing script' });
    await log.locator('[data-testid="job-log-line"][data-stream="err"]').first().waitFor();
    expect(await log.locator('[data-testid="job-log-line"][data-stream="out"]').first().textContent()).toContain('loading items');

    // In the browser host the log cannot be opened: its path is shown to copy.
    await detail.getByRole('button', { name: 'Open the log' }).click();
    const unavailable = detail.getByTestId('job-log-unavailable');
    await unavailable.waitFor();
    expect(await unavailable.getByRole('textbox', { name: 'Log file' }).inputValue()).toBe(crash.logFile);
    await saveScreenshot(page, 'jobs-page-crash');

    // A long run: the log follows, Cancel ends it (SIGINT first).
    const slow = await app.handlers['jobs:start'](startRequest({ cwd: project, script: 'slow.py', label: 'Slow script' }));
    await page.getByRole('button', { name: 'Slow script' }).click();
    await expect.poll(() => detail.getAttribute('data-job-id')).toBe(slow.id);
    const slowLog = detail.getByRole('region', { name: 'Log of Slow script' });
    await expect.poll(() => slowLog.locator('[data-testid="job-log-line"]').count(), { timeout: 15_000 }).toBeGreaterThan(20);
    const followed = await slowLog.getByTestId('job-log-lines').evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 18);
    expect(followed).toBe(true);
    await saveScreenshot(page, 'jobs-page-running');
    expect(formatViolations('Jobs page with a running run', await runAxe(page))).toBe('Jobs page with a running run: no violations');
    await detail.getByRole('button', { name: 'Cancel' }).click();
    await detail.getByTestId('job-state').filter({ hasText: 'Cancelled' }).waitFor({ timeout: 20_000 });

    // Run again: a new run, selected.
    await detail.getByRole('button', { name: 'Run again' }).click();
    await expect.poll(async () => (await detail.getAttribute('data-job-id')) !== slow.id, { timeout: 15_000 }).toBe(true);
    await detail.getByTestId('job-state').filter({ hasText: 'Running' }).waitFor({ timeout: 15_000 });
    expect(await rows.first().getAttribute('data-job-id')).toBe(await detail.getAttribute('data-job-id'));
    expect(await rows.count()).toBe(4);
    await detail.getByRole('button', { name: 'Cancel' }).click();
    await detail.getByTestId('job-state').filter({ hasText: 'Cancelled' }).waitFor({ timeout: 20_000 });
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
