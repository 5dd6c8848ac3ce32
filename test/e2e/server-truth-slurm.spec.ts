import { execFileSync } from 'node:child_process';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import type { AppNotification } from '../../electron/shared/schemas-profiles';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { freePort, poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot, showServer } from './browser';

// Issue 31's table, the scheduler's ends: on the test bed's REAL Slurm 22.05 (its sshd as the login node; one node with
// 2 CPUs; the server in each job is the fake swarm, the TEST DOUBLE of ajet-swarm). Three jobs at once: one with a
// 1-minute time limit (Slurm's shortest), one cancelled by a `scancel` typed in a terminal, and one that waits in the
// queue (the other two hold both CPUs) until the cancel frees a CPU, then runs until its node goes DOWN. In Chromium
// the profile card's badge, its dashboard's badge, the job's badge in the jobs panel and the fleet page's badge must
// say the same words, queued and ended, after a reload too; each end is told once as a notification.
const tb = loadTestbedWithSlurm();
const activate = loadTestbed().native.sshUserActivate;
const run = `st${process.pid.toString(36)}${Date.now().toString(36)}`;

function asAdmin(...args: string[]): string {
  return execFileSync(`${tb.slurm.bin}/scontrol`, args, { env: { ...process.env, SLURM_CONF: tb.slurm.conf }, encoding: 'utf8' });
}

describe('one truth per Slurm job on every surface (Chromium + real Slurm)', () => {
  const notifications: AppNotification[] = [];
  const pageErrors: string[] = [];
  let app: TestApp;
  let conn: SshConnection;
  let browser: Browser;
  let page: Page;
  let engineId = '';
  const profiles: { label: string; profileId: string; jobId: string }[] = [];

  const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();
  const badge = async (locator: Locator) => (await text(locator)).split(' · ')[0];

  beforeAll(async () => {
    requireBuiltRenderer();
    conn = await connectToTestbed({}, tb);
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    app.hub.subscribe((channel, payload) => {
      if (channel === 'app:notification') notifications.push(payload as AppNotification);
    });
    engineId = await connectTestbedServer(app, `slurm-${run}`, tb, { docker: { engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' } });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    for (const { profileId } of profiles) await conn?.exec(`scancel -u "$USER" -n agentswarm-${profileId}; rm -rf "$HOME/.agentswarm/slurm/agentswarm-${profileId}"`).catch(() => undefined);
    const state = /\bState=(\S+)/.exec(asAdmin('-o', 'show', 'node', tb.slurm.node))?.[1] ?? '';
    if (/DOWN|DRAIN|FAIL/.test(state)) asAdmin('update', `nodename=${tb.slurm.node}`, 'state=resume');
    await browser?.close();
    await app?.dispose();
    await conn?.close();
  });

  type Entry = { label: string; profileId: string; jobId: string };
  async function startProfile(label: string, port: number, slurm: { timeLimit: string; warnBeforeLimitSeconds?: number } = { timeLimit: '10' }): Promise<Entry> {
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({ label, engineId, mode: 'native', image: 'ghcr.io/modelscope/agentjet:main', port, nativeActivate: activate, slurm: { partition: tb.slurm.partition, ...slurm, run: { mode: 'native', activate } } }),
    );
    const started = await app.handlers['profiles:start']({ profileId: added.profile.id, secrets: {}, skipDoctor: true, replaceDrifted: false });
    const entry = { label, profileId: added.profile.id, jobId: started.runtime.container?.id ?? '' };
    profiles.push(entry);
    return entry;
  }

  const online = (entry: Entry, ms: number) =>
    poll(`${entry.label} to run and answer`, ms, async () => {
      const s = (await app.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === entry.jobId);
      return s?.connection === 'online' ? s : undefined;
    }, 500);

  const cardOf = (label: string) => page.getByTestId('profile-card').filter({ has: page.getByRole('heading', { name: label, exact: true }) });

  const phaseOn = (entry: Entry) => {
    const card = cardOf(entry.label);
    return {
      card: card.getByTestId('profile-phase'),
      dashboard: card.getByTestId('training-phase'),
      panel: page.getByTestId('slurm-job').and(page.locator(`[data-job-id="${entry.jobId}"]`)).getByTestId('slurm-job-state'),
    };
  };

  /** Each server's words on the card, its dashboard and the jobs panel, then on the fleet page; ended ones count no engine status. */
  async function sameWords(expected: [Entry, string | RegExp][]): Promise<void> {
    for (const [entry, words] of expected) {
      const on = phaseOn(entry);
      const matcher = (poller: ReturnType<typeof expect.poll>) => (typeof words === 'string' ? poller.toBe(words) : poller.toMatch(words));
      await matcher(expect.poll(() => badge(on.card), { timeout: 150_000, message: `${entry.label}: card` })).catch(async (error: unknown) => {
        const state = (await app.handlers['fleet:states']({})).find((x) => x.engineId === engineId && x.containerId === entry.jobId);
        const cards = await page.getByTestId('profile-card').allTextContents();
        throw new Error(`${entry.label} (job ${entry.jobId}): state ${JSON.stringify(state && [state.phase, state.queue, state.end?.kind])}; cards: ${cards.map((c) => c.slice(0, 200)).join(' | ')}`, { cause: error });
      });
      const said = await badge(on.card);
      await expect.poll(() => badge(on.dashboard), { timeout: 10_000, message: `${entry.label}: dashboard` }).toBe(said);
      await expect.poll(() => badge(on.panel), { timeout: 30_000, message: `${entry.label}: jobs panel` }).toBe(said);
      if (typeof words === 'string') expect(await cardOf(entry.label).getByTestId('training-status').count(), `${entry.label}: dashboard status after the end`).toBe(0);
    }
    await page.getByTestId('nav-fleet').click();
    for (const [entry, words] of expected) {
      const fleet = page.getByTestId('fleet-server').and(page.locator(`[data-key="${engineId}:${entry.jobId}"]`)).getByTestId('fleet-phase');
      if (typeof words === 'string') await expect.poll(() => badge(fleet), { timeout: 10_000, message: `${entry.label}: fleet` }).toBe(words);
      else await expect.poll(() => badge(fleet), { timeout: 10_000, message: `${entry.label}: fleet` }).toMatch(words);
    }
    await page.getByTestId('nav-servers').click();
  }

  /**
   * The Slurm server's place in the Servers page's list, chosen as a user would: the default place is where a swarm
   * server runs, and npm test runs this file beside e2e files whose containers run on the shared dockerd, this app's
   * local engine (loaded run L10: the page showed the local engine's detail, no profile card of the Slurm jobs).
   */
  const showSlurmServer = () => showServer(page, `ssh:${engineId.slice('ssh-'.length)}`);

  async function reload(): Promise<void> {
    await page.reload();
    await page.getByTestId('nav-servers').click();
    await showSlurmServer();
  }

  it('a time limit, a scancel outside the app, a queued job and a node failure read the same on the card, its dashboard, the jobs panel and the fleet page, also after a reload; each end told once', { timeout: 480_000 }, async () => {
    const [port, port1, port2] = [await freePort(), await freePort(), await freePort()];
    // The time limit first: it runs out while the rest of the test goes on (60 s, plus up to 30 s for Slurm's check).
    const timed = await startProfile(`Time limit ${run}`, port, { timeLimit: '1', warnBeforeLimitSeconds: 30 });
    const cancelled = await startProfile(`Cancelled ${run}`, port1);
    const queued = await startProfile(`Queued then node down ${run}`, port2);
    for (const entry of [timed, cancelled]) await online(entry, 150_000);
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
    await showSlurmServer();

    // Both CPUs taken: the third job waits, with Slurm's reason in words and its place, the same on every surface.
    const waiting = /^Queued: .+/;
    await sameWords([[queued, waiting]]);
    await reload();
    await sameWords([[queued, waiting]]);
    expect(await phaseOn(queued).card.getAttribute('data-phase')).toBe('queued');

    // A scancel in a terminal frees a CPU: the queued job runs.
    expect((await conn.exec(`scancel ${cancelled.jobId}`)).code).toBe(0);
    await sameWords([[cancelled, 'Cancelled in the scheduler']]);
    await sameWords([[timed, 'Time limit reached']]);
    // The node goes down only now: the timed job ended by its limit, not by the node.
    await online(queued, 150_000);
    try {
      asAdmin('update', `nodename=${tb.slurm.node}`, 'state=down', `reason=agentswarm test ${run}`);
      await sameWords([[queued, 'Node failed']]);
    } finally {
      const state = /\bState=(\S+)/.exec(asAdmin('-o', 'show', 'node', tb.slurm.node))?.[1] ?? '';
      if (/DOWN|DRAIN|FAIL/.test(state)) asAdmin('update', `nodename=${tb.slurm.node}`, 'state=resume');
    }
    await saveScreenshot(page, 'server-truth-slurm-ends');
    const ends: [Entry, string][] = [
      [timed, 'Time limit reached'],
      [cancelled, 'Cancelled in the scheduler'],
      [queued, 'Node failed'],
    ];
    await reload();
    await sameWords(ends);

    // Each end told once, none while the job waited in the queue.
    const told = notifications.filter((n) => n.kind === 'server-ended');
    const kinds = { [timed.jobId]: 'time-limit', [cancelled.jobId]: 'cancelled', [queued.jobId]: 'node-failure' };
    for (const [entry] of ends) {
      expect(told.filter((n) => n.containerId === entry.jobId).map((n) => [n.title, n.end?.kind]), entry.label).toEqual([[`Slurm job ${entry.jobId} ended`, kinds[entry.jobId]]]);
    }
    expect(pageErrors).toEqual([]);
  });
});
