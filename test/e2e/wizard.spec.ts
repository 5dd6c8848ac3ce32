import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { freePort } from '../support/helpers';
import { makeVenv, SAMPLE_AGENT_DIR } from '../support/python-env';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// Issue 16's "done when", as a new user drives it in Chromium through the browser host: the debug
// LLM, a scaffolded project (the sample agent), its dataset and episode tests, the generated
// scripts, a debug episode on the dry run (reward and LLM calls), then the test bed's SSH server
// with a swarm profile of the fake swarm image (TEST DOUBLE of AgentJet's server), the debug episode
// there through the tunnel, training (global_step advances, the reward chart draws), stop; and the
// wizard resuming at the same step after the backend restarts. The Python side is the ajet stub
// (TEST DOUBLE of AgentJet's client), the LLM the fake LLM; everything else is real.
const KEY = 'sk-e2e-wizard-key-5d1c0a9e7b3f2468';
const MODEL_PATH = '/models/Qwen2.5-0.5B-Instruct';
const SLOW = 120_000;

describe('the guided wizard end to end (Chromium + browser host + real Python, dockerd and sshd)', () => {
  const testbed = loadTestbed();
  let dataDir: string;
  let projectDir: string;
  let modelDir: string;
  let llm: FakeLlm;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  let shot = 0;

  async function screenshot(name: string): Promise<void> {
    shot += 1;
    await saveScreenshot(page, `wizard-${String(shot).padStart(2, '0')}-${name}`);
  }

  async function step(name: string): Promise<Locator> {
    await page.getByRole('button', { name, exact: true }).click();
    return page.getByRole('main');
  }

  beforeAll(async () => {
    requireBuiltRenderer();
    // The stub's waits (claim retries, polling) shortened: the protocol stays the same.
    process.env.AJET_STUB_TIME_SCALE = '0.05';
    dataDir = await mkdtemp(join(tmpdir(), 'aswz-data-'));
    projectDir = await mkdtemp(join(tmpdir(), 'aswz-project-'));
    await cp(SAMPLE_AGENT_DIR, projectDir, { recursive: true });
    await makeVenv(projectDir, { ajet: true });
    // The model folder the profile mounts, on the SSH server (this machine): readable by its user.
    modelDir = await mkdtemp(join(tmpdir(), 'aswz-model-'));
    await writeFile(join(modelDir, 'config.json'), '{"architectures":["Qwen2ForCausalLM"]}');
    await chmod(modelDir, 0o755);
    // The profile's log / experiments / checkpoints folders, writable by the SSH server's user (the
    // default ~/swarm* may have been created by Docker as root by an earlier test on this bed).
    for (const name of ['log', 'exp', 'ckpt']) {
      await mkdir(join(modelDir, name));
      await chmod(join(modelDir, name), 0o777);
    }
    llm = await startFakeLlm({ requireKey: KEY });
    app = await startTestApp({ dataDir, staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
  });

  afterEach(async (context) => {
    if (page) await saveScreenshot(page, `wizard-end-${context.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    await llm?.close();
    delete process.env.AJET_STUB_TIME_SCALE;
    for (const dir of [dataDir, projectDir, modelDir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('takes a new user from the debug LLM to a debug episode on the dry run', async () => {
    // A vault for this session only, set up in Settings (the wizard's own inline set-up is getting-started.spec's).
    await page.getByTestId('nav-settings').click();
    const vault = page.getByTestId('vault-section');
    await vault.getByTestId('vault-setup-choice-session').check();
    await vault.getByTestId('vault-setup-submit').click();
    await expect.poll(() => vault.getByTestId('vault-status-text').textContent(), { timeout: 30_000 }).toBe('Unlocked');

    // Step 0: the debug LLM. No endpoint yet: its fields show at once, and one press saves and tests it.
    await page.getByTestId('nav-wizard').click();
    let main = await step('Debug LLM');
    const add = main.getByTestId('wizard-llm-new');
    await add.getByTestId('secret-form-name').fill('Fake LLM');
    await add.getByTestId('secret-form-base-url').fill(llm.url);
    await add.getByTestId('secret-form-model').fill('fake-debug-model');
    await add.getByTestId('secret-form-value').fill(KEY);
    await main.getByTestId('wizard-llm-save-test').click();
    await expect.poll(() => page.getByTestId('wizard-step-llm').getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    await screenshot('llm');

    // Step 1: scaffold the two scripts into the sample agent's project, test the dataset and one episode.
    main = await step('Agent project');
    await main.getByRole('textbox', { name: 'Project folder (absolute path)' }).fill(projectDir);
    await main.getByRole('radio', { name: /agent.s own score/ }).check();
    await main.getByRole('textbox', { name: /Command that runs your agent/ }).fill('{python} agent.py --item {item_id}');
    await main.getByRole('button', { name: 'Create the scripts' }).click();
    const interpreter = main.getByRole('combobox', { name: 'Python interpreter' });
    await expect.poll(async () => (await interpreter.inputValue()).endsWith('/.venv/bin/python'), { timeout: 30_000 }).toBe(true);
    await main.getByRole('button', { name: 'Use this interpreter' }).click();
    await main.getByRole('button', { name: 'Test dataset' }).click();
    await expect.poll(() => main.getByTestId('wizard-dataset-count').textContent(), { timeout: SLOW }).toContain('4 items');
    await main.getByRole('combobox', { name: 'Item to run' }).selectOption({ index: 0 });
    await main.getByRole('button', { name: 'Test episode' }).click();
    await expect.poll(() => main.getByTestId('wizard-episode-result').textContent(), { timeout: SLOW }).toMatch(/Reward [01]/);
    await expect.poll(() => page.getByTestId('wizard-step-project').getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    await screenshot('project');

    // Step 2: the training code, previewed, generated and checked with py_compile.
    main = await step('Training code');
    await main.getByLabel('Model path inside the container', { exact: true }).fill(MODEL_PATH);
    await main.getByLabel('Batch size', { exact: true }).fill('2');
    await main.getByLabel('GRPO group size', { exact: true }).fill('2');
    await main.getByRole('button', { name: 'Preview the files' }).click();
    await main.getByRole('button', { name: 'Generate the files' }).click();
    await expect.poll(() => main.getByTestId('wizard-code-result').textContent(), { timeout: SLOW }).toContain('agent_roll.py');
    await screenshot('code');

    // Step 3: the dry run on this computer.
    main = await step('Swarm server');
    await main.getByRole('radio', { name: 'This computer (dry run, no GPU)' }).check();
    await main.getByRole('button', { name: 'Start the swarm server' }).click();
    await expect.poll(() => main.getByTestId('wizard-swarm-state').textContent(), { timeout: SLOW }).toContain('Ready');
    expect(await main.getByTestId('wizard-swarm-url').textContent()).toMatch(/http:\/\/127\.0\.0\.1:\d+/);
    await screenshot('swarm-dry-run');

    // Step 4: one debug episode against the dry run: its reward and the LLM calls it made.
    main = await step('Debug episode');
    await main.getByRole('button', { name: 'Run the debug episode' }).click();
    await expect.poll(() => main.getByTestId('wizard-debug-result').textContent(), { timeout: SLOW }).toMatch(/Passed: reward/);
    await expect.poll(async () => (await main.getByTestId('wizard-debug-calls').textContent()) ?? '', { timeout: 30_000 }).toContain('fake-debug-model');
    // The episode's calls reached the debug LLM with the stored key.
    expect(llm.calls.some((call) => call.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    await expect.poll(() => page.getByTestId('wizard-step-debug').getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    await screenshot('debug-dry-run');
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('moves to the SSH server: trusts its key, starts the fake swarm there, debugs through the tunnel, trains and stops', async () => {
    const tunnelPort = await freePort();
    const swarmPort = await freePort();
    const label = 'Fake swarm on testbed';
    // The dry run offers the GPU server next.
    await page.getByRole('button', { name: 'Choose a GPU server' }).click();

    // Servers: add the test bed's sshd, trust its host key, make a swarm profile on it.
    await page.getByTestId('nav-servers').click();
    await page.getByTestId('server-add').click();
    const dialog = page.getByTestId('server-dialog');
    await dialog.getByTestId('server-form-label').fill('testbed');
    await dialog.getByTestId('server-form-host').fill(testbed.ssh.host);
    await dialog.getByTestId('server-form-port').fill(String(testbed.ssh.port));
    await dialog.getByTestId('server-form-username').fill(testbed.ssh.user);
    for (const method of ['agent', 'password', 'keyboard-interactive']) await dialog.getByTestId(`server-form-auth-${method}`).setChecked(false);
    await dialog.getByTestId('server-form-identity-files').fill(testbed.ssh.plainKeyPath);
    await dialog.getByTestId('server-form-identities-only').setChecked(true);
    await dialog.getByTestId('server-form-tunnel-port').fill(String(tunnelPort));
    await dialog.getByTestId('server-form-submit').click();
    const hostKey = page.getByTestId('host-key-dialog');
    await hostKey.waitFor({ timeout: 30_000 });
    expect((await hostKey.getByTestId('host-key-fingerprint').textContent())?.trim()).toBe(testbed.ssh.hostKeyFingerprint);
    await hostKey.getByTestId('host-key-trust').click();
    // Connected: up, or degraded by a tunnel to another file's swarm server still starting on the shared dockerd
    // (npm test runs them side by side: scripts/test-lanes.mjs).
    await page.locator('[data-testid="server-card"]:is([data-state="up"], [data-state="degraded"])').waitFor({ timeout: 60_000 });
    await screenshot('ssh-server');

    const section = page.getByTestId('server-section');
    await section.getByTestId('profile-new').click();
    const form = page.getByTestId('profile-form');
    await form.getByTestId('profile-form-label').fill(label);
    await form.getByTestId('profile-form-image').fill(testbed.fakeSwarmImage);
    await form.getByTestId('profile-form-port').fill(String(swarmPort));
    await form.getByTestId('profile-form-network-host').check();
    await form.getByTestId('profile-form-gpus-none').check();
    await form.getByTestId('profile-form-shm-gb').fill('1');
    await form.getByTestId('profile-form-model-host').fill(modelDir);
    await form.getByTestId('profile-form-model-container').fill(MODEL_PATH);
    await form.getByTestId('profile-form-logDir').fill(join(modelDir, 'log'));
    await form.getByTestId('profile-form-experimentsDir').fill(join(modelDir, 'exp'));
    await form.getByTestId('profile-form-checkpointsDir').fill(join(modelDir, 'ckpt'));
    await form.getByTestId('profile-form-env-add').click();
    await form.getByTestId('profile-form-env-name').last().fill('AJET_FAKE_BOOT_DELAY_MS');
    await form.getByTestId('profile-form-env-value').last().fill('300');
    await form.getByTestId('profile-form-submit').click();
    await page.getByTestId('profile-card').filter({ hasText: label }).waitFor();
    await screenshot('ssh-profile');

    // Step 3 again: the profile on the SSH server; the wizard runs the doctor, starts it, brings the tunnel up.
    await page.getByTestId('nav-wizard').click();
    let main = await step('Swarm server');
    await main.getByRole('radio', { name: 'A swarm profile' }).check();
    const profile = main.getByRole('combobox', { name: 'Profile' });
    const option = await profile.locator('option', { hasText: label }).getAttribute('value');
    await profile.selectOption(option ?? '');
    await main.getByRole('button', { name: 'Start the swarm server' }).click();
    // Done for THIS choice (the dry run was ready a moment ago): the step's fact names the profile.
    await expect.poll(async () => (await page.getByTestId('wizard-step-swarm-about').textContent()) ?? '', { timeout: SLOW }).toContain(label);
    await expect.poll(() => main.getByTestId('wizard-swarm-state').textContent(), { timeout: SLOW }).toContain('Ready');
    const url = (await main.getByTestId('wizard-swarm-url').textContent())?.trim() ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toContain(String(swarmPort));
    await screenshot('swarm-ssh');

    // Step 4 again: the same scripts, through the tunnel.
    main = await step('Debug episode');
    await main.getByRole('button', { name: /Run the debug episode|Run again/ }).click();
    await expect.poll(() => main.getByTestId('wizard-debug-result').textContent(), { timeout: SLOW }).toMatch(/Passed: reward/);
    await expect.poll(() => page.getByTestId('wizard-step-debug').getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    expect(await page.getByTestId('wizard-step-debug-about').textContent()).toContain(label);
    await screenshot('debug-ssh');

    // Step 5: train; global_step advances and the reward chart draws; stop.
    main = await step('Train');
    await main.getByRole('button', { name: 'Start training' }).click();
    const dashboard = main.getByTestId('training-dashboard');
    await dashboard.waitFor({ timeout: 30_000 });
    await expect.poll(async () => Number((await dashboard.getByTestId('training-step').textContent())?.trim()), { timeout: SLOW }).toBeGreaterThanOrEqual(1);
    const chart = dashboard.getByTestId('reward-chart');
    await expect.poll(async () => ((await chart.getAttribute('data-steps')) ?? '').length, { timeout: SLOW }).toBeGreaterThan(0);
    // uPlot drew on a real canvas.
    await chart.locator('canvas').first().waitFor({ timeout: 30_000 });
    expect(await chart.locator('canvas').first().evaluate((c: HTMLCanvasElement) => c.width > 0 && c.height > 0)).toBe(true);
    await screenshot('train');
    await main.getByRole('button', { name: 'Stop training' }).click();
    await expect.poll(() => main.getByTestId('wizard-job-state').textContent(), { timeout: 60_000 }).toMatch(/cancelled/i);
    await screenshot('train-stopped');
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('resumes at the same step after the backend restarts', async () => {
    const current = await page.locator('[data-testid^="wizard-step-"][aria-current="step"]').getAttribute('data-testid');
    await app.stop();
    app = await startTestApp({ dataDir, staticDir: rendererDir, monitorIntervalMs: 300 });
    await page.goto(app.host!.openUrl);
    await page.getByTestId('nav-wizard').click();
    await expect.poll(() => page.locator('[data-testid^="wizard-step-"][aria-current="step"]').getAttribute('data-testid'), { timeout: 30_000 }).toBe(current);
    for (const id of ['llm', 'project', 'code', 'debug']) {
      expect(await page.getByTestId(`wizard-step-${id}`).getAttribute('data-status')).toBe('done');
    }
    await screenshot('resumed');
  });
});
