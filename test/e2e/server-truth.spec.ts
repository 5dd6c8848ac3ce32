import Docker from 'dockerode';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppNotification } from '../../electron/shared/schemas-profiles';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { FakeSwarmVariants } from '../support/fake-variants';
import { freePort, poll } from '../support/helpers';
import { smallJobYaml, SwarmTestClient } from '../support/swarm-test-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// Issue 31: every surface tells the same truth about every end. One profile server per row of the table, each
// ended (or broken) the way users met it, on the real dockerd with the fake swarm image (the only test double);
// then, in Chromium, the profile card's badge, its training dashboard's badge, the fleet page's badge and the status
// bar must say the row's words, the backend must tell each unasked end once as a notification, and a reload must
// change nothing.
type Case = {
  name: string;
  /** ENV of the fake image (a boot outcome, a knob), or none. */
  env?: string;
  /** The knob is newer than the test bed's image: the variant carries this checkout's fake. */
  thisCheckout?: boolean;
  /** What happens to the running server. */
  act: (ctx: { port: number; containerId: string }) => Promise<void>;
  /** The badge's words (before " · for …"). */
  words: string;
  /** The notification's end kind, or null when no end is told (a problem while it runs, a stop you asked for). */
  told: string | null;
  /** A running server's problem also shows in the status bar. */
  bar?: string;
};

describe('one truth per server on every surface (Chromium + real Docker + fake swarm)', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  const variants = new FakeSwarmVariants(docker, testbed.fakeSwarmImage);
  const notifications: AppNotification[] = [];
  const pageErrors: string[] = [];
  let app: TestApp;
  /** The first app, once the test restarted it over the same data folder (disposed last: it owns the folder). */
  let earlier: TestApp | undefined;
  let browser: Browser;
  let page: Page;

  const bootWith = async (port: number) => {
    const client = new SwarmTestClient(`http://127.0.0.1:${port}`);
    await client.post('/sync_train_config', { yaml_as_string: smallJobYaml('/models/fake') });
    await client.post('/start_engine');
  };
  const signal = (sig: string) => async ({ containerId }: { containerId: string }) => void (await docker.getContainer(containerId).kill({ signal: sig }));

  const outOfMemory = async ({ containerId }: { containerId: string }) => {
    const container = docker.getContainer(containerId);
    await container.update({ Memory: 128 * 1024 * 1024, MemorySwap: 128 * 1024 * 1024 });
    await container.kill({ signal: 'SIGUSR2' });
  };

  const cases: Case[] = [
    { name: 'boot fails (OFFLINE after BOOTING)', env: 'AJET_FAKE_BOOT_OUTCOME=fail-offline', act: ({ port }) => bootWith(port), words: 'Engine failed to boot', told: null, bar: 'engine failed to boot' },
    { name: 'boot stuck in BOOTING with errors', env: 'AJET_FAKE_BOOT_OUTCOME=stuck-booting', act: ({ port }) => bootWith(port), words: 'Boot failing', told: null, bar: 'engine failed to boot' },
    // SIGHUP ends the server's process by signal: exit code 129, a crash nobody asked for.
    { name: 'crash', act: signal('SIGHUP'), words: 'Crashed (exit code 129)', told: 'crashed' },
    { name: 'docker kill', act: signal('SIGKILL'), words: 'Killed (exit code 137)', told: 'killed' },
    // The kernel's OOM killer: a 128 MiB limit set on the running container, then the fake's knob allocates until killed.
    { name: 'out of memory', env: 'AJET_FAKE_ALLOCATE_ON=SIGUSR2', thisCheckout: true, act: outOfMemory, words: 'Out of memory', told: 'out-of-memory' },
    { name: 'docker stop in a terminal', act: async ({ containerId }) => void (await docker.getContainer(containerId).stop({ t: 5 })), words: 'Stopped outside the app', told: 'stopped-outside' },
    // Ctrl+C: upstream posts /stop_engine and exits 0, although a server should run until stopped.
    { name: 'ended by itself (exit 0)', act: signal('SIGINT'), words: 'Stopped unexpectedly (exit code 0)', told: 'unexpected-stop' },
    { name: 'stopped by you', act: async () => undefined, words: 'Stopped', told: null },
  ];
  const started = new Map<string, { profileId: string; label: string; port: number; containerId: string }>();

  const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();
  const badge = async (locator: Locator) => (await text(locator)).split(' · ')[0];
  const cardOf = (label: string) => page.getByTestId('profile-card').filter({ has: page.getByRole('heading', { name: label, exact: true }) });

  beforeAll(async () => {
    requireBuiltRenderer();
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    app.hub.subscribe((channel, payload) => {
      if (channel === 'app:notification') notifications.push(payload as AppNotification);
    });
    browser = await launchChromium();
    // One profile server per row, started at once: the test waits once for all of them.
    await Promise.all(
      cases.map(async (c, i) => {
        const image = c.env ? await variants.image(`truth-${i}`, c.env, { thisCheckout: c.thisCheckout ?? false }) : testbed.fakeSwarmImage;
        const port = await freePort();
        const label = `Truth ${i + 1}`;
        const input = ProfileInput.parse({ label, engineId: 'local', image, port, networkMode: 'host', gpus: { mode: 'none' }, shm: { mode: 'size', gb: 1 } });
        const { profile } = await app.handlers['profiles:add'](input);
        const view = await app.handlers['profiles:start']({ profileId: profile.id, secrets: {}, skipDoctor: true, replaceDrifted: false });
        started.set(c.name, { profileId: profile.id, label, port, containerId: view.runtime.container?.id ?? '' });
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    await earlier?.dispose();
    await variants.dispose();
  });

  it('the card, its dashboard, the fleet page and the status bar say the same words for every end and problem, also after a reload; each unasked end is told once, not again after a backend restart', async () => {
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
    for (const c of cases) {
      const s = started.get(c.name)!;
      // Running and answering first, as a user would meet it.
      await cardOf(s.label)
        .getByTestId('profile-phase')
        .filter({ hasText: 'Running' })
        .waitFor({ timeout: 60_000 })
        .catch(async (error: unknown) => {
          throw new Error(`${s.label}: ${await text(cardOf(s.label))}`, { cause: error });
        });
    }
    for (const c of cases) {
      const s = started.get(c.name)!;
      if (c.name === 'stopped by you') await app.handlers['profiles:stop']({ profileId: s.profileId });
      else await c.act({ port: s.port, containerId: s.containerId });
    }

    const check = async () => {
      for (const c of cases) {
        const card = cardOf(started.get(c.name)!.label);
        const phase = card.getByTestId('profile-phase');
        await expect.poll(() => badge(phase), { timeout: 30_000, message: c.name }).toBe(c.words);
        // The card's training dashboard wears the same badge (one component, one model).
        await expect.poll(() => badge(card.getByTestId('training-phase')), { timeout: 10_000, message: `${c.name}: dashboard` }).toBe(c.words);
        if (c.bar) await expect.poll(() => text(page.getByTestId('statusbar-swarm')), { message: `${c.name}: status bar` }).toContain(c.bar);
        // Once its server ended, the dashboard counts no engine status on ("ROLLING for 2 minutes" after the end).
        else expect(await card.getByTestId('training-status').count(), `${c.name}: dashboard status after the end`).toBe(0);
      }
      // The fleet page wears the same badge for each server.
      await page.getByTestId('nav-fleet').click();
      for (const c of cases) {
        const server = page.getByTestId('fleet-server').and(page.locator(`[data-key="local:${started.get(c.name)!.containerId}"]`));
        await expect.poll(() => badge(server.getByTestId('fleet-phase')), { timeout: 10_000, message: `${c.name}: fleet` }).toBe(c.words);
      }
      await page.getByTestId('nav-servers').click();
    };
    await check();
    await saveScreenshot(page, 'server-truth-every-end');
    await page.reload();
    await page.getByTestId('nav-servers').click();
    await check();

    // Every end nobody asked for told once; problems of a running server and your own stop are not ends to tell.
    const told = notifications.filter((n) => n.kind === 'server-ended');
    for (const c of cases) {
      const forIt = told.filter((n) => n.containerId === started.get(c.name)!.containerId);
      expect(forIt.map((n) => n.end?.kind), c.name).toEqual(c.told ? [c.told] : []);
    }
    // The training monitor's own "container died" notice would tell the same end twice.
    expect(notifications.filter((n) => n.kind === 'container-died')).toEqual([]);
    expect(pageErrors).toEqual([]);

    // The backend restarted over the same data folder finds every end again (from the engine), and tells none again.
    const again: AppNotification[] = [];
    await app.stop();
    earlier = app;
    app = await startTestApp({ dataDir: earlier.dataDir, monitorIntervalMs: 300, notifier: { notify: (n) => void again.push(n) } });
    // Your own stop is still yours (read again from Docker alone it is a 143, "stopped outside the app").
    const endAfterRestart = (c: Case) => c.told ?? (c.bar ? null : 'stopped');
    await poll('the restarted app to know every end as before', 60_000, async () => {
      const states = await app.handlers['fleet:states']({});
      return cases.every((c) => endAfterRestart(c) === null || states.find((x) => x.containerId === started.get(c.name)!.containerId)?.end?.kind === endAfterRestart(c)) ? true : undefined;
    }, 300);
    // Telling is asynchronous (the told list is read from disk first): a moment for a wrong one to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Only this test's servers: the shared dockerd runs other suites' servers, whose ends this app may see too.
    const ours = new Set([...started.values()].map((s) => s.containerId));
    expect(again.filter((n) => n.kind === 'server-ended' && ours.has(n.containerId ?? ''))).toEqual([]);
  }, 300_000);
});
