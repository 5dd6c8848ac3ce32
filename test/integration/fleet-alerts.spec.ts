import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import type { Notifier } from '../../electron/services/notifier';
import type { AppNotification } from '../../electron/shared/schemas-profiles';
import { loadTestbed } from '../testbed/testbed';
import { freePort, poll } from '../support/helpers';
import { installFakeNvidiaSmi, type FakeNvidiaSmi } from '../support/fake-nvidia-smi';
import { startTestApp, type TestApp } from '../support/test-app';

/** TEST DOUBLE: a Notifier that records what the app would show, instead of a desktop notification. */
class RecordingNotifier implements Notifier {
  readonly shown: AppNotification[] = [];
  notify(notification: AppNotification): void {
    this.shown.push(notification);
  }
}

const PAGE = 'fleet-alerts-test-page';
// GPUs read every 2 s here (the app's own pace, 10 s shown and 60 s hidden, is gpu-sampling.spec's): the alerts follow
// the samples, whatever their pace.
const FAST = { intervalMs: 2000, hiddenIntervalMs: 2000, maxBackoffMs: 2000 };

// Real dockerd from the test bed, the fake swarm image (a labelled test double of the server), and the labelled
// nvidia-smi double scripted to idle GPUs, then busy ones: the GPUs-idle alert opens, is told once, and resolves.
describe('the GPUs-idle alert against the nvidia-smi double', () => {
  const testbed = loadTestbed();
  const notifier = new RecordingNotifier();
  let fake: FakeNvidiaSmi;
  let app: TestApp;
  let containerId: string | undefined;

  beforeAll(async () => {
    fake = await installFakeNvidiaSmi([{ utilizationPct: 1 }, { utilizationPct: 0 }]);
    app = await startTestApp({ monitorIntervalMs: 500, notifier, gpus: { command: fake.command, pace: FAST } });
    // Idle at once (0 min) instead of after 15 min; the home is shown, as when someone looks.
    const told: unknown[] = [];
    const stopListening = app.hub.subscribe((channel, payload) => void (channel === 'alerts:thresholds-changed' && told.push(payload)));
    await app.handlers['alerts:set-thresholds']({ idleMinutes: 0 });
    stopListening();
    // Every window's form hears of the save (the one that saved gets the same values as its answer).
    expect(told).toEqual([expect.objectContaining({ idleMinutes: 0, diskPct: 90 })]);
    await app.handlers['app:visibility']({ pageId: PAGE, shown: true });
    await app.handlers['gpus:home-shown']({ pageId: PAGE, shown: true });
    const port = await freePort();
    ({ id: containerId } = await app.handlers['swarm:start']({ engineId: 'local', image: testbed.fakeSwarmImage, port, networkMode: 'host', gpus: false, shmSizeGb: 1 }));
  }, 120_000);

  afterAll(async () => {
    if (containerId) await app.handlers['swarm:remove']({ engineId: 'local', containerId }).catch(() => undefined);
    await app?.dispose();
    await fake?.remove();
  });

  it('opens while the GPUs idle, tells it once, is acknowledged, and resolves when they work', async () => {
    const open = await poll('the GPUs-idle alert', 60_000, async () => (await app.handlers['alerts:list']({})).find((a) => a.rule === 'gpus-idle' && a.containerId === containerId && a.engineId === 'local'));
    expect(open).toMatchObject({ state: 'open', detail: '2 GPUs under 5 % for 0 min', say: { key: 'gpusIdle', params: { n: 2, pct: 5, minutes: 0 } } });
    // Another sample (2 s later) of the same idle GPUs: still one episode, told once.
    await poll('a second idle sample', 30_000, async () => ((await fake.calls()).length >= 3 ? true : undefined));
    const told = notifier.shown.filter((n) => n.kind === 'fleet-alert' && n.containerId === containerId && n.engineId === 'local');
    expect(told).toHaveLength(1);
    expect(told[0]!.title).toMatch(/^GPUs idle: /);
    expect((await app.handlers['alerts:acknowledge']({ id: open.id })).state).toBe('acknowledged');

    await fake.setGpus([{ utilizationPct: 88 }, { utilizationPct: 91 }]);
    const resolved = await poll('the alert resolved', 30_000, async () => {
      const alert = (await app.handlers['alerts:list']({})).find((a) => a.id === open.id);
      return alert?.state === 'resolved' ? alert : undefined;
    });
    expect(resolved.resolvedAt).not.toBeNull();
    expect(notifier.shown.filter((n) => n.kind === 'fleet-alert' && n.containerId === containerId && n.engineId === 'local')).toHaveLength(1);
  }, 150_000);
});

// The disk alert: `df -P` of the profile's checkpoint folder, read in the GPU sampler's visit to the host (the double
// counts one call per visit), with the threshold lowered so this machine's disk is over it.
describe('the disk alert from df in the GPU visit', () => {
  const testbed = loadTestbed();
  const notifier = new RecordingNotifier();
  let fake: FakeNvidiaSmi;
  let app: TestApp;
  let scratch: string;
  let profileId: string | undefined;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'agentswarm-disk-alert-'));
    fake = await installFakeNvidiaSmi([{ utilizationPct: 90 }]);
    app = await startTestApp({ monitorIntervalMs: 500, notifier, gpus: { command: fake.command, pace: FAST } });
  }, 60_000);

  afterAll(async () => {
    if (profileId) {
      await app.handlers['profiles:stop']({ profileId }).catch(() => undefined);
      await app.handlers['profiles:remove']({ profileId }).catch(() => undefined);
    }
    await app?.dispose();
    await fake?.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  it("opens when the checkpoint folder's disk is over the threshold, and resolves when the threshold is raised", async () => {
    const checkpoints = join(scratch, 'ckpt');
    const port = await freePort();
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({ label: 'Disk check', engineId: 'local', image: testbed.fakeSwarmImage, port, networkMode: 'host', gpus: { mode: 'none' }, shm: { mode: 'size', gb: 1 }, checkpointsDir: checkpoints }),
    );
    profileId = added.profile.id;
    const { runtime } = await app.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false });
    const containerId = runtime.container!.id;
    const sample = await poll('a sample with the folder\'s disk', 60_000, async () => (await app.handlers['gpus:samples']({})).find((s) => s.disks?.some((d) => d.path === checkpoints && d.usedPct !== null)));
    const used = sample.disks!.find((d) => d.path === checkpoints)!.usedPct!;
    expect(sample.gpus).toHaveLength(1);
    // Not over 90 % here (unless this machine's disk is): below the threshold, no alert.
    if (used <= 90) expect((await app.handlers['alerts:list']({})).filter((a) => a.rule === 'disk')).toEqual([]);

    await app.handlers['alerts:set-thresholds']({ diskPct: Math.max(1, used - 1) });
    const open = await poll('the disk alert', 30_000, async () => (await app.handlers['alerts:list']({})).find((a) => a.rule === 'disk' && a.containerId === containerId && a.state === 'open'));
    expect(open.detail).toMatch(new RegExp(`^the disk of ${checkpoints} is \\d+ % full$`));
    expect(open.say).toMatchObject({ key: 'diskOf', params: { path: checkpoints } });
    expect(notifier.shown.filter((n) => n.kind === 'fleet-alert' && n.title === 'Disk almost full: "Disk check"')).toHaveLength(1);
    // One nvidia-smi per visit: the df rode along, it did not add a visit of its own.
    const calls = (await fake.calls()).length;
    const samples = await poll('two more visits', 30_000, async () => ((await fake.calls()).length >= calls + 2 ? (await fake.calls()).length : undefined));
    expect(samples).toBeGreaterThanOrEqual(calls + 2);

    await app.handlers['alerts:set-thresholds']({ diskPct: 100 });
    const resolved = await poll('the disk alert resolved', 30_000, async () => {
      const alert = (await app.handlers['alerts:list']({})).find((a) => a.id === open.id);
      return alert?.state === 'resolved' ? alert : undefined;
    });
    expect(resolved.resolvedAt).not.toBeNull();
  }, 150_000);
});

// Alerts survive a backend restart: the open episode is read back from the data folder, still open, and its
// condition holding again after the restart does not tell it a second time.
describe('the alerts across a backend restart', () => {
  const testbed = loadTestbed();
  let fake: FakeNvidiaSmi;
  let dataDir: string;
  let app: TestApp | undefined;
  let containerId: string | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agentswarm-alerts-restart-'));
    fake = await installFakeNvidiaSmi([{ utilizationPct: 2 }]);
  });

  afterAll(async () => {
    if (containerId) await app?.handlers['swarm:remove']({ engineId: 'local', containerId }).catch(() => undefined);
    await app?.dispose();
    await fake?.remove();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the open episode and does not tell it again', async () => {
    const before = new RecordingNotifier();
    app = await startTestApp({ dataDir, monitorIntervalMs: 500, notifier: before, gpus: { command: fake.command, pace: FAST } });
    await app.handlers['alerts:set-thresholds']({ idleMinutes: 0 });
    ({ id: containerId } = await app.handlers['swarm:start']({ engineId: 'local', image: testbed.fakeSwarmImage, port: await freePort(), networkMode: 'host', gpus: false, shmSizeGb: 1 }));
    const open = await poll('the GPUs-idle alert', 60_000, async () => (await app!.handlers['alerts:list']({})).find((a) => a.rule === 'gpus-idle' && a.containerId === containerId));
    expect(before.shown.filter((n) => n.kind === 'fleet-alert' && n.containerId === containerId)).toHaveLength(1);
    // Stop, not dispose: dispose also sweeps the test's containers away, and this one must outlive the backend.
    await app.stop();

    // The server keeps running while the backend is down; the new backend finds it by its labels.
    const after = new RecordingNotifier();
    app = await startTestApp({ dataDir, monitorIntervalMs: 500, notifier: after, gpus: { command: fake.command, pace: FAST } });
    await poll('the server found again', 30_000, async () => ((await app!.handlers['fleet:states']({})).find((s) => s.containerId === containerId && s.phase !== 'ended') ? true : undefined));
    const kept = (await app.handlers['alerts:list']({})).find((a) => a.id === open.id);
    expect(kept).toMatchObject({ state: 'open', openedAt: open.openedAt, rule: 'gpus-idle' });
    // Several idle samples after the restart (each one a full GPUs-idle verdict at idleMinutes 0): still the one episode, untold.
    const calls = (await fake.calls()).length;
    await poll('three samples after the restart', 30_000, async () => ((await fake.calls()).length >= calls + 3 ? true : undefined));
    const alerts = (await app.handlers['alerts:list']({})).filter((a) => a.rule === 'gpus-idle' && a.containerId === containerId);
    expect(alerts.map((a) => [a.id, a.state])).toEqual([[open.id, 'open']]);
    // This server's episode only: the shared dockerd may hold another file's server at this moment, idle too, which
    // this app rightly tells (a loaded run saw one: "1 GPU under 5 %" about a container that was not this test's).
    expect(after.shown.filter((n) => n.kind === 'fleet-alert' && n.containerId === containerId)).toEqual([]);
  }, 150_000);
});
