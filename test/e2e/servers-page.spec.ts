import net from 'node:net';
import Docker from 'dockerode';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadTestbed } from '../testbed/testbed';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { fillStartForm, launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// The whole slice, as a user would drive it: the built UI in Chromium, the browser host, the real
// services, the real dockerd, and the fake swarm image (the only test double) from the local registry.
describe('Servers page end to end (Chromium + browser host + real Docker)', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
  });

  beforeEach(async () => {
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
  });

  afterEach(async (context) => {
    await saveScreenshot(page, context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
    await page.close();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
  });

  it('starts the fake swarm from the Servers page, shows ENGINE.OFFLINE, stops and removes it', async () => {
    const port = await freePort();
    await fillStartForm(page, { image: testbed.fakeSwarmImage, port });
    await expect.poll(async () => (await page.getByTestId('engine-card').textContent()) ?? '').toContain('Docker');
    await page.getByTestId('swarm-start-button').click();

    const row = page.getByTestId('swarm-container-row').filter({ hasText: String(port) });
    await row.getByTestId('swarm-engine-status').filter({ hasText: 'ENGINE.OFFLINE' }).waitFor({ timeout: 30_000 });
    expect((await row.getByTestId('swarm-engine-status').textContent())?.trim()).toBe('ENGINE.OFFLINE');
    await expect.poll(async () => (await page.getByTestId('statusbar-swarm').textContent()) ?? '').toContain('AgentJet swarm server: Running · ');
    await saveScreenshot(page, 'servers-running-engine-offline');

    const containerId = await row.getAttribute('data-container-id');
    expect(containerId).toMatch(/^[0-9a-f]{12,64}$/);
    expect((await docker.getContainer(containerId ?? '').inspect()).State.Running).toBe(true);

    await row.getByTestId('swarm-stop-button').click();
    await expect.poll(async () => (await docker.getContainer(containerId ?? '').inspect()).State.Running, { timeout: 30_000 }).toBe(false);
    await row.getByTestId('swarm-stop-button').waitFor({ state: 'detached', timeout: 15_000 });

    // A stopped server is removed at once; only a running one asks for confirmation first.
    await row.getByTestId('swarm-remove-button').click();
    await row.waitFor({ state: 'detached', timeout: 15_000 });
    await expect(docker.getContainer(containerId ?? '').inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect(pageErrors).toEqual([]);
  });

  it('shows a clear PORT_IN_USE message when the port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await fillStartForm(page, { image: testbed.fakeSwarmImage, port });
      await page.getByTestId('swarm-start-button').click();
      const banner = page.getByTestId('error-banner');
      await banner.waitFor({ timeout: 15_000 });
      const text = (await banner.textContent()) ?? '';
      expect(text).toContain(`Port ${port}`);
      expect(text).not.toMatch(/\bat\s+\S+\s+\(/); // no stack trace
    } finally {
      blocker.close();
    }
  });

  it('switches the UI to Simplified Chinese from Settings and keeps it after a reload', async () => {
    const navBefore = (await page.getByTestId('nav-servers').textContent())?.trim();
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-language-select').selectOption('zh-CN');
    await expect.poll(async () => (await page.getByTestId('nav-servers').textContent())?.trim()).not.toBe(navBefore);
    const navZh = (await page.getByTestId('nav-servers').textContent()) ?? '';
    expect(navZh).toMatch(/[\u4e00-\u9fff]/);
    await page.reload();
    await expect.poll(async () => (await page.getByTestId('nav-servers').textContent()) ?? '').toMatch(/[\u4e00-\u9fff]/);
    await page.getByTestId('nav-servers').click();
    await saveScreenshot(page, 'servers-page-in-simplified-chinese');
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-language-select').selectOption('en');
    await expect.poll(async () => (await page.getByTestId('nav-servers').textContent())?.trim()).toBe(navBefore);
  });
});
