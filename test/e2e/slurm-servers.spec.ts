import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbedWithSlurm } from '../testbed/testbed';
import { auditBothSchemes } from './axe';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// Issue 18's e2e, as a user drives it: the built UI in Chromium, the browser host, the real services, the test
// bed's sshd (127.0.0.1:2222) as the login node of its REAL single-node Slurm 22.05. The user adds the login node
// as "Slurm (login node)", adds a Slurm profile (native, partition debug, a time limit), starts it, watches the job
// run on the node through the server card (RUNNING, node, time left) while the swarm status reaches ENGINE.OFFLINE
// through the login node, and cancels it with the confirmation that names the job → CANCELLED. The server in the
// job is the fake swarm (TEST DOUBLE of ajet-swarm, on PATH through the test bed's activate line).
// The node must be idle: run under `flock /tmp/agentswarm-slurm.lock`.

describe('a Slurm login node end to end (Chromium + browser host + real sshd + real Slurm)', () => {
  const testbed = loadTestbedWithSlurm();
  const run = randomBytes(3).toString('hex');
  const serverLabel = `slurm-e2e-${run}`;
  const serverId = serverLabel;
  const engineId = `ssh-${serverId}`;
  const profileLabel = `Slurm E2E ${run}`;
  const profileId = `slurm-e2e-${run}`;
  const jobName = `agentswarm-${profileId}`;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let login: SshConnection;
  const pageErrors: string[] = [];
  const reports: string[] = [];

  const audit = (where: string): Promise<void> => auditBothSchemes(page, where, reports);
  const section = () => page.locator(`[data-testid="server-section"][data-server-id="${serverId}"]`);

  beforeAll(async () => {
    requireBuiltRenderer();
    login = await connectToTestbed({}, testbed);
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
  });

  afterEach(async (context) => {
    await saveScreenshot(page, `slurm-end-${context.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
  });

  afterAll(async () => {
    await page?.close();
    await browser?.close();
    await app?.dispose();
    // By name, so a job whose start failed half-way is cancelled too; then its folder on the login node.
    await login?.exec(`scancel -u "$USER" -n ${jobName}; rm -rf "$HOME/.agentswarm/slurm/${jobName}"`).catch(() => undefined);
    await login?.close();
  });

  it('adds the login node as "Slurm (login node)"; its card has a jobs panel', async () => {
    await page.getByTestId('nav-servers').click();
    await page.getByTestId('server-add').click();
    const dialog = page.getByTestId('server-dialog');
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(serverLabel);
    await dialog.getByRole('textbox', { name: 'Host', exact: true }).fill(testbed.ssh.host);
    await dialog.getByRole('textbox', { name: 'SSH port', exact: true }).fill(String(testbed.ssh.port));
    await dialog.getByRole('textbox', { name: 'User', exact: true }).fill(testbed.slurm.loginUser);
    for (const method of ['agent', 'password', 'keyboard-interactive']) {
      await dialog.getByTestId(`server-form-auth-${method}`).setChecked(false);
    }
    await dialog.getByTestId('server-form-identity-files').fill(testbed.ssh.plainKeyPath);
    await dialog.getByTestId('server-form-identities-only').setChecked(true);
    await dialog.getByTestId('server-form-tunnel-port').fill(String(await freePort()));
    await dialog.getByRole('radio', { name: 'Slurm (login node)', exact: true }).check();
    await dialog.getByTestId('server-form-slurm-hint').waitFor();
    await saveScreenshot(page, 'slurm-add-server-dialog');
    await dialog.getByTestId('server-form-submit').click();

    const hostKey = page.getByTestId('host-key-dialog');
    await hostKey.waitFor({ timeout: 30_000 });
    expect((await hostKey.getByTestId('host-key-fingerprint').textContent())?.trim()).toBe(testbed.ssh.hostKeyFingerprint);
    await hostKey.getByTestId('host-key-trust').click();
    await hostKey.waitFor({ state: 'detached', timeout: 30_000 });
    await page.locator(`[data-testid="server-card"][data-server-id="${serverId}"][data-state="up"]`).waitFor({ timeout: 60_000 });

    const engineCard = section().getByTestId('engine-card');
    await expect.poll(async () => (await engineCard.getByTestId('engine-version').textContent().catch(() => ''))?.trim(), { timeout: 30_000 }).toBe(`Slurm ${testbed.slurm.version}`);
    expect((await engineCard.getByRole('heading').textContent())?.trim()).toBe(`Slurm cluster via ${serverLabel}`);
    const jobs = section().getByRole('region', { name: `Slurm jobs on ${serverLabel}` });
    await jobs.waitFor({ timeout: 30_000 });
    // Jobs start from profiles (their job options live there): no quick start form on a Slurm card.
    expect(await section().getByRole('heading', { name: 'Start an AgentJet swarm server' }).count()).toBe(0);
    // The app's jobs only: none yet for this run's profile.
    await jobs.locator('[data-testid="slurm-jobs-empty"], [data-testid="slurm-job"]').first().waitFor({ timeout: 30_000 });
    expect(await jobs.locator(`[data-testid="slurm-job"]`).filter({ hasText: jobName }).count()).toBe(0);
    await jobs.scrollIntoViewIfNeeded();
    await audit('Servers page with a Slurm login node');
    await saveScreenshot(page, 'slurm-server-card');
    expect(reports, reports.join('\n\n')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('adds a Slurm profile (native, partition, time limit) with the honest warnings, and shows its job script', async () => {
    const list = page.locator(`[data-testid="profile-list"][data-engine-id="${engineId}"]`);
    await list.getByTestId('profile-new').click();
    const form = page.getByTestId('profile-form');
    const slurm = form.getByRole('group', { name: 'Slurm job' });
    expect(await slurm.getByRole('note').textContent()).toContain('listens on every network interface');
    await form.getByTestId('profile-form-label').fill(profileLabel);
    await form.getByTestId('profile-form-port').fill(String(await freePort()));
    // The schema's words as a field error first: "1:30" would be minutes:seconds to Slurm.
    await slurm.getByTestId('profile-form-slurm-timeLimit').fill('1:30');
    await form.getByTestId('profile-form-submit').click();
    expect(await form.getByTestId('profile-form-error-slurmTimeLimit').textContent()).toContain('would mean minutes:seconds');
    await slurm.getByTestId('profile-form-slurm-partition').fill(testbed.slurm.partition);
    await slurm.getByTestId('profile-form-slurm-timeLimit').fill('10');
    // The node's fake GPUs are for the GPU tests; this job needs none.
    await slurm.getByTestId('profile-form-slurm-gpus-none').check();
    await slurm.getByTestId('profile-form-slurm-run-native').check();
    await slurm.getByTestId('profile-form-slurm-activate').fill(testbed.native.sshUserActivate);
    await audit('Profile dialog with the Slurm section');
    await saveScreenshot(page, 'slurm-profile-form');
    await form.getByTestId('profile-form-submit').click();
    const card = page.getByTestId('profile-card').filter({ hasText: profileLabel });
    await card.waitFor();

    await card.getByTestId('profile-command').click();
    const command = page.getByTestId('profile-command-dialog');
    await command.waitFor();
    const text = (await command.textContent()) ?? '';
    expect(text).toContain(`#SBATCH --job-name=${jobName}`);
    expect(text).toContain(`#SBATCH --partition=${testbed.slurm.partition}`);
    expect(text).toContain('#SBATCH --time=10');
    expect(text).toContain('sbatch --parsable job.sh');
    expect(text).toContain(`login node ${serverLabel}`);
    await saveScreenshot(page, 'slurm-job-script');
    await page.keyboard.press('Escape');
    await command.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('starts it: the card shows the job RUNNING on the node with time left; the swarm status reaches ENGINE.OFFLINE', { timeout: 240_000 }, async () => {
    const card = page.getByTestId('profile-card').filter({ hasText: profileLabel });
    await card.getByTestId('profile-start').click();
    const anyway = page.getByTestId('profile-start-anyway');
    const status = card.getByTestId('profile-engine-status').filter({ hasText: 'ENGINE.OFFLINE' });
    // The doctor runs the Slurm checks (sinfo, sbatch --test-only, …) and lets a good profile start: no "Start anyway".
    await Promise.race([status.waitFor({ timeout: 150_000 }), anyway.waitFor({ timeout: 150_000 })]).catch(async (error: unknown) => {
      // What the user would see, and what Slurm says: CI has no screen to look at.
      const queue = await login.exec(`squeue -h -t all -n ${jobName} -o '%i %T %r %N'; tail -n 20 "$HOME/.agentswarm/slurm/${jobName}"/out/*.out 2>/dev/null`).catch((e: unknown) => ({ stdout: String(e) }));
      throw new Error(`${String(error)}\ncard: ${await card.innerText()}\njobs panel: ${await section().innerText()}\nsqueue and job output: ${queue.stdout}`);
    });
    expect(await anyway.count(), 'the Slurm doctor held the start back').toBe(0);

    const jobs = section().getByRole('region', { name: `Slurm jobs on ${serverLabel}` });
    const job = jobs.getByTestId('slurm-job').filter({ hasText: jobName });
    await jobs.getByTestId('slurm-jobs-refresh').click();
    await job.locator('xpath=self::*[@data-state="RUNNING"]').waitFor({ timeout: 30_000 });
    // The job's badge is its server's state, worded as on its profile card (issue 31); Slurm's code stays beside it.
    expect(await job.getByTestId('slurm-job-state').textContent()).toMatch(/^Running( · |$)/);
    expect(await job.getByTestId('slurm-job-slurm-state').textContent()).toBe('Slurm: RUNNING');
    expect(await job.getByTestId('slurm-job-node').textContent()).toBe(testbed.slurm.node);
    const left = (await job.getByTestId('slurm-job-time-left').textContent())?.trim() ?? '';
    expect(left).toMatch(/^\d+:\d\d of 10:00$/);
    // It counts down between reads of the queue.
    await expect.poll(async () => (await job.getByTestId('slurm-job-time-left').textContent())?.trim(), { timeout: 20_000 }).not.toBe(left);
    const jobId = (await job.getAttribute('data-job-id')) ?? '';
    expect(jobId).toMatch(/^\d+$/);
    expect((await login.exec(`squeue -h -j ${jobId} -o %T`)).stdout.trim()).toBe('RUNNING');
    await job.scrollIntoViewIfNeeded();
    await audit('Servers page with a running Slurm job');
    await saveScreenshot(page, 'slurm-job-running');
    expect(reports, reports.join('\n\n')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('cancels it with the confirmation that names the job → CANCELLED', { timeout: 120_000 }, async () => {
    const jobs = section().getByRole('region', { name: `Slurm jobs on ${serverLabel}` });
    const job = jobs.getByTestId('slurm-job').filter({ hasText: jobName });
    const jobId = (await job.getAttribute('data-job-id')) ?? '';
    await job.getByRole('button', { name: `Cancel job ${jobId}` }).click();
    const dialog = page.getByRole('dialog', { name: `Cancel Slurm job ${jobId}?` });
    await dialog.waitFor();
    expect(await dialog.getByTestId('slurm-cancel-text').textContent()).toBe(`Cancel Slurm job ${jobId} (${jobName}) on ${serverLabel}? Training on it stops.`);
    await audit('Cancel confirmation of a Slurm job');
    await saveScreenshot(page, 'slurm-cancel-confirm');
    await dialog.getByRole('button', { name: 'Cancel the job' }).click();
    await dialog.waitFor({ state: 'detached' });

    await expect
      .poll(async () => (await login.exec(`squeue -h -t all -j ${jobId} -o %T 2>/dev/null || true`)).stdout.trim(), { timeout: 60_000 })
      .toMatch(/^CANCELLED/);
    await expect
      .poll(
        async () => {
          await jobs.getByTestId('slurm-jobs-refresh').click();
          return job.getAttribute('data-state');
        },
        { timeout: 60_000, interval: 2_000 },
      )
      .toBe('CANCELLED');
    // Cancelled by you through the app: a stop you asked for, as on the profile card (Slurm says CANCELLED).
    await expect.poll(async () => job.getByTestId('slurm-job-state').textContent(), { timeout: 30_000 }).toBe('Stopped');
    expect(await job.getByTestId('slurm-job-slurm-state').textContent()).toBe('Slurm: CANCELLED');
    expect(await job.getByTestId('slurm-job-cancel').count()).toBe(0);
    const card = page.getByTestId('profile-card').filter({ hasText: profileLabel });
    await expect.poll(async () => card.getAttribute('data-state'), { timeout: 60_000 }).not.toBe('running');
    await job.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'slurm-job-cancelled');
    expect(pageErrors).toEqual([]);
  });
});
