import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    app = await startTestApp({ monitorIntervalMs: 500, notifier, gpus: { command: fake.command } });
    // Idle at once (0 min) instead of after 15 min, and samples every 10 s (the home is shown).
    await app.handlers['alerts:set-thresholds']({ idleMinutes: 0 });
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
    expect(open).toMatchObject({ state: 'open', detail: '2 GPUs under 5 % for 0 min' });
    // Another sample (10 s later) of the same idle GPUs: still one episode, told once.
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
