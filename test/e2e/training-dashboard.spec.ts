import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { loadTestbed } from '../testbed/testbed';
import { freePort, waitForEvent } from '../support/helpers';
import { SwarmTestClient, smallJobYaml } from '../support/swarm-test-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

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
    const input = ProfileInput.parse({ label: 'Fake trainer', engineId: 'local', image: testbed.fakeSwarmImage, port, networkMode: 'host', gpus: { mode: 'none' }, shm: { mode: 'size', gb: 1 } });
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
    expect(pageErrors).toEqual([]);
  });
});
