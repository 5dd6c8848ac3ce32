import { chownSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/helpers';
import { LABEL_PORT } from '../../electron/services/engines/container-engine';
import { startTestApp, TEST_CONTAINER_FILTER, type TestApp } from '../support/test-app';
import { loadTestbedWithPodman } from '../testbed/testbed';
import { auditBothSchemes } from './axe';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// Issue 17's "done when", as a user drives it: the built UI in Chromium, the browser host, the real
// services, the test bed's sshd (127.0.0.1:2222) and a real rootless Podman service of its own user
// behind it. The user adds the server as Podman (rootless, the socket found on the server), its card
// says Podman · rootless, a swarm profile runs on it through the doctor, start, watch, stop, and a
// reload of the page finds it all again. The fake swarm image is the only test double.
/** The profile's log, experiments and checkpoints folders, made for the Podman user before the test. */
const FOLDER_NAMES = ['log', 'experiments', 'checkpoints'] as const;

describe('rootless Podman over SSH end to end (Chromium + browser host + real sshd + real Podman)', () => {
  const testbed = loadTestbedWithPodman();
  const rootless = testbed.podman.rootless;
  // Root reaches the user's socket directly: the test checks what the app did, not through the app.
  const podman = new Docker({ socketPath: rootless.socket });
  const serverLabel = 'podman-rootless';
  const serverId = serverLabel;
  const engineId = `ssh-${serverId}`;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  /** The profile's own folders on the server, writable by the Podman user (the container runs as that user). */
  let folders: string;
  const pageErrors: string[] = [];
  const reports: string[] = [];

  const audit = (where: string): Promise<void> => auditBothSchemes(page, where, reports);

  beforeAll(async () => {
    requireBuiltRenderer();
    folders = await mkdtemp(join(rootless.home, 'e2e-podman-'));
    for (const dir of [folders, ...FOLDER_NAMES.map((name) => join(folders, name))]) {
      if (dir !== folders) mkdirSync(dir);
      chownSync(dir, rootless.uid, rootless.uid);
    }
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
  });

  afterEach(async (context) => {
    await saveScreenshot(page, `podman-servers-end-${context.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
  });

  afterAll(async () => {
    await page?.close();
    await browser?.close();
    // Removes the test containers (by label, on the rootless service too) and the app's data folder.
    await app?.dispose();
    if (folders) await rm(folders, { recursive: true, force: true });
  });

  it('adds the rootless Podman user as a server with the keyboard; its card says Podman · rootless', async () => {
    await page.getByTestId('nav-servers').click();
    await page.getByTestId('server-add').click();
    const dialog = page.getByTestId('server-dialog');
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(serverLabel);
    await dialog.getByRole('textbox', { name: 'Host', exact: true }).fill(testbed.ssh.host);
    await dialog.getByRole('textbox', { name: 'SSH port', exact: true }).fill(String(testbed.ssh.port));
    await dialog.getByRole('textbox', { name: 'User', exact: true }).fill(rootless.user);
    for (const method of ['agent', 'password', 'keyboard-interactive']) {
      await dialog.getByTestId(`server-form-auth-${method}`).setChecked(false);
    }
    await dialog.getByTestId('server-form-identity-files').fill(testbed.ssh.plainKeyPath);
    await dialog.getByTestId('server-form-identities-only').setChecked(true);
    await dialog.getByTestId('server-form-tunnel-port').fill(String(await freePort()));

    // The engine by keyboard: arrow keys move within the radio group, as in any native form.
    await dialog.getByRole('radio', { name: 'Docker', exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await dialog.getByRole('radio', { name: 'Podman', exact: true }).isChecked()).toBe(true);
    const rootlessChoice = dialog.getByRole('radio', { name: /^Rootless: my user’s Podman socket/ });
    expect(await rootlessChoice.isChecked()).toBe(true);
    expect(await dialog.getByTestId('server-form-socket-path').count()).toBe(0);
    // Down to the custom path and back: the field comes and goes with the choice.
    await rootlessChoice.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await dialog.getByRole('textbox', { name: 'Podman socket path on the server', exact: true }).waitFor();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await rootlessChoice.isChecked()).toBe(true);
    await audit('Add server dialog, Podman rootless');
    await saveScreenshot(page, 'podman-add-server-dialog');
    await dialog.getByTestId('server-form-submit').click();

    const hostKey = page.getByTestId('host-key-dialog');
    await hostKey.waitFor({ timeout: 30_000 });
    expect((await hostKey.getByTestId('host-key-fingerprint').textContent())?.trim()).toBe(testbed.ssh.hostKeyFingerprint);
    await hostKey.getByTestId('host-key-trust').click();
    await hostKey.waitFor({ state: 'detached', timeout: 30_000 });
    await page.locator(`[data-testid="server-card"][data-server-id="${serverId}"][data-state="up"]`).waitFor({ timeout: 60_000 });

    const section = page.locator(`[data-testid="server-section"][data-server-id="${serverId}"]`);
    const engineCard = section.getByTestId('engine-card');
    await expect
      .poll(async () => (await engineCard.getByTestId('engine-version').textContent().catch(() => ''))?.trim(), { timeout: 30_000 })
      .toMatch(new RegExp(`^Podman ${testbed.podman.version.replace(/\./g, '\\.')} · rootless · API \\d+\\.\\d+$`));
    expect((await engineCard.getByRole('heading').textContent())?.trim()).toBe(`Podman engine on ${serverLabel}`);
    expect(await engineCard.getByTestId('engine-detected').count()).toBe(0);
    await engineCard.scrollIntoViewIfNeeded();
    await audit('Servers page with a rootless Podman server');
    await saveScreenshot(page, 'podman-server-card-rootless');
    expect(reports, reports.join('\n\n')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('runs a swarm profile on it: doctor with its Podman rows, start, ENGINE.OFFLINE, stop; a reload finds it all again', async () => {
    const port = await freePort();
    const label = `Podman E2E ${randomBytes(3).toString('hex')}`;
    const list = page.locator(`[data-testid="profile-list"][data-engine-id="${engineId}"]`);
    await list.getByTestId('profile-new').click();
    const form = page.getByTestId('profile-form');
    await form.getByTestId('profile-form-label').fill(label);
    await form.getByTestId('profile-form-image').fill(testbed.podman.image);
    await form.getByTestId('profile-form-port').fill(String(port));
    // Rootless publish needs /dev/net/tun, which this machine does not give the user: host networking on loopback.
    await form.getByTestId('profile-form-network-host').check();
    await form.getByTestId('profile-form-gpus-none').check();
    await form.getByTestId('profile-form-shm-gb').fill('1');
    for (const [index, field] of (['logDir', 'experimentsDir', 'checkpointsDir'] as const).entries()) {
      await form.getByTestId(`profile-form-${field}`).fill(join(folders, FOLDER_NAMES[index]!));
    }
    await form.getByTestId('profile-form-env-add').click();
    await form.getByTestId('profile-form-env-name').last().fill('AJET_FAKE_BOOT_DELAY_MS');
    await form.getByTestId('profile-form-env-value').last().fill('300');
    await form.getByTestId('profile-form-submit').click();
    const card = page.getByTestId('profile-card').filter({ hasText: label });
    await card.waitFor();

    // The doctor: Podman's own rows (init, and the rootless ones), none of Docker's NVIDIA runtime.
    await card.getByTestId('profile-doctor').click();
    const panel = card.getByTestId('doctor-panel');
    await card.locator('[data-testid="doctor-panel"][data-verdict]').waitFor({ timeout: 60_000 });
    // Passed and skipped checks fold into one line (issue 32): the rows are there, folded or not.
    for (const id of ['podman-init', 'podman-linger', 'podman-runtime-dir', 'podman-storage', 'podman-network']) {
      await panel.getByTestId(`doctor-check-${id}`).waitFor({ state: 'attached', timeout: 10_000 });
    }
    // Unfolded for the screenshot.
    await panel.locator('details[data-testid="doctor-passed"]').evaluateAll((folds) => folds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    // The folders exist and belong to the Podman user: no warning about them.
    expect(await panel.getByTestId('doctor-check-host-dirs').getAttribute('data-status')).toBe('pass');
    expect(await panel.getByTestId('doctor-check-gpu-runtime').count()).toBe(0);
    await panel.getByTestId('doctor-check-podman-init').scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'podman-profile-doctor');

    // Start (the doctor runs again; a rootless warning does not hold it back).
    await card.getByTestId('profile-start').click();
    const anyway = page.getByTestId('profile-start-anyway');
    const status = card.getByTestId('profile-engine-status').filter({ hasText: 'ENGINE.OFFLINE' });
    await Promise.race([status.waitFor({ timeout: 60_000 }), anyway.waitFor({ timeout: 60_000 })]);
    expect(await anyway.count(), 'the doctor refused to start on the test bed’s rootless Podman').toBe(0);
    expect(await card.getAttribute('data-state')).toBe('running');
    // On the user's own Podman (not the rootful one, not Docker): the app's container for this port, running.
    const ours = await podman.listContainers({ filters: { label: [TEST_CONTAINER_FILTER, `${LABEL_PORT}=${port}`] } });
    expect(ours.map((c) => c.State)).toEqual(['running']);
    await card.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await audit('Servers page with a swarm profile running on rootless Podman');
    await saveScreenshot(page, 'podman-profile-running');

    await card.getByTestId('profile-stop').click();
    await card.getByTestId('profile-confirm-yes').click();
    await expect.poll(async () => card.getAttribute('data-state'), { timeout: 60_000 }).toBe('exited');
    const stopped = await podman.listContainers({ all: true, filters: { label: [TEST_CONTAINER_FILTER, `${LABEL_PORT}=${port}`] } });
    expect(stopped.map((c) => c.State)).toEqual(['exited']);
    await saveScreenshot(page, 'podman-profile-stopped');

    // A reload: the server, its Podman card and the stopped profile are found again.
    await page.reload();
    await page.getByTestId('nav-servers').click();
    await page.locator(`[data-testid="server-card"][data-server-id="${serverId}"][data-state="up"]`).waitFor({ timeout: 60_000 });
    const section = page.locator(`[data-testid="server-section"][data-server-id="${serverId}"]`);
    await expect
      .poll(async () => (await section.getByTestId('engine-version').textContent().catch(() => ''))?.trim(), { timeout: 30_000 })
      .toMatch(/^Podman \S+ · rootless · API /);
    const again = page.getByTestId('profile-card').filter({ hasText: label });
    await again.waitFor({ timeout: 30_000 });
    await expect.poll(async () => again.getAttribute('data-state'), { timeout: 30_000 }).toBe('exited');
    await again.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await saveScreenshot(page, 'podman-after-reload');

    await again.getByTestId('profile-remove').click();
    await again.getByTestId('profile-confirm-yes').click();
    await again.waitFor({ state: 'detached', timeout: 15_000 });
    expect(reports, reports.join('\n\n')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
