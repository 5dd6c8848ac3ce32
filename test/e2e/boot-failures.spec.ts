import Docker from 'dockerode';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/helpers';
import { FakeSwarmVariants } from '../support/fake-variants';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { fillStartForm, launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';
import { upstreamJob } from '../support/job-yaml';

const YAML = upstreamJob('  model:\n    path: /models/Qwen2.5-0.5B\n  data:\n    train_batch_size: 2\n  rollout:\n    num_repeat: 2\n');

// What a GPU-less AgentJet server does when asked to start its engine, played by the fake swarm image
// (the only test double) in its boot modes, seen in Chromium through the browser host, the real
// services and the real dockerd: the Servers page must say what happened and why.
describe('Servers page explains failed, stuck and ended servers (Chromium + real Docker + fake swarm)', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  // The ports of this file's servers: the local engine also holds the other test runs' servers (npm test runs this
  // file beside the container lane), and a cleanup of every server on it killed one of theirs (idle CI-Z).
  const ports = new Set<number>();
  const ourPort = async () => {
    const port = await freePort();
    ports.add(port);
    return port;
  };
  const variants = new FakeSwarmVariants(docker, testbed.fakeSwarmImage);
  const variant = (name: string, env: string) => variants.image(name, env);

  async function post(port: number, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    return response.json();
  }

  /** Starts a server from the page and waits until its engine answers OFFLINE; returns its row. */
  async function startFromPage(image: string, port: number): Promise<Locator> {
    await fillStartForm(page, { image, port });
    await expect.poll(async () => (await page.getByTestId('engine-card').textContent()) ?? '').toContain('Docker');
    await page.getByTestId('swarm-start-button').click();
    const row = page.getByTestId('swarm-container-row').filter({ hasText: String(port) });
    await row.getByTestId('swarm-engine-status').filter({ hasText: 'ENGINE.OFFLINE' }).waitFor({ timeout: 30_000 });
    return row;
  }

  const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
  });

  beforeEach(async () => {
    page = await openAppPage(browser, app.host?.openUrl ?? 'about:blank', pageErrors);
  });

  afterEach(async () => {
    await page.close();
    // Each test leaves no server of its own behind: the status bar of the next one counts only its own.
    for (const c of (await app.handlers['swarm:list']({ engineId: 'local' })).filter((c) => ports.has(c.port))) {
      await app.handlers['swarm:remove']({ engineId: 'local', containerId: c.id }).catch(() => undefined);
    }
    expect(pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    await variants.dispose();
  });

  it('says the engine stopped while booting, with the log lines that explain it', async () => {
    const image = await variant('fail-offline', 'AJET_FAKE_BOOT_OUTCOME=fail-offline');
    const port = await ourPort();
    const row = await startFromPage(image, port);
    expect(await post(port, '/sync_train_config', { yaml_as_string: YAML })).toEqual({ success: true });
    expect(await post(port, '/start_engine')).toMatchObject({ success: true });

    const problem = row.getByTestId('swarm-engine-problem');
    await problem.waitFor({ timeout: 20_000 });
    expect(await problem.getAttribute('data-kind')).toBe('boot-failed');
    expect(await text(problem)).toContain('The training engine stopped while booting');
    expect(await text(row.getByTestId('swarm-engine-problem-log'))).toContain("ModuleNotFoundError: No module named 'vllm'");
    // global_step 0 from the failure hook is no step; the "not running yet" hint would mislead.
    expect(await text(row.getByTestId('swarm-engine-line'))).toBe('online');
    expect(await row.getByTestId('swarm-engine-hint').count()).toBe(0);
    await expect.poll(() => text(page.getByTestId('statusbar-swarm'))).toContain('1 server: engine failed to boot');
    await row.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'boot-failed-explained');
  });

  it('says a boot that stays in BOOTING failed, and counts how long it has lasted', async () => {
    const image = await variant('stuck-booting', 'AJET_FAKE_BOOT_OUTCOME=stuck-booting');
    const port = await ourPort();
    const row = await startFromPage(image, port);
    await post(port, '/sync_train_config', { yaml_as_string: YAML });
    expect(await post(port, '/start_engine')).toEqual({ success: false, error: "No module named 'vllm'" });

    await row.getByTestId('swarm-engine-status').filter({ hasText: 'ENGINE.BOOTING' }).waitFor({ timeout: 20_000 });
    const problem = row.getByTestId('swarm-engine-problem');
    await problem.waitFor({ timeout: 20_000 });
    expect(await problem.getAttribute('data-kind')).toBe('boot-errors');
    expect(await text(problem)).toMatch(/The training engine failed to start: the server has said BOOTING for \d+ s/);
    expect(await text(row.getByTestId('swarm-engine-problem-log'))).toContain("No module named 'vllm'");
    const line = row.getByTestId('swarm-engine-line');
    const before = await text(line);
    expect(before).toMatch(/^online · booting for \d+ s$/);
    // The time advances on its own, without new events from the server.
    await expect.poll(() => text(line), { timeout: 20_000 }).not.toBe(before);
    await expect.poll(() => text(page.getByTestId('statusbar-swarm'))).toContain('1 server: engine failed to boot');
    await row.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'boot-stuck-explained');
  });

  it('after stop_engine, shows the last step and detail as history, not as current progress', async () => {
    const port = await ourPort();
    const row = await startFromPage(testbed.fakeSwarmImage, port);
    await post(port, '/sync_train_config', { yaml_as_string: YAML });
    expect(await post(port, '/start_engine')).toMatchObject({ success: true });
    await row.getByTestId('swarm-engine-status').filter({ hasText: 'ENGINE.ROLLING' }).waitFor({ timeout: 20_000 });
    // The trainer's own report of a later step, as upstream's trainer posts it.
    await post(port, '/update_engine_status', { engine_status: 'ENGINE.ROLLING', global_step: 5, engine_status_detail: 'collecting episodes' });
    const line = row.getByTestId('swarm-engine-line');
    await expect.poll(() => text(line)).toBe('online · step 5');
    expect(await text(row.getByTestId('swarm-engine-detail'))).toBe('collecting episodes');

    expect(await post(port, '/stop_engine')).toMatchObject({ success: true });
    await row.getByTestId('swarm-engine-status').filter({ hasText: 'ENGINE.OFFLINE' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => text(line)).toBe('online · last step 5');
    expect(await text(row.getByTestId('swarm-engine-detail'))).toBe('last detail: collecting episodes');
    expect(await text(row.getByTestId('swarm-engine-hint'))).toContain('its training engine is stopped');
    await row.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'history-after-stop-engine');
  });

  it('still explains why servers ended after a page reload', async () => {
    const crashing = await variant('exit-on-start', 'AJET_FAKE_EXIT_ON_START=3');
    const crashPort = await ourPort();
    await fillStartForm(page, { image: crashing, port: crashPort });
    await page.getByTestId('swarm-start-button').click();
    const crashRow = page.getByTestId('swarm-container-row').filter({ hasText: String(crashPort) });
    await crashRow.getByTestId('swarm-exit').filter({ hasText: 'Crashed (exit code 3).' }).waitFor({ timeout: 30_000 });

    // Ctrl+C (SIGINT) makes the server exit 0: for a server meant to run until stopped, not a clean end.
    const quitPort = await ourPort();
    const quitRow = await startFromPage(testbed.fakeSwarmImage, quitPort);
    const quitId = (await quitRow.getAttribute('data-container-id')) ?? '';
    await docker.getContainer(quitId).kill({ signal: 'SIGINT' });
    await quitRow.getByTestId('swarm-exit').filter({ hasText: 'Stopped unexpectedly (exit code 0)' }).waitFor({ timeout: 30_000 });

    await page.reload();
    await page.getByTestId('nav-servers').click();
    const crashExit = crashRow.getByTestId('swarm-exit');
    await crashExit.waitFor({ timeout: 15_000 });
    expect(await crashExit.getAttribute('data-kind')).toBe('crashed');
    expect(await text(crashExit)).toContain('Crashed (exit code 3).');
    expect(await text(crashRow.getByTestId('swarm-exit-log'))).toContain('RuntimeError: fake swarm server told to fail at start');
    const quitExit = quitRow.getByTestId('swarm-exit');
    await quitExit.waitFor({ timeout: 15_000 });
    expect(await quitExit.getAttribute('data-kind')).toBe('unexpected-stop');
    expect(await text(quitExit)).toContain('the swarm server should run until it is stopped');
    // No engine status, no stale hint, no "not watched" for a container that is not running.
    for (const row of [crashRow, quitRow]) {
      expect(await row.getByTestId('swarm-engine-status').count()).toBe(0);
      expect(await text(row)).not.toContain('not watched');
      expect(await text(row.getByTestId('swarm-container-text'))).toMatch(/^Exited \((3|0)\) .* ago$/);
    }
    await quitRow.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'exit-explained-after-reload');
  });
});
