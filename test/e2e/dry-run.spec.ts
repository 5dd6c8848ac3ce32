import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { startTestApp, type TestApp } from '../support/test-app';
import { launchChromium, openAppPage, rendererDir, repoRoot, requireBuiltRenderer, saveScreenshot, showServer } from './browser';

const run = promisify(execFile);
const AGENT = join(repoRoot, 'test', 'fixtures', 'dry-run-agent', 'agent.mjs');
const KEY = 'sk-e2e-dry-run-key-0123456789abcdef';

// Chromium against the browser host: a user without a GPU starts the dry run from the Servers
// page, points a small agent script at the URL the card shows, and watches the same dashboard as
// for a GPU server advance two steps, then opens an episode's trace. LLM calls go through the
// dry run's relay to the TEST DOUBLE fake LLM on 127.0.0.1.
describe('dry run end to end (Chromium + browser host)', () => {
  let app: TestApp;
  let llm: FakeLlm;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    llm = await startFakeLlm({ requireKey: KEY });
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 150 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    if (page) await saveScreenshot(page, 'dry-run');
    await browser?.close();
    await app?.dispose();
    await llm?.close();
  });

  it('starts from the Servers page, runs two steps of a script through the relay, shows the dashboard and an episode trace', async () => {
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
    // The dry run is a row of the Servers page's list (issue 32).
    await showServer(page, 'dry-run');
    const card = page.getByTestId('dryrun-card');
    await card.getByTestId('dryrun-badge').filter({ hasText: 'dry run: no weights change' }).waitFor({ timeout: 30_000 });

    await card.getByTestId('dryrun-base-url').fill(llm.url);
    await card.getByTestId('dryrun-model').fill('fake-debug-model');
    await card.getByTestId('dryrun-key-session').check();
    await card.getByTestId('dryrun-session-key').fill(KEY);
    await card.getByTestId('dryrun-boot-delay').fill('0.5');
    // Short simulated training steps: this test does not test the poll-period default (the conformance suite does).
    await card.getByTestId('dryrun-training-step').fill('0.3');
    await card.getByTestId('dryrun-start').click();

    const envLine = card.getByTestId('dryrun-env-line');
    await envLine.waitFor({ timeout: 15_000 });
    const env = (await envLine.textContent())!.trim();
    expect(env).toMatch(/^AJET_SWARM_URL=http:\/\/127\.0\.0\.1:\d+$/);
    const swarmUrl = env.slice('AJET_SWARM_URL='.length);
    expect(await page.content()).not.toContain(KEY);

    // The same monitor row and dashboard as a real server, waiting for a client.
    const monitor = card.getByTestId('dryrun-monitor');
    await monitor.getByTestId('swarm-connection').filter({ hasText: 'online' }).waitFor({ timeout: 15_000 });
    const dashboard = monitor.getByTestId('training-dashboard');
    await dashboard.getByTestId('training-help').filter({ hasText: 'Waiting for a client to sync a config' }).waitFor({ timeout: 15_000 });

    // The user's script, pointed at the URL the card showed.
    const { stdout } = await run(process.execPath, [AGENT, '2'], { env: { ...process.env, AJET_SWARM_URL: swarmUrl }, timeout: 60_000 });
    expect(stdout.trim().split('\n')).toHaveLength(2);
    expect(llm.calls.filter((c) => c.path === '/v1/chat/completions')).toHaveLength(4);

    // The dashboard advanced two steps; the chart says what its rewards are.
    await dashboard.getByTestId('training-status').filter({ hasText: 'ROLLING' }).waitFor({ timeout: 15_000 });
    const chart = dashboard.getByTestId('reward-chart');
    await expect.poll(async () => (await chart.getAttribute('data-steps'))?.split(',').filter(Boolean).length ?? 0, { timeout: 15_000 }).toBe(2);
    expect(await chart.getByTestId('reward-baseline').textContent()).toContain('debug LLM baseline — nothing is trained');
    await expect.poll(async () => Number((await dashboard.getByTestId('training-step').textContent())?.trim()), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    await expect.poll(async () => card.getByTestId('dryrun-spend-calls').textContent(), { timeout: 10_000 }).toContain('LLM calls: 4 of');

    // The trace view: four ended episodes (the next step's registered ones wait above them), one
    // opened with its LLM call.
    const traces = card.getByTestId('dryrun-traces');
    const ended = traces.locator('[data-testid="dryrun-episode-row"][data-state="ended"]');
    await expect.poll(async () => ended.count(), { timeout: 10_000 }).toBe(4);
    await traces.getByTestId('dryrun-filter-task').selectOption('task-1');
    await expect.poll(async () => traces.getByTestId('dryrun-episode-row').count(), { timeout: 10_000 }).toBe(2);
    expect(await ended.count()).toBe(2);
    await ended.first().getByTestId('dryrun-episode-open').click();
    const episode = traces.getByTestId('dryrun-episode');
    await episode.waitFor({ timeout: 10_000 });
    expect(await episode.getByTestId('dryrun-episode-facts').textContent()).toMatch(/task task-1 · ended · reward (0\.3|0\.9)/);
    const call = episode.getByTestId('dryrun-call');
    expect(await call.textContent()).toContain('chat · HTTP 200');
    await call.getByText('Request (what the agent sent)').click();
    expect(await call.getByTestId('dryrun-call-request').textContent()).toContain('solve task-1');
    // What the trained model receives: upstream's default system message first (the agent sent none).
    await call.getByText('What the trained model receives', { exact: false }).click();
    expect(await call.getByTestId('dryrun-call-model-request').textContent()).toContain('You are a helpful assistant, your name is AgentJet.');
    expect(await call.getByTestId('dryrun-call-response').textContent()).toContain('fake answer to: solve task-1');
    expect(await page.content()).not.toContain(KEY);

    await card.getByTestId('dryrun-stop').click();
    await card.getByTestId('dryrun-state').filter({ hasText: 'Stopped' }).waitFor({ timeout: 15_000 });
    await card.getByTestId('dryrun-start-form').waitFor();
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
