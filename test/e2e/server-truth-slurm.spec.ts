import { execFileSync } from 'node:child_process';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import type { AppNotification } from '../../electron/shared/schemas-profiles';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

// Issue 31's table, the scheduler's ends: on the test bed's REAL Slurm 22.05 (its sshd as the login node; the server
// in each job is the fake swarm, the TEST DOUBLE of ajet-swarm), a `scancel` typed in a terminal and a node that goes
// DOWN under a running job. In Chromium the profile card's badge, its dashboard's badge and the job's badge in the jobs
// panel must say the same words, after a reload too, and each end is told once as a notification.
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

  async function startProfile(label: string, port: number): Promise<{ label: string; profileId: string; jobId: string }> {
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({ label, engineId, mode: 'native', image: 'ghcr.io/modelscope/agentjet:main', port, nativeActivate: activate, slurm: { partition: tb.slurm.partition, timeLimit: '10', run: { mode: 'native', activate } } }),
    );
    const started = await app.handlers['profiles:start']({ profileId: added.profile.id, secrets: {}, skipDoctor: true, replaceDrifted: false });
    const entry = { label, profileId: added.profile.id, jobId: started.runtime.container?.id ?? '' };
    profiles.push(entry);
    return entry;
  }

  const cardOf = (label: string) => page.getByTestId('profile-card').filter({ has: page.getByRole('heading', { name: label, exact: true }) });

  async function sameWords(entry: { label: string; jobId: string }, words: string): Promise<void> {
    const card = cardOf(entry.label);
    await expect.poll(() => badge(card.getByTestId('profile-phase')), { timeout: 90_000, message: `${entry.label}: card` }).toBe(words);
    await expect.poll(() => badge(card.getByTestId('training-phase')), { timeout: 10_000, message: `${entry.label}: dashboard` }).toBe(words);
    const job = page.getByTestId('slurm-job').and(page.locator(`[data-job-id="${entry.jobId}"]`));
    await expect.poll(() => badge(job.getByTestId('slurm-job-state')), { timeout: 30_000, message: `${entry.label}: jobs panel` }).toBe(words);
  }

  it('a scancel outside the app and a node failure read the same on the card, its dashboard and the jobs panel, also after a reload; each told once', { timeout: 420_000 }, async () => {
    const port = 36_000 + (process.pid % 2000);
    const cancelled = await startProfile(`Cancelled ${run}`, port);
    const failed = await startProfile(`Node down ${run}`, port + 1);
    for (const entry of [cancelled, failed]) {
      await poll(`${entry.label} to run and answer`, 150_000, async () => {
        const s = (await app.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === entry.jobId);
        return s?.connection === 'online' ? s : undefined;
      }, 500);
    }
    page = await openAppPage(browser, app.host!.openUrl, pageErrors);
    await expect.poll(() => badge(cardOf(cancelled.label).getByTestId('profile-phase')), { timeout: 60_000 }).toBe('Running');

    // Both ends at once (the app's queue poll sees them in one turn): the cancel first, so the node that goes down
    // under the other job no longer runs the cancelled one.
    expect((await conn.exec(`scancel ${cancelled.jobId}`)).code).toBe(0);
    await poll('Slurm to call the job CANCELLED', 30_000, async () => ((await conn.exec(`squeue -h -t all -j ${cancelled.jobId} -o %T`)).stdout.includes('CANCELLED') ? true : undefined), 200);
    try {
      asAdmin('update', `nodename=${tb.slurm.node}`, 'state=down', `reason=agentswarm test ${run}`);
      await sameWords(cancelled, 'Cancelled in the scheduler');
      await sameWords(failed, 'Node failed');
    } finally {
      const state = /\bState=(\S+)/.exec(asAdmin('-o', 'show', 'node', tb.slurm.node))?.[1] ?? '';
      if (/DOWN|DRAIN|FAIL/.test(state)) asAdmin('update', `nodename=${tb.slurm.node}`, 'state=resume');
    }
    await saveScreenshot(page, 'server-truth-slurm-ends');
    await page.reload();
    await page.getByTestId('nav-servers').click();
    await sameWords(cancelled, 'Cancelled in the scheduler');
    await sameWords(failed, 'Node failed');

    const told = notifications.filter((n) => n.kind === 'server-ended');
    expect(told.filter((n) => n.containerId === cancelled.jobId).map((n) => [n.title, n.end?.kind])).toEqual([[`Slurm job ${cancelled.jobId} ended`, 'cancelled']]);
    expect(told.filter((n) => n.containerId === failed.jobId).map((n) => [n.title, n.end?.kind])).toEqual([[`Slurm job ${failed.jobId} ended`, 'node-failure']]);
    expect(pageErrors).toEqual([]);
  });
});
