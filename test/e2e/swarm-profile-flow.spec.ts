import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestbed } from '../testbed/testbed';
import { freePort } from '../support/helpers';
import { smallJobYaml, SwarmTestClient } from '../support/swarm-test-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

const MODEL_PATH = '/models/Qwen2.5-0.5B-Instruct';

// Issue 13's "done when", as a user drives it: make a profile, run the doctor, pull with a progress
// bar, start with one click, watch the states and the reward chart move, search the logs. Chromium,
// the browser host, the real services and dockerd, the local registry; the only test double is the
// fake swarm image (AgentJet's server) and this test playing AgentJet's client.
describe('swarm profile end to end: profile → doctor → pull → start → dashboard → logs', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  // The fake image under a repository of this test's own that exists only in the registry (pushed again,
  // same content, each run; removed from the engine), so the doctor finds it missing and Pull fetches it.
  // Its own repository: the test bed's fake-swarm repository keeps exactly its one tag.
  const image = `${testbed.registry}/agentswarm-test/e2e-profile-flow:1`;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let dir: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-e2e-profile-'));
    await writeFile(join(dir, 'config.json'), '{"architectures":["Qwen2ForCausalLM"]}');
    execFileSync('docker', ['tag', testbed.fakeSwarmImage, image], { stdio: 'pipe' });
    execFileSync('docker', ['push', image], { stdio: 'pipe' });
    await docker.getImage(image).remove();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
  });

  afterAll(async () => {
    if (page) await saveScreenshot(page, 'swarm-profile-flow-end');
    await browser?.close();
    await app?.dispose();
    await docker.getImage(image).remove({ force: true }).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs the whole training day from the Servers page', async () => {
    const port = await freePort();
    const label = `E2E ${randomBytes(3).toString('hex')}`;
    await page.getByTestId('nav-servers').click();
    const list = page.locator('[data-testid="profile-list"][data-engine-id="local"]');
    await list.getByTestId('profile-new').click();

    const form = page.getByTestId('profile-form');
    await form.getByTestId('profile-form-label').fill(label);
    await form.getByTestId('profile-form-image').fill(image);
    await form.getByTestId('profile-form-port').fill(String(port));
    await form.getByTestId('profile-form-network-host').check();
    await form.getByTestId('profile-form-gpus-none').check();
    await form.getByTestId('profile-form-shm-gb').fill('1');
    await form.getByTestId('profile-form-model-host').fill(dir);
    await form.getByTestId('profile-form-model-container').fill(MODEL_PATH);
    // A short boot, so the dashboard moves within the test (an env knob of the fake, set like any env).
    await form.getByTestId('profile-form-env-add').click();
    await form.getByTestId('profile-form-env-name').last().fill('AJET_FAKE_BOOT_DELAY_MS');
    await form.getByTestId('profile-form-env-value').last().fill('300');
    // And a 1 s training step instead of the fake's 8 s (the default is for SwarmClient's 5 s poll; this test plays the
    // client itself): the two steps below waited 16 s for it.
    await form.getByTestId('profile-form-env-add').click();
    await form.getByTestId('profile-form-env-name').last().fill('AJET_FAKE_WEIGHT_SYNC_DELAY_MS');
    await form.getByTestId('profile-form-env-value').last().fill('1000');
    await form.getByTestId('profile-form-submit').click();

    const card = page.getByTestId('profile-card').filter({ hasText: label });
    await card.waitFor();

    // Doctor: the image is only in the registry → its check fails, and the card offers Pull.
    await card.getByTestId('profile-doctor').click();
    await card.locator('[data-testid="doctor-panel"][data-verdict="fail"]').waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await card.getByTestId('doctor-check-image').textContent()) ?? '').toMatch(/not|missing|pull/i);
    await saveScreenshot(page, 'swarm-profile-doctor-image-missing');

    // Pull with a progress bar, to done.
    await card.getByTestId('profile-pull').click();
    const pull = card.getByTestId('pull-progress');
    await pull.waitFor({ timeout: 15_000 });
    await card.locator('[data-testid="pull-progress"][data-phase="done"]').waitFor({ timeout: 60_000 });
    expect(await card.getByTestId('pull-bar').getAttribute('value')).toBe('100');
    expect(await docker.getImage(image).inspect()).toMatchObject({ RepoTags: expect.arrayContaining([image]) });

    // Start with one click (the doctor runs again first and passes, with warnings at most).
    await card.getByTestId('profile-start').click();
    await card.getByTestId('profile-engine-status').filter({ hasText: 'ENGINE.OFFLINE' }).waitFor({ timeout: 30_000 });
    expect(await card.getAttribute('data-state')).toBe('running');
    await saveScreenshot(page, 'swarm-profile-running');

    // Training: a client syncs a small job and starts the engine; the dashboard walks with it.
    const client = new SwarmTestClient(`http://127.0.0.1:${port}`);
    expect(await client.post('/sync_train_config', { yaml_as_string: smallJobYaml(MODEL_PATH) })).toEqual({ success: true });
    expect(await client.post('/start_engine')).toMatchObject({ success: true });
    await card.getByTestId('profile-tab-training').click();
    const dashboard = card.getByTestId('training-dashboard');
    await dashboard.locator('[data-testid="training-status"][data-status="ENGINE.ROLLING"]').waitFor({ timeout: 30_000 });
    for (let round = 0; round < 2; round += 1) {
      const step = (await client.step()) ?? 0;
      const a = await client.claim();
      const b = await client.claim();
      await client.end(a, `task-${step}`, 0);
      await client.end(b, `task-${step}`, 1);
      await expect.poll(async () => (await dashboard.getByTestId('training-step').textContent())?.trim(), { timeout: 30_000 }).toBe(String(step + 1));
    }
    // The reward chart has one point per finished step.
    const chartSteps = async () => ((await dashboard.getByTestId('reward-chart').getAttribute('data-steps')) ?? '').split(',').filter((s) => s !== '');
    await expect.poll(chartSteps, { timeout: 15_000 }).toEqual(expect.arrayContaining(['1', '2']));
    // Each step had rewards 0 and 1: the chart's mean is 0.5.
    expect(((await dashboard.getByTestId('reward-chart').getAttribute('data-means')) ?? '').split(',')[0]).toBe('0.5');
    await saveScreenshot(page, 'swarm-profile-dashboard');

    // Logs: searchable.
    await card.getByTestId('profile-tab-logs').click();
    const logs = card.getByTestId('logs-panel');
    await logs.getByTestId('logs-search').fill('Interchange server is running');
    await expect.poll(async () => (await logs.getByTestId('logs-count').textContent()) ?? '', { timeout: 15_000 }).toMatch(/^\s*[1-9]\d* of \d+ lines match/);
    await logs.getByTestId('log-row').first().waitFor();
    expect(await logs.getByTestId('log-row').first().textContent()).toContain('Interchange server is running');
    await saveScreenshot(page, 'swarm-profile-logs-search');

    // Stop (it warns first), then remove the profile.
    await card.getByTestId('profile-stop').click();
    await card.getByTestId('profile-confirm-yes').click();
    await expect.poll(async () => card.getAttribute('data-state'), { timeout: 30_000 }).toBe('exited');
    await card.getByTestId('profile-remove').click();
    await card.getByTestId('profile-confirm-yes').click();
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    expect(pageErrors).toEqual([]);
  });
});
