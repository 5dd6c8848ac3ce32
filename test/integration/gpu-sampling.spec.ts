import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GpuSample } from '../../electron/shared/schemas-fleet';
import { loadTestbed } from '../testbed/testbed';
import { freePort, poll } from '../support/helpers';
import { installFakeNvidiaSmi, type FakeNvidiaSmi } from '../support/fake-nvidia-smi';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';

const PAGE = 'gpu-sampling-test-page';

// Real dockerd and sshd from the test bed, the fake swarm image (a labelled test double of the server), and the
// labelled nvidia-smi double (test/stubs/nvidia-smi) run by the app over the connections it holds: this computer's
// shell for Local Docker, the SSH connection for the test bed's server. The test bed's dockerd is reached both ways,
// so one container makes both hosts hold a server.
describe('GPU sampling over the connections the app holds, within its budget', () => {
  const testbed = loadTestbed();
  let fake: FakeNvidiaSmi;
  let app: TestApp;
  let sshEngine: string;
  let containerId: string | undefined;
  const samples: GpuSample[] = [];
  /** Servers the store dropped (with when): a host drops out of the sampling with its last server. */
  const removed: string[] = [];

  /** What the sampler was working from, for a failure's message (neither failure seen so far could say why). */
  async function sampling(): Promise<string> {
    const states = (await app.handlers['fleet:states']({})).map((s) => `${s.key} ${s.phase}`);
    const latest = (await app.handlers['gpus:samples']({})).map((s) => ({ key: s.key, at: s.at, gpus: s.gpus.length, error: s.error }));
    return `states: ${JSON.stringify(states)}; removed: ${JSON.stringify(removed)}; samples: ${JSON.stringify(latest)}; ssh engine ${sshEngine}`;
  }

  beforeAll(async () => {
    fake = await installFakeNvidiaSmi([{ utilizationPct: 97, memoryUsedMiB: 40120 }, { utilizationPct: 3 }]);
    app = await startTestApp({ monitorIntervalMs: 500, gpus: { command: fake.command } });
    app.hub.subscribe((name, payload) => {
      if (name === 'gpus:sampled') samples.push(payload as GpuSample);
      if (name === 'fleet:state-removed') removed.push(`${new Date().toISOString()} ${JSON.stringify(payload)}`);
    });
    sshEngine = await connectTestbedServer(app, 'gpu-box');
    const port = await freePort();
    ({ id: containerId } = await app.handlers['swarm:start']({ engineId: 'local', image: testbed.fakeSwarmImage, port, networkMode: 'host', gpus: false, shmSizeGb: 1 }));
  }, 120_000);

  afterAll(async () => {
    if (containerId) await app.handlers['swarm:remove']({ engineId: 'local', containerId }).catch(() => undefined);
    await app?.dispose();
    await fake?.remove();
  });

  it('reads every GPU of this computer and of the SSH server, and with the home closed asks each host once a minute at most', async () => {
    let seen: GpuSample[] = [];
    const first = await poll('a sample of both hosts', 60_000, async () => {
      const all = (seen = await app.handlers['gpus:samples']({}));
      return all.some((s) => s.key === 'local' && s.gpus.length > 0) && all.some((s) => s.engineIds.includes(sshEngine) && s.gpus.length > 0) ? all : undefined;
    }).catch(async (error: Error) => {
      // Which host's sampling stalled (loaded run L19 timed out here and its logs could not say).
      const last = seen.map((s) => ({ key: s.key, engineIds: s.engineIds, at: s.at, gpus: s.gpus.length, error: s.error }));
      throw new Error(`${error.message}; samples: ${JSON.stringify(last)}; nvidia-smi calls: ${JSON.stringify(await fake.calls())}; ${await sampling()}`);
    });
    const local = first.find((s) => s.key === 'local')!;
    expect(local).toMatchObject({ hostLabel: 'this computer', hostKind: 'local', error: null });
    expect(local.gpus).toEqual([
      { index: 0, uuid: 'GPU-fake-0', utilizationPct: 97, memoryUsedMiB: 40120, memoryTotalMiB: 81920 },
      { index: 1, uuid: 'GPU-fake-1', utilizationPct: 3, memoryUsedMiB: 1024, memoryTotalMiB: 81920 },
    ]);
    const remote = first.find((s) => s.engineIds.includes(sshEngine))!;
    expect(remote.gpus.map((g) => g.utilizationPct)).toEqual([97, 3]);
    // Over SSH it runs as the test bed's user, here as this process's: one call per host so far.
    const users = (await fake.calls()).map((c) => c.user);
    expect(users.filter((u) => u === testbed.ssh.user)).toHaveLength(1);
    expect(users.filter((u) => u !== testbed.ssh.user)).toHaveLength(1);

    // The home closed for 20 s (the server's status changes meanwhile): no second call on either host.
    await new Promise((r) => setTimeout(r, 20_000));
    expect(await fake.calls()).toHaveLength(2);
  }, 90_000);

  it('asks every 10 s while a shown page shows the fleet home', async () => {
    const before = (await fake.calls()).length;
    await fake.setGpus([{ utilizationPct: 55 }]);
    await app.handlers['app:visibility']({ pageId: PAGE, shown: true });
    await app.handlers['gpus:home-shown']({ pageId: PAGE, shown: true });
    // Last asked 20 s ago, so at once; then again 10 s later.
    await poll('a sample with the new GPUs', 5_000, async () => (samples.some((s) => s.key === 'local' && s.gpus[0]?.utilizationPct === 55) ? true : undefined));
    // Until each host was asked twice (10 s apart: not a fixed 11.5 s, which a loaded machine's SSH exec outlasts).
    const calls = await poll('two calls on each host', 30_000, async () => {
      const since = (await fake.calls()).slice(before);
      const twice = since.filter((c) => c.user === testbed.ssh.user).length >= 2 && since.filter((c) => c.user !== testbed.ssh.user).length >= 2;
      return twice ? since : undefined;
    }).catch(async (error: Error) => {
      throw new Error(`${error.message}; calls since the home was shown: ${JSON.stringify((await fake.calls()).slice(before))}; ${await sampling()}`);
    });
    for (const user of new Set(calls.map((c) => c.user))) {
      const times = calls.filter((c) => c.user === user).map((c) => c.at);
      // Whole seconds in the log: 10 s apart reads as 9 at worst.
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(9);
    }
    await app.handlers['gpus:home-shown']({ pageId: PAGE, shown: false });
  }, 60_000);
});
