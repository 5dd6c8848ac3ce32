// The fleet on a Slurm login node, against the test bed's REAL Slurm 22.05 (its sshd as the login node): a job's GPUs
// and its working folder's disk read inside the job's allocation (srun --overlap, one visit), and auto-stop cancelling
// the idle job after its warning. The server in the job is the fake swarm (TEST DOUBLE of ajet-swarm, on PATH through
// the test bed's activate line); the GPUs are the labelled nvidia-smi double (the test bed's hosts are this machine,
// so the SSH user runs the same file). Needs the test bed with Slurm; run under `flock /tmp/agentswarm-slurm.lock`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notifier } from '../../electron/services/notifier';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { ProfileInput, type AppNotification } from '../../electron/shared/schemas-profiles';
import { poll } from '../support/helpers';
import { installFakeNvidiaSmi, type FakeNvidiaSmi } from '../support/fake-nvidia-smi';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';

/** TEST DOUBLE: a Notifier that records what the app would show, instead of a desktop notification. */
class RecordingNotifier implements Notifier {
  readonly shown: (AppNotification & { at: number })[] = [];
  notify(notification: AppNotification): void {
    this.shown.push({ ...notification, at: Date.now() });
  }
}

const tb = loadTestbedWithSlurm();
const activate = loadTestbed().native.sshUserActivate;
const run = `fs${process.pid.toString(36)}${Date.now().toString(36)}`;
const labelPort = 36_000 + (process.pid % 3000);

describe('the fleet on a Slurm login node', () => {
  const notifier = new RecordingNotifier();
  let fake: FakeNvidiaSmi;
  let app: TestApp;
  let conn: SshConnection;
  let engineId = '';
  let profileId = '';

  beforeAll(async () => {
    fake = await installFakeNvidiaSmi([{ utilizationPct: 0 }, { utilizationPct: 3 }]);
    conn = await connectToTestbed({}, tb);
    app = await startTestApp({ notifier, gpus: { command: fake.command, pace: { intervalMs: 2000, hiddenIntervalMs: 2000, maxBackoffMs: 2000 } } });
    engineId = await connectTestbedServer(app, `slurm-${run}`, tb, { docker: { engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' } });
    await app.handlers['alerts:set-thresholds']({ idleMinutes: 0 });
  }, 120_000);

  afterAll(async () => {
    if (profileId) await conn?.exec(`scancel -u "$USER" -n agentswarm-${profileId}; rm -rf "$HOME/.agentswarm/slurm/agentswarm-${profileId}"`).catch(() => undefined);
    await app?.dispose();
    await conn?.close();
    await fake?.remove();
  });

  it("reads the job's GPUs and disk inside its allocation, and auto-stop cancels the idle job after its warning", { timeout: 240_000 }, async () => {
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({
        label: `Slurm idle ${run}`,
        engineId,
        mode: 'native',
        image: 'ghcr.io/modelscope/agentjet:main',
        port: labelPort,
        nativeActivate: activate,
        slurm: { partition: tb.slurm.partition, timeLimit: '10', run: { mode: 'native', activate } },
        autoStop: { enabled: true, minutes: 0.3 },
      }),
    );
    profileId = added.profile.id;
    const started = await app.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false });
    const jobId = started.runtime.container?.id ?? '';
    expect(jobId).toMatch(/^\d+$/);

    const sample = await poll('a sample of the job', 120_000, async () => (await app.handlers['gpus:samples']({})).find((s) => s.key === `${engineId}:${jobId}` && s.gpus.length > 0), 500);
    expect(sample).toMatchObject({ containerId: jobId, error: null, gpus: [{ index: 0, utilizationPct: 0 }, { index: 1, utilizationPct: 3 }] });
    // The job's working folder (the home folder): its disk, read in the same srun.
    expect(sample.disks).toEqual([{ path: '~', usedPct: expect.any(Number) }]);
    // Run as the SSH user, inside the allocation.
    expect((await fake.calls()).some((c) => c.user === tb.ssh.user)).toBe(true);

    const warning = await poll('the auto-stop warning', 120_000, async () => notifier.shown.find((n) => n.containerId === jobId && n.title.startsWith('Auto-stop in ')), 500);
    const stopped = await poll('the auto-stop', 120_000, async () => notifier.shown.find((n) => n.containerId === jobId && n.title.startsWith('Auto-stopped: ')), 500);
    expect(stopped.at - warning.at).toBeGreaterThanOrEqual(9_000 - 500);
    const job = await poll('the job cancelled', 60_000, async () => {
      const view = (await app.handlers['slurm:jobs']({ engineId })).find((j) => j.id === jobId);
      return view && view.state !== 'RUNNING' && view.state !== 'PENDING' && view.state !== 'COMPLETING' ? view : undefined;
    }, 1000);
    expect(job.state).toBe('CANCELLED');
    console.log(`[fleet slurm] warning → cancelled: ${Math.round((stopped.at - warning.at) / 100) / 10} s (asked 9 s)`);
  });
});
