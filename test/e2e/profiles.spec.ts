import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { formatViolations, runAxe } from './axe';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// A swarm profile as a user makes and starts it: the built UI in Chromium, the browser host, the
// real services and dockerd, the fake swarm image (TEST DOUBLE). Host networking: the test bed's
// dockerd has no bridge network.
describe('swarm profiles in Chromium (browser host + real Docker)', () => {
  const testbed = loadTestbed();
  const scratch = mkdtempSync(join(tmpdir(), 'agentswarm-profiles-e2e-'));
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    mkdirSync(join(scratch, 'model'));
    writeFileSync(join(scratch, 'model', 'config.json'), '{}');
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('makes a profile in the dialog, starts it (doctor first), shows it running with its tabs, stops it after the warning', async () => {
    const port = await freePort();
    const list = page.getByTestId('profile-list').first();
    await list.getByTestId('profile-new').click();
    const dialog = page.getByTestId('profile-dialog');
    // A label (so a profile id) of its own: the container lane's apps see every test container on the shared
    // dockerd, and theirs are "Fake Qwen" (official CI, 2026-12-06: wizard-profile met this file's running
    // container under its own profile id, and refused to start as "drifted").
    await dialog.getByTestId('profile-form-label').fill('Dialog Qwen');
    await dialog.getByTestId('profile-form-port').fill(String(port));
    await dialog.getByTestId('profile-form-image').fill(testbed.fakeSwarmImage);
    await dialog.getByTestId('profile-form-network-host').check();
    await dialog.getByTestId('profile-form-gpus-none').check();
    await dialog.getByTestId('profile-form-shm-gb').fill('16');
    await dialog.getByTestId('profile-form-model-host').fill(join(scratch, 'model'));
    await dialog.getByTestId('profile-form-model-container').fill('/mnt/models/fake');
    await dialog.getByTestId('profile-form-logDir').fill(join(scratch, 'log'));
    await dialog.getByTestId('profile-form-experimentsDir').fill(join(scratch, 'exp'));
    await dialog.getByTestId('profile-form-checkpointsDir').fill(join(scratch, 'ckpt'));
    await dialog.getByTestId('profile-form-env-nccl').click();
    const dialogViolations = await runAxe(page);
    expect(dialogViolations, formatViolations('profile dialog', dialogViolations)).toEqual([]);
    await saveScreenshot(page, 'profiles-dialog');
    await dialog.getByTestId('profile-form-submit').click();
    await dialog.waitFor({ state: 'detached' });

    const card = page.getByTestId('profile-card').filter({ hasText: 'Dialog Qwen' });
    await card.getByTestId('profile-start').click();
    await card.getByTestId('profile-state-text').filter({ hasText: 'Running' }).waitFor({ timeout: 60_000 });
    await card.getByTestId('profile-engine-status').filter({ hasText: 'ENGINE.OFFLINE' }).waitFor({ timeout: 30_000 });
    // The doctor ran before Start and its report stays on the card.
    await expect.poll(async () => card.getByTestId('doctor-panel').getAttribute('data-verdict')).not.toBe('none');
    await card.getByTestId('profile-tab-logs').click();
    // Attached, not visible: the panel's owner may render nothing until its first answer.
    await card.getByTestId('logs-panel').waitFor({ state: 'attached' });
    const cardViolations = await runAxe(page);
    expect(cardViolations, formatViolations('running profile card', cardViolations)).toEqual([]);
    await saveScreenshot(page, 'profiles-running');

    await card.getByTestId('profile-stop').click();
    await expect.poll(async () => (await card.getByTestId('profile-confirm-stop').textContent()) ?? '').toContain('ends training for every client');
    await card.getByTestId('profile-confirm-yes').click();
    await card.getByTestId('profile-state-text').filter({ hasText: 'Stopped' }).waitFor({ timeout: 30_000 });
    expect(pageErrors).toEqual([]);
  });
});
