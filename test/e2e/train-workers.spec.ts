import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { call, smallForm, startCanaryLlm, startWizardApp, throughCode, type WizardApp } from '../integration/support/wizard-fixtures';
import { AJET_STUB_DIR } from '../support/python-env';
import { loadTestbed } from '../testbed/testbed';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// Issue 34 in Chromium through the browser host: the wizard's Train step starts 3 rollout workers, 2 on this
// computer (the job runner) and 1 on the test bed's SSH server (the project copied over SFTP, started detached),
// all feeding the app's dry-run swarm server; the pool table fills (state, client uuid, episodes, LLM calls);
// one worker is stopped by hand and the others go on; stop all. The steps before Train are done through the
// app's handlers (wizard.spec.ts drives them in the browser). Small and fast: a batch of 3, GRPO group 2, the
// ajet stub (TEST DOUBLE of AgentJet's client) with its waits shrunk, the fake LLM as the debug LLM.
const SLOW = 120_000;

describe('the Train step with a worker pool (Chromium + browser host + real Python and sshd)', () => {
  const tb = loadTestbed();
  let w: WizardApp;
  let llm: FakeLlm;
  let browser: Browser;
  let page: Page;
  const folders: string[] = [];
  const pageErrors: string[] = [];
  let poolId = '';

  beforeAll(async () => {
    requireBuiltRenderer();
    llm = await startCanaryLlm();
    w = await startWizardApp(llm, { staticDir: rendererDir, monitorIntervalMs: 300 });
    await throughCode(w, folders, { form: smallForm({ experimentName: 'workers_e2e', batchSize: 3, epochs: 1000 }) });
    await call(w.app, 'wizard:choose-swarm', { kind: 'dry-run' });
    const ready = await call(w.app, 'wizard:start-swarm', {});
    expect(ready.swarm?.phase).toBe('ready');
    // The test bed's sshd as an SSH server the app knows, its host key trusted as a user does.
    const server = await call(w.app, 'servers:add', { label: 'cpu-box', host: tb.ssh.host, port: tb.ssh.port, username: tb.ssh.user, authMethods: ['key'], identityFiles: [tb.ssh.plainKeyPath] });
    const asked = await call(w.app, 'servers:connect', { serverId: server.profile.id });
    if (asked.hostKey) await call(w.app, 'servers:trust-host-key', { serverId: server.profile.id, fingerprint: asked.hostKey.fingerprint });
    await call(w.app, 'wizard:goto', { step: 'train' });
    browser = await launchChromium();
    page = await openAppPage(browser, w.app.host!.openUrl, pageErrors);
  }, 240_000);

  afterAll(async () => {
    if (page) await saveScreenshot(page, 'train-workers-end');
    if (poolId) await call(w.app, 'workers:stop-all', { poolId }).catch(() => undefined);
    await browser?.close();
    await w?.app.dispose();
    await llm?.close();
    for (const dir of folders) await rm(dir, { recursive: true, force: true });
  });

  it('starts 2 local + 1 SSH worker from the Train step, fills the pool table, stops one by hand while the others go on', async () => {
    await page.getByTestId('nav-wizard').click();
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    const card = page.getByTestId('train-workers');
    await card.waitFor();
    await card.getByTestId('workers-local-count').fill('2');
    await card.getByTestId('workers-server').selectOption({ label: 'cpu-box' });
    await card.getByTestId('workers-ssh-count').fill('1');
    // The venv action shows its exact command before anything runs (not run here: no network for pip).
    await card.getByTestId('client-venv-open').click();
    await expect.poll(() => card.getByTestId('client-venv-command').textContent()).toContain('python3 -m venv "$HOME"/.agentswarm/venvs/agentjet-client && ');
    await card.getByTestId('workers-ssh-python').fill(`AJET_STUB_TIME_SCALE=0.05 PYTHONPATH=${AJET_STUB_DIR} python3`);
    // The server runs on this machine, which is also the SSH host: it reaches the server at the app's URL.
    const url = (await call(w.app, 'wizard:state', {})).swarm!.url!;
    await card.getByRole('radio', { name: 'At this address (tested from the worker first)' }).check();
    await card.getByLabel('Swarm server URL as the worker sees it').fill(url);
    await expect.poll(() => card.getByTestId('workers-split-preview').textContent()).toContain('3 workers: 1 / 1 / 1 tasks each');
    await card.getByTestId('workers-start').click();

    const rows = card.getByTestId('worker-row');
    await expect.poll(() => rows.count(), { timeout: SLOW }).toBe(3);
    poolId = (await card.getByTestId('worker-pool').getAttribute('data-pool-id')) ?? '';
    // The table fills: every worker running, with its client uuid and episodes.
    await expect
      .poll(async () => (await rows.evaluateAll((trs) => trs.map((tr) => `${(tr as HTMLElement).dataset.state}:${tr.querySelector('code')?.textContent !== '—'}`))).join(','), { timeout: SLOW })
      .toBe('running:true,running:true,running:true');
    await expect.poll(async () => Number((await card.getByTestId('worker-pool-rate').textContent())?.match(/· (\d+) episodes/)?.[1] ?? 0), { timeout: SLOW }).toBeGreaterThan(3);
    expect(await rows.nth(2).textContent()).toContain('cpu-box');
    await expect.poll(async () => (await rows.nth(0).getByTestId('worker-llm-calls').textContent())?.trim(), { timeout: SLOW }).toMatch(/^[1-9]\d*$/);
    await saveScreenshot(page, 'train-workers-running');

    // One worker stopped by hand: marked stopped, the others keep running.
    await rows.nth(1).getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(async () => rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.state)), { timeout: SLOW }).toEqual(['running', 'stopped', 'running']);
    const before = (await call(w.app, 'workers:list', {})).find((p) => p.poolId === poolId)!.episodes;
    await expect.poll(async () => (await call(w.app, 'workers:list', {})).find((p) => p.poolId === poolId)!.episodes, { timeout: SLOW }).toBeGreaterThan(before);

    await card.getByRole('button', { name: 'Stop all' }).click();
    await expect.poll(async () => rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.state)), { timeout: SLOW }).toEqual(['stopped', 'stopped', 'stopped']);
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
