import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { loadTestbed } from '../testbed/testbed';
import { freePort, poll, waitForEvent } from '../support/helpers';
import { SwarmTestClient, smallJobYaml } from '../support/swarm-test-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot, showServer } from './browser';

// Chromium against the browser host (the app's CSP applies), a profile's container of the fake swarm
// image (a TEST DOUBLE of the server) driven through training steps: the dashboard's states, bars
// and the uPlot chart on a real canvas.
describe('training dashboard end to end (Chromium + browser host + real Docker)', () => {
  const testbed = loadTestbed();
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 150 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    if (page) await saveScreenshot(page, 'training-dashboard');
    await browser?.close();
    await app?.dispose();
  });

  async function playStep(client: SwarmTestClient): Promise<void> {
    const a = await client.claim();
    const step = (await client.step()) as number;
    const b = await client.claim();
    await client.end(a, `task-${step}`, step * 0.1);
    await client.end(b, `task-${step}`, step * 0.1 + 0.5);
    await waitForEvent(app.hub, 'training:changed', (v) => v.globalStep === step + 1, 15_000);
  }

  it('shows OFFLINE help, then the states, fill bars and a drawn reward chart as steps complete', async () => {
    const port = await freePort();
    // A 1.5 s training step (the fake's default is 8 s): long enough for the 150 ms status poll to see WEIGHT_SYNCING
    // and for the pool poll to see each complete batch, short enough to keep this test small.
    const input = ProfileInput.parse({
      label: 'Fake trainer',
      engineId: 'local',
      image: testbed.fakeSwarmImage,
      port,
      networkMode: 'host',
      gpus: { mode: 'none' },
      shm: { mode: 'size', gb: 1 },
      env: [{ name: 'AJET_FAKE_WEIGHT_SYNC_DELAY_MS', value: '1500' }],
    });
    const { profile } = await app.handlers['profiles:add'](input);
    const started = await app.handlers['profiles:start']({ profileId: profile.id, secrets: {}, skipDoctor: true, replaceDrifted: false });
    expect(started.runtime.container?.state).toBe('running');

    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
    const dashboard = page.getByTestId('training-dashboard');
    await dashboard.getByTestId('training-help').filter({ hasText: 'Waiting for a client to sync a config' }).waitFor({ timeout: 30_000 });

    const client = new SwarmTestClient(`http://127.0.0.1:${port}`);
    await client.post('/sync_train_config', { yaml_as_string: smallJobYaml('/models/fake') });
    await client.post('/start_engine');
    await dashboard.getByTestId('training-status').filter({ hasText: 'ROLLING' }).waitFor({ timeout: 30_000 });
    await expect.poll(async () => dashboard.getByRole('progressbar').count()).toBe(3);

    await playStep(client);
    await playStep(client);
    await playStep(client);
    const chart = dashboard.getByTestId('reward-chart');
    await expect.poll(async () => chart.getAttribute('data-steps'), { timeout: 15_000 }).toBe('1,2,3');
    // uPlot drew on a canvas under the app's CSP (no inline <style>, no eval).
    await chart.locator('canvas').waitFor({ timeout: 15_000 });
    const drawn = await chart.locator('canvas').evaluate((canvas: HTMLCanvasElement) => canvas.width > 0 && canvas.height > 0);
    expect(drawn).toBe(true);
    await expect.poll(async () => (await dashboard.getByTestId('training-step').textContent())?.trim()).toBe('4');
    const timeline = dashboard.getByTestId('training-timeline');
    expect(await timeline.textContent()).toContain('WEIGHT_SYNCING');
    // Every step with its episodes, from the last pool snapshot before the step changed; whole-step ticks.
    expect(await stepRows(dashboard)).toEqual([
      ['3', 'pool', '2'],
      ['2', 'pool', '2'],
      ['1', 'pool', '2'],
    ]);
    expect(await chart.getAttribute('data-ticks')).toBe('1,2,3');
    expect(await dashboard.getByTestId('summary-tokens-per-step').textContent()).toBe('not reported by this server');
    expect(pageErrors).toEqual([]);
  });

  it('a fast dry-run trainer: 8 steps of the same batch (mean 0.5) give 8 points, each with its episode count', async () => {
    // The Servers page shows one place at a time (issue 32): the dry run's, shown before it starts.
    await showServer(page, 'dry-run');
    const port = await freePort();
    await app.handlers['dryrun:start']({
      config: { port, llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none', secretId: null }, bootDelayMs: 100, trainingStepMs: 50, spend: { maxCallsPerEpisode: 5, maxCalls: 10, maxTokens: 10_000 } },
    });
    const dashboard = page.getByTestId('dryrun-monitor').getByTestId('training-dashboard');
    await dashboard.waitFor({ timeout: 15_000 });
    const client = new SwarmTestClient(`http://127.0.0.1:${port}`);
    await client.post('/sync_train_config', { yaml_as_string: smallJobYaml('/models/fake') });
    await client.post('/start_engine');
    // No wait for the dashboard to see the run start: the first batches go in at once, and a step the dry run
    // completed before the monitor saw the run begin (or before it watched the dry run at all) is kept, exactly.
    const started = Date.now();
    for (let step = 1; step <= 8; step++) {
      // The step's batch: one task, rewards 0 and 1 — every step alike, as in the run of issue 32.
      const [a, b] = [await client.claim(), await client.claim()];
      await client.end(a, 'task-0', 0);
      await client.end(b, 'task-0', 1);
      await poll(`step ${step + 1}`, 15_000, async () => ((await client.step()) === step + 1 ? true : undefined), 20);
    }
    console.log(`[training-dashboard] 8 dry-run steps played in ${Date.now() - started} ms`);
    const chart = dashboard.getByTestId('reward-chart');
    await expect.poll(async () => chart.getAttribute('data-steps'), { timeout: 15_000 }).toBe('1,2,3,4,5,6,7,8');
    expect(await chart.getAttribute('data-means')).toBe('0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5');
    expect(await chart.getAttribute('data-ticks')).toMatch(/^\d+(,\d+)*$/);
    expect(await chart.getAttribute('data-y-range')).toBe('-0.1,1.1');
    // The dry run counts its own batch: exact, never "not observed", however fast the steps were.
    expect(await stepRows(dashboard)).toEqual(Array.from({ length: 8 }, (_, i) => [String(8 - i), 'exact', '2']));
    expect(await dashboard.getByTestId('summary-episodes-per-step').textContent()).toBe('2');
    expect(await dashboard.getByTestId('summary-failures-per-step').textContent()).toBe('0');
    // The table, always there for screen readers, is shown to everyone on the toggle (its axe audit is in the renderer tests).
    await chart.getByTestId('reward-table-toggle').click();
    await expect.poll(async () => chart.getByTestId('step-table-wrap').getAttribute('class')).not.toContain('visually-hidden');
    await app.handlers['dryrun:stop']({});
    expect(pageErrors).toEqual([]);
  });
});

/** The step table's rows as [step, how the batch was learnt, episodes], newest first. */
async function stepRows(dashboard: Locator): Promise<string[][]> {
  return dashboard.getByTestId('step-row').evaluateAll((rows) =>
    rows.map((r) => [r.getAttribute('data-step') ?? '', r.getAttribute('data-batch') ?? '', r.querySelector('[data-testid="step-episodes"]')?.textContent?.trim() ?? '']),
  );
}
