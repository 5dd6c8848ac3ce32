import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbedWithJump } from '../testbed/testbed';
import { auditBothSchemes } from './axe';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

/**
 * A server card whose SSH link is up: "degraded" is up too, with a tunnel whose swarm API does not answer, which on the
 * test bed's shared dockerd may be another file's swarm server still starting (scripts/test-lanes.mjs runs them side by side).
 */
const CONNECTED_CARD = '[data-testid="server-card"]:is([data-state="up"], [data-state="degraded"])';

// Issue 12 as a user drives it: the built UI in Chromium, the browser host, the real services, the
// test bed's real sshd (127.0.0.1:2222) and dockerd behind it, and the fake swarm image (the only
// test double). The app's known_hosts starts empty (startTestApp keeps it in its data folder), so
// the host-key question is real, and its fingerprint must be the one sshd's key file has.
describe('SSH servers end to end (Chromium + browser host + real sshd + real Docker)', () => {
  const testbed = loadTestbedWithJump();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const reports: string[] = [];
  /** The first test's swarm server's port: stopped by that test, found again by the last one. */
  let stoppedSwarmPort = 0;

  const audit = (where: string): Promise<void> => auditBothSchemes(page, where, reports);

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
  });

  afterEach(async (context) => {
    // The page as the test left it, failing or not.
    await saveScreenshot(page, `ssh-servers-end-${context.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
  });

  afterAll(async () => {
    await page?.close();
    await browser?.close();
    // Removes the test containers (by label) and the data folder with its known_hosts.
    await app?.dispose();
  });

  it('adds the test bed server, trusts its key, starts the fake swarm on it, sees ENGINE.OFFLINE and a green link chain, stops it', async () => {
    const tunnelPort = await freePort();
    const swarmPort = await freePort();
    stoppedSwarmPort = swarmPort;

    await page.getByTestId('nav-servers').click();
    await page.getByTestId('server-add').click();
    const dialog = page.getByTestId('server-dialog');
    await dialog.getByTestId('server-form-label').fill('testbed');
    await dialog.getByTestId('server-form-host').fill(testbed.ssh.host);
    await dialog.getByTestId('server-form-port').fill(String(testbed.ssh.port));
    await dialog.getByTestId('server-form-username').fill(testbed.ssh.user);
    // The key file only: no agent (the test app has none) and no password prompt.
    for (const method of ['agent', 'password', 'keyboard-interactive']) {
      await dialog.getByTestId(`server-form-auth-${method}`).setChecked(false);
    }
    await dialog.getByTestId('server-form-identity-files').fill(testbed.ssh.plainKeyPath);
    await dialog.getByTestId('server-form-identities-only').setChecked(true);
    await dialog.getByTestId('server-form-tunnel-port').fill(String(tunnelPort));
    await saveScreenshot(page, 'ssh-add-server-dialog');
    await dialog.getByTestId('server-form-submit').click();

    // The new server connects at once and stops at its unknown host key.
    const hostKey = page.getByTestId('host-key-dialog');
    await hostKey.waitFor({ timeout: 30_000 });
    expect((await hostKey.getByTestId('host-key-fingerprint').textContent())?.trim()).toBe(testbed.ssh.hostKeyFingerprint);
    expect(await hostKey.getByTestId('host-key-check-command').textContent()).toMatch(/^ssh-keygen -lf \/etc\/ssh\/ssh_host_\w+_key\.pub$/);
    await audit('host-key dialog (unknown key)');
    await saveScreenshot(page, 'ssh-host-key-dialog');
    await hostKey.getByTestId('host-key-trust').click();
    await hostKey.waitFor({ state: 'detached', timeout: 30_000 });

    const card = page.getByTestId('server-card');
    // Connected: up, or degraded by a tunnel to another file's swarm server still starting on the shared dockerd.
    await page.locator(CONNECTED_CARD).waitFor({ timeout: 60_000 });
    expect((await card.getByTestId('server-address').textContent())?.trim()).toBe(`${testbed.ssh.user}@${testbed.ssh.host}:${testbed.ssh.port}`);
    await audit('Servers page with a server card');
    await saveScreenshot(page, 'ssh-server-connected');

    // The server's own engine section: its Docker engine, start form and container list.
    const section = page.getByTestId('server-section');
    await expect.poll(async () => (await section.getByTestId('engine-card').textContent()) ?? '', { timeout: 30_000 }).toContain('Docker');
    await section.getByTestId('swarm-image-input').fill(testbed.fakeSwarmImage);
    await section.getByTestId('swarm-port-input').fill(String(swarmPort));
    await section.getByTestId('swarm-network-select').selectOption('host');
    await section.getByTestId('swarm-gpus-checkbox').setChecked(false);
    await section.getByTestId('swarm-start-button').click();

    const row = section.getByTestId('swarm-container-row').filter({ hasText: String(swarmPort) });
    await row.getByTestId('swarm-engine-status').filter({ hasText: 'ENGINE.OFFLINE' }).waitFor({ timeout: 60_000 });
    const containerId = await row.getAttribute('data-container-id');
    expect(containerId).toMatch(/^[0-9a-f]{12,64}$/);
    expect((await docker.getContainer(containerId ?? '').inspect()).State.Running).toBe(true);

    // The tunnel: the URL the training code uses is the local end, and every link is green.
    const tunnel = card.locator(`[data-testid="tunnel"][data-remote-port="${swarmPort}"]`);
    await tunnel.waitFor({ timeout: 30_000 });
    const chain = tunnel.getByTestId('link-chain');
    for (const link of ['ssh', 'local-port', 'remote-container', 'swarm-api']) {
      await chain.locator(`[data-testid="link-${link}"][data-state="ok"]`).waitFor({ timeout: 30_000 });
    }
    const url = (await tunnel.getByTestId('tunnel-url').textContent())?.trim() ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The monitor polls through the tunnel: the row's URL is the tunnel's local end, and so does a training client.
    expect((await row.getByTestId('swarm-url').textContent())?.trim()).toBe(url);
    const answer = await fetch(`${url}/get_engine_status`).then((r) => r.text());
    expect(answer).toContain('ENGINE.OFFLINE');
    expect(await tunnel.getByTestId('tunnel-ssh-command').textContent()).toContain(`-L 127.0.0.1:`);
    await audit('Servers page with a server, its tunnel and a running swarm server');
    await saveScreenshot(page, 'ssh-swarm-running-engine-offline-green-chain');
    // 800 px: the card, its link chain and the command still fit without spilling over.
    await page.setViewportSize({ width: 800, height: 800 });
    await card.scrollIntoViewIfNeeded();
    const overflow = await card.evaluate((element) => element.scrollWidth - element.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await audit('Servers page with a server card at 800 px');
    await saveScreenshot(page, 'ssh-server-card-800px');
    await page.setViewportSize({ width: 1280, height: 800 });

    await row.getByTestId('swarm-stop-button').click();
    await expect.poll(async () => (await docker.getContainer(containerId ?? '').inspect()).State.Running, { timeout: 30_000 }).toBe(false);
    await row.getByTestId('swarm-stop-button').waitFor({ state: 'detached', timeout: 15_000 });
    await saveScreenshot(page, 'ssh-swarm-stopped');

    expect(reports, reports.join('\n\n')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('runs "Test connection" against the same server: staged diagnostics, each stage with its status', async () => {
    const card = page.getByTestId('server-card');
    // Its own connection: the host key is known by now, and the key file needs no prompt. The test
    // bed has no GPUs, so the last stage may warn or fail, but every stage before it passes.
    await card.getByTestId('server-test').click();
    const diagnostics = card.getByTestId('diagnostics');
    await diagnostics.waitFor({ timeout: 60_000 });
    for (const stage of ['tcp', 'handshake', 'host-key', 'auth', 'docker-version', 'docker-permission']) {
      expect(await diagnostics.getByTestId(`diag-stage-${stage}`).getAttribute('data-status'), stage).toBe('pass');
    }
    expect(await diagnostics.getByTestId('diag-stage-gpus').getAttribute('data-status')).not.toBe('skipped');
    await audit('server card with its connection test');
    await saveScreenshot(page, 'ssh-server-diagnostics');
    expect(reports, reports.join('\n\n')).toEqual([]);
  });

  it('says the connection test in Chinese (issue 32): no English word outside commands, paths, names and program output', async () => {
    const switchTo = async (language: 'zh-CN' | 'en', servers: string): Promise<void> => {
      await page.getByTestId('nav-settings').click();
      await page.getByTestId('settings-language-select').selectOption(language);
      await expect.poll(async () => (await page.getByTestId('nav-servers').textContent())?.trim()).toBe(servers);
      await page.getByTestId('nav-servers').click();
    };
    await switchTo('zh-CN', '服务器');
    try {
      const card = page.getByTestId('server-card');
      await card.getByTestId('server-test').click();
      const diagnostics = card.getByTestId('diagnostics');
      await diagnostics.getByTestId('diag-stage-gpus').waitFor({ timeout: 60_000 });
      // Every stage, folded or not: open the fold so the check reads what a user would.
      const fold = diagnostics.getByTestId('diag-passed');
      if (await fold.count()) await fold.locator('summary').click();
      const words = await diagnostics.evaluate((el) => {
        const clone = el.cloneNode(true) as HTMLElement;
        for (const code of clone.querySelectorAll('code, pre')) code.remove();
        const tokens = (clone.innerText || clone.textContent || '').split(/[\s，。、：；（）「」《》“”]+/);
        // Identifiers, paths, endpoints, fingerprints and versions are not words of a sentence.
        return tokens.map((t) => t.replace(/^[("'‘“[{«<]+|[)"'’”\]}»>,.;:!?…]+$/g, '')).filter((t) => /^[A-Za-z]{2,}$/.test(t));
      });
      // Product and protocol names (as zh-cn-complete.spec.ts allows them), the test bed's user name, the owner group.
      const allowed = new Set(['ssh', 'tcp', 'docker', 'gpu', 'gpus', 'api', 'socket', 'ms', 'nvidia', 'container', 'toolkit', 'openssh', 'swarm', testbed.ssh.user.toLowerCase()]);
      expect(words.filter((w) => !allowed.has(w.toLowerCase()))).toEqual([]);
      expect(await diagnostics.locator('[lang="en"]').count()).toBe(0);
      await saveScreenshot(page, 'ssh-server-diagnostics-zh-cn');
    } finally {
      await switchTo('en', 'Servers');
    }
  });
  it('adds a server from the ssh config, through its ProxyJump host: both host keys asked for in turn, then up', async () => {
    // The app's ssh config (startTestApp keeps it in the data folder, never ~/.ssh). The target is
    // named `localhost` so it is another known_hosts entry than the first test's 127.0.0.1: the app
    // must ask about the jump host's key (hop 1) and then the target's (hop 2).
    const jump = testbed.jump!;
    writeFileSync(
      join(app.dataDir, 'ssh_config'),
      [
        'Host bastion',
        `  HostName ${jump.host}`,
        `  Port ${jump.port}`,
        `  User ${testbed.ssh.user}`,
        `  IdentityFile ${testbed.ssh.plainKeyPath}`,
        '  IdentitiesOnly yes',
        'Host gpu-via-bastion',
        '  HostName localhost',
        `  Port ${testbed.ssh.port}`,
        `  User ${testbed.ssh.user}`,
        `  IdentityFile ${testbed.ssh.plainKeyPath}`,
        '  IdentitiesOnly yes',
        '  ProxyJump bastion',
        '',
      ].join('\n'),
    );
    await page.getByTestId('server-add').click();
    const dialog = page.getByTestId('server-dialog');
    await dialog.getByTestId('server-dialog-import').click();
    const alias = dialog.locator('[data-testid="ssh-config-host"][data-alias="gpu-via-bastion"]');
    await alias.waitFor({ timeout: 15_000 });
    expect(await alias.textContent()).toContain(`${testbed.ssh.user}@${jump.host}:${jump.port}`);
    await saveScreenshot(page, 'ssh-import-from-ssh-config');
    await alias.getByTestId('ssh-config-use').click();
    // The form shows what was imported, for the user to check before adding.
    await dialog.getByTestId('server-form-imported').waitFor();
    expect(await dialog.getByTestId('server-form-host').inputValue()).toBe('localhost');
    await dialog.getByTestId('server-form-tunnel-port').fill(String(await freePort()));
    await dialog.getByTestId('server-form-submit').click();

    const hostKey = page.getByTestId('host-key-dialog');
    for (const fingerprint of [jump.hostKeyFingerprint, testbed.ssh.hostKeyFingerprint]) {
      await expect
        .poll(async () => (await hostKey.getByTestId('host-key-fingerprint').textContent().catch(() => ''))?.trim(), { timeout: 30_000 })
        .toBe(fingerprint);
      await hostKey.getByTestId('host-key-trust').click();
    }
    const card = page.locator('[data-testid="server-card"][data-server-id="gpu-via-bastion"]');
    await page.locator(CONNECTED_CARD.replace('[data-testid="server-card"]', '[data-testid="server-card"][data-server-id="gpu-via-bastion"]')).waitFor({ timeout: 60_000 });
    expect(await card.textContent()).toContain(`${jump.host}:${jump.port}`);
    // Its Docker engine answers through the jump host.
    const section = page.locator('[data-testid="server-section"][data-server-id="gpu-via-bastion"]');
    await expect.poll(async () => (await section.getByTestId('engine-card').textContent()) ?? '', { timeout: 30_000 }).toMatch(/Docker \d/);
    await card.scrollIntoViewIfNeeded();
    await audit('Servers page with a server reached through a jump host');
    await saveScreenshot(page, 'ssh-server-via-jump-host');
    // Its Docker is the test bed's, where the first test's stopped swarm container is found again:
    // rediscovery must not leave the server "degraded" on the word of that container's closed port. npm test runs
    // other files' swarm servers on the same dockerd meanwhile (scripts/test-lanes.mjs), and one still starting rightly
    // degrades the link (idle CI-AH: two of theirs, each "Starting"); so the stopped container has no tunnel, and the
    // link is up or degraded only by tunnels to other containers.
    const linkJudged = async (): Promise<string> => {
      const state = await card.getAttribute('data-state');
      const failing = await card
        .locator('[data-testid="tunnel"]')
        .filter({ has: page.locator('[data-testid="link-swarm-api"]:not([data-state="ok"])') })
        .evaluateAll((tunnels) => tunnels.map((t) => Number(t.getAttribute('data-remote-port'))));
      if (state === 'up') return 'up';
      if (state === 'degraded' && failing.length > 0 && !failing.includes(stoppedSwarmPort)) return 'degraded by other containers only';
      return `${state}, the tunnels failing: ${failing.join(', ') || 'none'}`;
    };
    expect(stoppedSwarmPort).toBeGreaterThan(0);
    await expect.poll(linkJudged, { timeout: 15_000 }).toMatch(/^(up|degraded by other containers only)$/);
    await new Promise((ok) => setTimeout(ok, 1000));
    expect(await linkJudged()).toMatch(/^(up|degraded by other containers only)$/);
    expect(await card.locator(`[data-testid="tunnel"][data-remote-port="${stoppedSwarmPort}"]`).count()).toBe(0);
    expect(reports, reports.join('\n\n')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
