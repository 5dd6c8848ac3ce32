import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notifier } from '../../electron/services/notifier';
import type { FleetAlert } from '../../electron/shared/schemas-fleet';
import { ProfileInput, type AppNotification } from '../../electron/shared/schemas-profiles';
import { loadTestbed } from '../testbed/testbed';
import { freePort, poll } from '../support/helpers';
import { installFakeNvidiaSmi, type FakeNvidiaSmi } from '../support/fake-nvidia-smi';
import { SwarmTestClient, smallJobYaml } from '../support/swarm-test-client';
import { startTestApp, type TestApp } from '../support/test-app';

/** TEST DOUBLE: a Notifier that records what the app would show, instead of a desktop notification. */
class RecordingNotifier implements Notifier {
  readonly shown: (AppNotification & { at: number })[] = [];
  notify(notification: AppNotification): void {
    this.shown.push({ ...notification, at: Date.now() });
  }
}

const PAGE = 'fleet-auto-stop-test-page';
// Test-only minute values, through the profile and the thresholds (never sleeps of minutes): idle at once, and
// auto-stop 0.3 min (18 s) after the idle alert, its warning 9 s before that.
const AUTO_STOP_MINUTES = 0.3;

// Real dockerd from the test bed, the fake swarm image (a labelled test double of AgentJet's server) with its fake
// trainer, and the labelled nvidia-smi double scripted to idle GPUs: auto-stop stops a profile's idle server after
// its warning, and does not stop one whose training step is in progress until the step is over.
describe('auto-stop against the nvidia-smi double and the fake trainer', () => {
  const testbed = loadTestbed();
  const notifier = new RecordingNotifier();
  let fake: FakeNvidiaSmi;
  let app: TestApp;
  const profiles: string[] = [];

  beforeAll(async () => {
    fake = await installFakeNvidiaSmi([{ utilizationPct: 1 }, { utilizationPct: 0 }]);
    // GPUs read every 2 s here (the app's pace is 10 s shown, 60 s hidden; gpu-sampling.spec counts that budget).
    const pace = { intervalMs: 2000, hiddenIntervalMs: 2000, maxBackoffMs: 2000 };
    app = await startTestApp({ monitorIntervalMs: 500, notifier, gpus: { command: fake.command, pace } });
    await app.handlers['alerts:set-thresholds']({ idleMinutes: 0 });
    await app.handlers['app:visibility']({ pageId: PAGE, shown: true });
  }, 60_000);

  afterAll(async () => {
    for (const profileId of profiles) {
      await app.handlers['profiles:stop']({ profileId }).catch(() => undefined);
      await app.handlers['profiles:remove']({ profileId }).catch(() => undefined);
    }
    await app?.dispose();
    await fake?.remove();
  });

  async function startProfile(label: string, autoStop: { enabled: boolean; minutes: number }): Promise<{ profileId: string; containerId: string; port: number }> {
    const port = await freePort();
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({ label, engineId: 'local', image: testbed.fakeSwarmImage, port, networkMode: 'host', gpus: { mode: 'none' }, shm: { mode: 'size', gb: 1 }, autoStop }),
    );
    profiles.push(added.profile.id);
    const started = await app.handlers['profiles:start']({ profileId: added.profile.id, secrets: {}, skipDoctor: true, replaceDrifted: false });
    return { profileId: added.profile.id, containerId: started.runtime.container!.id, port };
  }

  const idleAlertOf = async (containerId: string): Promise<FleetAlert | undefined> =>
    (await app.handlers['alerts:list']({})).find((a) => a.rule === 'gpus-idle' && a.containerId === containerId);
  const phaseOf = async (containerId: string) => (await app.handlers['fleet:states']({})).find((s) => s.containerId === containerId)?.phase;
  const told = (containerId: string, title: RegExp) => notifier.shown.filter((n) => n.containerId === containerId && title.test(n.title));

  it('warns half the time before, then stops the idle server and says so', async () => {
    const { containerId } = await startProfile('Idle night run', { enabled: true, minutes: AUTO_STOP_MINUTES });
    const opened = await poll('the GPUs-idle alert', 60_000, () => idleAlertOf(containerId));
    expect(opened.autoStop).toMatchObject({ state: 'pending', warnedAt: null });
    const warning = await poll('the auto-stop warning', 60_000, async () => told(containerId, /^Auto-stop in /)[0]);
    expect(warning.title).toBe('Auto-stop in 9 s: "Idle night run"');
    expect(warning.body).toContain('To keep it running, acknowledge the GPUs-idle alert (Keep running, on the Fleet page), or turn auto-stop off in its profile.');
    const stopped = await poll('the auto-stop', 60_000, async () => told(containerId, /^Auto-stopped: /)[0], 200);
    // Never before the warning's N/2 minutes are over (9 s; the 30 s evaluation and 2 s samples only add).
    expect(stopped.at - warning.at).toBeGreaterThanOrEqual(9_000 - 500);
    expect(await poll('the server ended', 30_000, async () => ((await phaseOf(containerId)) === 'ended' ? 'ended' : undefined))).toBe('ended');
    const after = await poll('the alert resolved', 30_000, async () => {
      const alert = await idleAlertOf(containerId);
      return alert?.state === 'resolved' ? alert : undefined;
    });
    expect(after.autoStop?.state).toBe('stopped');
    expect(told(containerId, /^GPUs idle: /)).toHaveLength(1);
    expect(told(containerId, /^Auto-stop in /)).toHaveLength(1);
  }, 150_000);

  it('does not stop while a training step is in progress (the batch filling), and stops once it is over', async () => {
    // Auto-stop off while the trainer is brought into a step; turned on afterwards, when its time is long past.
    const { profileId, containerId, port } = await startProfile('Busy night run', { enabled: false, minutes: AUTO_STOP_MINUTES });
    const client = new SwarmTestClient(`http://127.0.0.1:${port}`);
    await poll('the engine OFFLINE', 60_000, async () => ((await app.handlers['fleet:states']({})).find((s) => s.containerId === containerId)?.engineStatus === 'ENGINE.OFFLINE' ? true : undefined));
    expect(await client.post('/sync_train_config', { yaml_as_string: smallJobYaml('/models/Qwen2.5-0.5B-Instruct') })).toEqual({ success: true });
    expect(await client.post('/start_engine')).toMatchObject({ success: true });
    // One episode of the step's two finished: ROLLING with the batch filling.
    const first = await client.claim();
    const step = (await client.step()) as number;
    await client.end(first, `task-${step}`, 0);
    const opened = await poll('the GPUs-idle alert', 60_000, () => idleAlertOf(containerId));
    expect(opened.autoStop ?? null).toBeNull();

    const profile = (await app.handlers['profiles:list']({})).find((v) => v.profile.id === profileId)!.profile;
    const { id: _id, createdAt: _c, updatedAt: _u, ...input } = profile;
    await app.handlers['profiles:update']({ profileId, profile: { ...input, autoStop: { enabled: true, minutes: AUTO_STOP_MINUTES } } });
    const warning = await poll('the auto-stop warning', 60_000, async () => told(containerId, /^Auto-stop in /)[0]);
    const waiting = await poll('auto-stop waiting for the step', 60_000, async () => {
      const alert = await idleAlertOf(containerId);
      return alert?.autoStop?.state === 'waiting-step' ? alert : undefined;
    }, 200);
    expect(Date.now() - warning.at).toBeGreaterThanOrEqual(9_000 - 500);
    // Well past its time, the server still runs, its step unfinished.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(await phaseOf(containerId)).toBe('training');
    expect(told(containerId, /^Auto-stopped: /)).toEqual([]);
    expect((await idleAlertOf(containerId))?.autoStop?.state).toBe('waiting-step');
    expect(waiting.autoStop?.at).toBeTruthy();

    // The step's second episode: ROLLING_POST, WEIGHT_SYNCING (the fake's 8 s), the next step with an empty batch.
    const second = await client.claim();
    await client.end(second, `task-${step}`, 1);
    const stopped = await poll('the auto-stop after the step', 90_000, async () => told(containerId, /^Auto-stopped: /)[0], 200);
    // Stopped after the step: the engine had reached the next one.
    expect((await app.handlers['training:view']({ engineId: 'local', containerId })).globalStep).toBe(step + 1);
    expect(stopped.title).toBe('Auto-stopped: "Busy night run"');
    expect(await poll('the server ended', 30_000, async () => ((await phaseOf(containerId)) === 'ended' ? 'ended' : undefined))).toBe('ended');
  }, 240_000);
});
