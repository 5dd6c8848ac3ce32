import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { freePort } from '../support/helpers';
import { makeVenv, SAMPLE_AGENT_DIR } from '../support/python-env';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { launchChromium, openAppPage, rendererDir, repoRoot, requireBuiltRenderer, saveScreenshot } from './browser';

// Issue 32's first "done when", as a new user meets the app in Chromium through the browser host: first launch
// (no server, no profile, no wizard progress) lands on the wizard, which takes them to a passing dry-run debug
// episode with no page switch and no detour — the vault set up inline, a first LLM endpoint saved and tested in
// one press, the scaffolded scripts, the generated code, the dry run — counting every click and typed field
// (at most 15 and 8). Then on to the first training step on the test bed's sshd as "the GPU server". The
// screenshots of each step are docs/images/getting-started/NN-<step>.png (docs/getting-started.md shows them).
// TEST DOUBLES: the ajet stub (AgentJet's client), the fake swarm image (AgentJet's server), the fake LLM.
const KEY = 'sk-e2e-getting-started-7c2f9a1d4b6e';
const MODEL_PATH = '/models/Qwen2.5-0.5B-Instruct';
const SLOW = 120_000;
const SHOTS = join(repoRoot, 'docs', 'images', 'getting-started');
const MAX_CLICKS = 15;
const MAX_FIELDS = 8;

describe('getting started: a new user from first launch to a dry-run debug episode, then training on an SSH server', () => {
  const testbed = loadTestbed();
  let dataDir: string;
  let projectDir: string;
  let modelDir: string;
  let llm: FakeLlm;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const counts = { clicks: 0, fields: 0 };
  let shot = 0;

  /** Every user action goes through these two, so the counts are what a person would do. */
  async function click(target: Locator): Promise<void> {
    counts.clicks += 1;
    await target.click();
  }
  async function type(target: Locator, text: string): Promise<void> {
    counts.fields += 1;
    await target.fill(text);
  }
  async function screenshot(name: string): Promise<void> {
    shot += 1;
    mkdirSync(SHOTS, { recursive: true });
    // The window as the user sees it (not the whole scrolled page): small files, the part that matters on top.
    await page.screenshot({ path: join(SHOTS, `${String(shot).padStart(2, '0')}-${name}.png`) });
  }
  const main = (): Locator => page.getByRole('main');
  const stepStatus = (id: string) => () => page.getByTestId(`wizard-step-${id}`).getAttribute('data-status');
  const next = (step: string): Locator => main().getByRole('button', { name: `Next: ${step}`, exact: true });

  beforeAll(async () => {
    requireBuiltRenderer();
    // The stub's waits (claim retries, polling) shortened: the protocol stays the same.
    process.env.AJET_STUB_TIME_SCALE = '0.05';
    dataDir = await mkdtemp(join(tmpdir(), 'asgs-data-'));
    projectDir = await mkdtemp(join(tmpdir(), 'asgs-project-'));
    await cp(SAMPLE_AGENT_DIR, projectDir, { recursive: true });
    await makeVenv(projectDir, { ajet: true });
    // The model folder the profile mounts on the SSH server (this machine), and its writable log folders.
    modelDir = await mkdtemp(join(tmpdir(), 'asgs-model-'));
    await writeFile(join(modelDir, 'config.json'), '{"architectures":["Qwen2ForCausalLM"]}');
    await chmod(modelDir, 0o755);
    for (const name of ['log', 'exp', 'ckpt']) {
      await mkdir(join(modelDir, name));
      await chmod(join(modelDir, name), 0o777);
    }
    llm = await startFakeLlm({ requireKey: KEY });
    app = await startTestApp({ dataDir, staticDir: rendererDir, monitorIntervalMs: 300 });
    // The full browser, not the tests' headless shell: these screenshots are the docs' (test/e2e/browser.ts).
    browser = await launchChromium({ full: true });
    // A new user has no swarm server: on a test bed shared with other test runs, their swarm containers on the same
    // Docker would make this app's user a returning one (landing on the fleet home). Wait (bounded) until none is there.
    const docker = new Docker({ socketPath: loadTestbed().dockerSocket });
    for (let waited = 0; waited < 180_000; waited += 2_000) {
      const others = await docker.listContainers({ all: true, filters: { label: ['io.agentswarm.managed=true'] } });
      if (others.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    // The bare address, as a first launch opens it: no page named.
    page = await openAppPage(browser, app.host!.openUrl, pageErrors, null);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    await llm?.close();
    delete process.env.AJET_STUB_TIME_SCALE;
    for (const dir of [dataDir, projectDir, modelDir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lands on the wizard and reaches a passing dry-run debug episode within 15 clicks and 8 typed fields', async () => {
    // First launch: the wizard, not Servers.
    await expect.poll(() => page.getByTestId('nav-wizard').getAttribute('aria-current'), { timeout: 30_000 }).toBe('page');
    const setup = main().getByTestId('wizard-vault-setup');
    await setup.waitFor({ timeout: 30_000 });
    await screenshot('first-launch');

    // Step 1, the debug LLM: where the key is kept (this session only, here), then the endpoint, saved and tested.
    await click(setup.getByTestId('vault-setup-choice-session'));
    await click(setup.getByTestId('vault-setup-submit'));
    await setup.waitFor({ state: 'detached', timeout: 30_000 });
    const endpoint = main().getByTestId('wizard-llm-new');
    await type(endpoint.getByTestId('secret-form-base-url'), llm.url);
    await type(endpoint.getByTestId('secret-form-model'), 'fake-debug-model');
    await type(endpoint.getByTestId('secret-form-value'), KEY);
    await click(main().getByTestId('wizard-llm-save-test'));
    await expect.poll(stepStatus('llm'), { timeout: 30_000 }).toBe('done');
    await screenshot('debug-llm');

    // Step 2, the agent project: scaffold the two scripts into the sample agent, test the dataset and one episode.
    await click(next('Agent project'));
    await type(main().getByRole('textbox', { name: 'Project folder (absolute path)' }), projectDir);
    await type(main().getByRole('textbox', { name: /Command that runs your agent/ }), '{python} agent.py --item {item_id}');
    await click(main().getByRole('button', { name: 'Create the scripts' }));
    await main().getByTestId('wizard-project-current').waitFor({ timeout: 30_000 });
    await click(main().getByRole('button', { name: 'Test dataset' }));
    await expect.poll(() => main().getByTestId('wizard-dataset-count').textContent(), { timeout: SLOW }).toContain('4 items');
    await click(main().getByRole('button', { name: 'Test episode' }));
    await expect.poll(() => main().getByTestId('wizard-episode-result').textContent(), { timeout: SLOW }).toMatch(/Reward [01]/);
    await expect.poll(stepStatus('project'), { timeout: 30_000 }).toBe('done');
    await screenshot('agent-project');

    // Step 3, the training code: no model path yet (no profile exists; the dry run needs none, and the SSH
    // server's run below passes the model folder its profile mounts), and a small batch so a training step is quick later.
    await click(next('Training code'));
    expect(await main().getByLabel('Model path inside the container', { exact: true }).inputValue()).toBe('');
    await type(main().getByLabel('Batch size', { exact: true }), '2');
    await type(main().getByLabel('GRPO group size', { exact: true }), '2');
    await click(main().getByRole('button', { name: 'Generate the files' }));
    await expect.poll(() => main().getByTestId('wizard-code-result').textContent(), { timeout: SLOW }).toContain('agent_roll.py');
    await screenshot('training-code');

    // Step 4, the swarm server: the dry run on this computer is the preselected choice.
    await click(next('Swarm server'));
    await click(main().getByRole('button', { name: 'Start the swarm server' }));
    await expect.poll(() => main().getByTestId('wizard-swarm-state').textContent(), { timeout: SLOW }).toContain('Ready');
    await screenshot('dry-run');

    // Step 5, one debug episode on the dry run: its reward and the LLM calls it made.
    await click(next('Debug episode'));
    await click(main().getByRole('button', { name: 'Run the debug episode' }));
    await expect.poll(() => main().getByTestId('wizard-debug-result').textContent(), { timeout: SLOW }).toMatch(/Passed: reward/);
    await expect.poll(async () => (await main().getByTestId('wizard-debug-calls').textContent()) ?? '', { timeout: 30_000 }).toContain('fake-debug-model');
    expect(llm.calls.some((call) => call.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    await expect.poll(stepStatus('debug'), { timeout: 30_000 }).toBe('done');
    await screenshot('debug-episode');

    // No page switch on the way: the wizard was the page all along.
    expect(await page.getByTestId('nav-wizard').getAttribute('aria-current')).toBe('page');
    console.log(`getting started, first launch → passing dry-run debug episode: ${counts.clicks} clicks, ${counts.fields} typed fields`);
    expect(counts.clicks).toBeLessThanOrEqual(MAX_CLICKS);
    expect(counts.fields).toBeLessThanOrEqual(MAX_FIELDS);
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('goes on to the first training step on the SSH server', async () => {
    const before = { ...counts };
    const tunnelPort = await freePort();
    const swarmPort = await freePort();
    const label = 'Fake swarm on testbed';
    await click(main().getByRole('button', { name: 'Choose a GPU server' }));

    // The GPU server: the test bed's sshd, its host key trusted, and a swarm profile of the fake swarm image on it.
    await click(page.getByTestId('nav-servers'));
    await click(page.getByTestId('server-add'));
    const dialog = page.getByTestId('server-dialog');
    await type(dialog.getByTestId('server-form-label'), 'testbed');
    await type(dialog.getByTestId('server-form-host'), testbed.ssh.host);
    await type(dialog.getByTestId('server-form-port'), String(testbed.ssh.port));
    await type(dialog.getByTestId('server-form-username'), testbed.ssh.user);
    // The test app has no SSH agent and no password: the key file only.
    for (const method of ['agent', 'password', 'keyboard-interactive']) await dialog.getByTestId(`server-form-auth-${method}`).setChecked(false);
    await type(dialog.getByTestId('server-form-identity-files'), testbed.ssh.plainKeyPath);
    await dialog.getByTestId('server-form-identities-only').setChecked(true);
    await type(dialog.getByTestId('server-form-tunnel-port'), String(tunnelPort));
    await click(dialog.getByTestId('server-form-submit'));
    const hostKey = page.getByTestId('host-key-dialog');
    await hostKey.waitFor({ timeout: 30_000 });
    expect((await hostKey.getByTestId('host-key-fingerprint').textContent())?.trim()).toBe(testbed.ssh.hostKeyFingerprint);
    await screenshot('ssh-host-key');
    await click(hostKey.getByTestId('host-key-trust'));
    await page.locator('[data-testid="server-card"][data-state="up"]').waitFor({ timeout: 60_000 });

    await click(page.getByTestId('server-section').getByTestId('profile-new'));
    const form = page.getByTestId('profile-form');
    await type(form.getByTestId('profile-form-label'), label);
    await type(form.getByTestId('profile-form-image'), testbed.fakeSwarmImage);
    await type(form.getByTestId('profile-form-port'), String(swarmPort));
    await click(form.getByTestId('profile-form-network-host'));
    await click(form.getByTestId('profile-form-gpus-none'));
    await type(form.getByTestId('profile-form-shm-gb'), '1');
    await type(form.getByTestId('profile-form-model-host'), modelDir);
    await type(form.getByTestId('profile-form-model-container'), MODEL_PATH);
    await type(form.getByTestId('profile-form-logDir'), join(modelDir, 'log'));
    await type(form.getByTestId('profile-form-experimentsDir'), join(modelDir, 'exp'));
    await type(form.getByTestId('profile-form-checkpointsDir'), join(modelDir, 'ckpt'));
    await click(form.getByTestId('profile-form-submit'));
    await page.getByTestId('profile-card').filter({ hasText: label }).waitFor();
    await screenshot('ssh-profile');

    // Back in the wizard: the profile on the SSH server (doctor, start, tunnel), the same debug episode there, training.
    await click(page.getByTestId('nav-wizard'));
    await main().getByRole('radio', { name: 'A swarm profile' }).waitFor();
    const profile = main().getByRole('combobox', { name: 'Profile' });
    // The step's profile list is fetched when the step (a chunk of its own) mounts: slow on a loaded machine.
    const option = await profile
      .locator('option', { hasText: label })
      .getAttribute('value', { timeout: SLOW })
      .catch(async (error: Error) => {
        // What the step showed instead (idle CI-AD: the new profile never appeared in its list within 120 s).
        await saveScreenshot(page, 'getting-started-no-profile-option');
        const options = await profile.locator('option').allTextContents().catch(() => []);
        throw new Error(`${error.message}\noptions: ${JSON.stringify(options)}; step: ${(await main().textContent().catch(() => ''))?.slice(0, 600)}`);
      });
    counts.clicks += 1;
    await profile.selectOption(option ?? '');
    await click(main().getByRole('button', { name: 'Start the swarm server' }));
    await expect.poll(async () => (await page.getByTestId('wizard-step-swarm-about').textContent()) ?? '', { timeout: SLOW }).toContain(label);
    await expect.poll(() => main().getByTestId('wizard-swarm-state').textContent(), { timeout: SLOW }).toContain('Ready');
    await screenshot('ssh-swarm');

    await click(next('Debug episode'));
    await click(main().getByRole('button', { name: /Run the debug episode|Run again/ }));
    await expect.poll(() => main().getByTestId('wizard-debug-result').textContent(), { timeout: SLOW }).toMatch(/Passed: reward/);
    await expect.poll(() => page.getByTestId('wizard-step-debug-about').textContent(), { timeout: 30_000 }).toContain(label);

    await click(next('Train'));
    await click(main().getByRole('button', { name: 'Start training' }));
    // Training runs (its Stop button is there) before its step is read: the server's step alone says nothing.
    await main().getByRole('button', { name: 'Stop training' }).waitFor({ timeout: SLOW });
    const dashboard = main().getByTestId('training-dashboard');
    await dashboard.waitFor({ timeout: 30_000 });
    await expect.poll(async () => Number((await dashboard.getByTestId('training-step').textContent())?.trim()), { timeout: SLOW }).toBeGreaterThanOrEqual(1);
    // A finished step: the reward chart has its first point.
    const chart = dashboard.getByTestId('reward-chart');
    await expect.poll(async () => ((await chart.getAttribute('data-steps')) ?? '').length, { timeout: SLOW }).toBeGreaterThan(0);
    // The training code named no model path: the run passed the model folder the profile mounts.
    await expect.poll(async () => (await dashboard.locator('code', { hasText: MODEL_PATH }).count()), { timeout: 30_000 }).toBeGreaterThan(0);
    await screenshot('first-training-step');
    await click(main().getByRole('button', { name: 'Stop training' }));
    await expect.poll(() => main().getByTestId('wizard-job-state').textContent(), { timeout: 60_000 }).toMatch(/cancelled/i);
    console.log(`getting started, dry run → first training step on the SSH server: ${counts.clicks - before.clicks} clicks, ${counts.fields - before.fields} typed fields`);
    expect(pageErrors).toEqual([]);
  }, 400_000);
});
