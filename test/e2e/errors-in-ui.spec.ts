import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/helpers';
import { startTestApp } from '../support/test-app';
import { fillStartForm, launchChromium, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// The error cases the issue names, as a user meets them in the real UI: no stack traces, the
// translated title, and Docker's or our own explanation with the fix.
describe('errors shown in the UI (Chromium + browser host)', () => {
  let browser: Browser;
  let page: Page | undefined;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    browser = await launchChromium();
  });
  afterEach(async (context) => {
    if (page) await saveScreenshot(page, context.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
    await page?.close();
    for (const stop of stops.splice(0)) await stop();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(dockerHost: string | undefined): Promise<Page> {
    // A browser host over real services, with the Docker endpoint chosen by the test.
    const app = await startTestApp({ staticDir: rendererDir, ...(dockerHost ? { dockerHost } : {}) });
    stops.push(() => app.dispose());
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.host!.openUrl);
    await page.getByTestId('nav-servers').click();
    return page;
  }

  it('says Docker is unreachable, naming the socket, when no engine answers', async () => {
    const p = await open('unix:///nonexistent/agentswarm-test-docker.sock');
    const card = p.getByTestId('engine-card');
    // The card names the socket while it is still checking; the verdict comes after (slowly on a loaded machine).
    await expect.poll(async () => (await card.textContent()) ?? '', { timeout: 30_000 }).toMatch(/Is the Docker daemon running/);
    expect((await card.textContent()) ?? '').toContain('/nonexistent/agentswarm-test-docker.sock');

    await p.getByTestId('swarm-port-input').fill(String(await freePort()));
    await p.getByTestId('swarm-start-button').click();
    const banner = p.getByTestId('error-banner').last();
    await banner.waitFor({ timeout: 15_000 });
    expect((await banner.textContent()) ?? '').toMatch(/Is the Docker daemon running/);
    expect((await banner.textContent()) ?? '').not.toMatch(/\n\s+at /);
  });

  it('says the image is missing and how to pull it', async () => {
    const p = await open(undefined);
    const image = '127.0.0.1:5000/agentswarm-test/not-there:1';
    await fillStartForm(p, { image, port: await freePort() });
    await p.getByTestId('swarm-start-button').click();
    const banner = p.getByTestId('error-banner');
    await banner.waitFor({ timeout: 15_000 });
    expect((await banner.textContent()) ?? '').toContain(`docker pull ${image}`);
  });
});
