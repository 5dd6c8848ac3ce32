// The Slurm engine wired into the app, end to end through its own contract-checked handlers: a server whose
// engine is `slurm` (the test bed's sshd as the login node, its REAL Slurm 22.05), a swarm profile on it in native
// mode with Slurm job options, start → the job runs → the monitor reaches the server through the login node →
// stop → CANCELLED → remove; and an app restart over the same data folder finds the running job again with no
// second submission. The server in the job is the fake swarm (TEST DOUBLE of ajet-swarm, on PATH through the
// test bed's activate line). Needs `bash test/testbed/testbed.sh up`; run under `flock /tmp/agentswarm-slurm.lock`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const run = `sa${process.pid.toString(36)}${Date.now().toString(36)}`;
/** The profile's port: the job's label (the job picks its real port on the node itself). */
const labelPort = 32_000 + (process.pid % 3000);

async function onLogin(conn: SshConnection, command: string): Promise<string> {
  const result = await conn.exec(command, { timeoutMs: 20_000 });
  if (result.code !== 0) throw new Error(`${command} -> ${result.code}: ${result.stderr}`);
  return result.stdout.trim();
}

describe('a Slurm login node as an app server', () => {
  let app: TestApp | null = null;
  let firstApp: TestApp | null = null;
  let conn: SshConnection;
  let engineId = '';
  let profileId = '';
  let jobId = '';

  beforeAll(async () => {
    conn = await connectToTestbed({}, tb);
    app = await startTestApp();
    engineId = await connectTestbedServer(app, `slurm-${run}`, tb, { docker: { engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' } });
  });

  afterAll(async () => {
    // By name, so a job whose start failed (no id known here) is cancelled too.
    if (profileId) await conn?.exec(`scancel -u "$USER" -n agentswarm-${profileId}; rm -rf "$HOME/.agentswarm/slurm/agentswarm-${profileId}"`).catch(() => undefined);
    if (firstApp) await firstApp.dispose().catch(() => undefined);
    await app?.dispose();
    await conn?.close();
  });

  it('the server has a Slurm engine that answers with the cluster version', async () => {
    const engines = await app!.handlers['engines:list']({});
    const engine = engines.find((e) => e.id === engineId);
    expect(engine).toMatchObject({ kind: 'slurm' });
    const health = await poll('the Slurm engine to answer', 20_000, async () => {
      const h = await app!.handlers['engines:health']({ engineId });
      return h.reachable ? h : undefined;
    });
    expect(health).toMatchObject({ reachable: true, version: tb.slurm.version, error: null });
  });

  it('a native profile with Slurm options starts as a job, becomes reachable through the login node, and survives an app restart', { timeout: 240_000 }, async () => {
    const added = await app!.handlers['profiles:add'](
      ProfileInput.parse({
        label: `Slurm ${run}`,
        engineId,
        mode: 'native',
        image: 'ghcr.io/modelscope/agentjet:main',
        port: labelPort,
        nativeActivate: loadTestbed().native.sshUserActivate,
        slurm: { partition: 'debug', timeLimit: '10', gpus: null, run: { mode: 'native', activate: loadTestbed().native.sshUserActivate } },
      }),
    );
    profileId = added.profile.id;
    expect(added.profile.slurm).toMatchObject({ partition: 'debug', timeLimit: '10', gpus: null });

    const started = await app!.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false });
    jobId = started.runtime.container?.id ?? '';
    expect(jobId).toMatch(/^\d+$/);
    const status = await poll('the monitor to reach the job\'s server through the login node', 90_000, async () => {
      const s = (await app!.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === jobId);
      return s?.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE' ? s : undefined;
    }, 300);
    expect(status.containerId).toBe(jobId);
    expect(status.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await onLogin(conn, `squeue -h -j ${jobId} -o %T`)).toBe('RUNNING');
    const listed = (await app!.handlers['swarm:list']({ engineId })).find((c) => c.id === jobId);
    expect(listed).toMatchObject({ state: 'running', port: labelPort, profileId });

    // An app restart over the same data folder: the running job is found and watched again, nothing submitted twice.
    await app!.stop();
    firstApp = app;
    app = await startTestApp({ dataDir: firstApp!.dataDir });
    const again = await poll('the restarted app to watch the job through the login node', 90_000, async () => {
      const s = (await app!.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === jobId);
      return s?.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE' ? s : undefined;
    }, 500);
    expect(again.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ours = await onLogin(conn, `squeue -h -u "$USER" -n agentswarm-${profileId} -o %i`);
    expect(ours.split('\n').filter(Boolean)).toEqual([jobId]);
    const view = (await app!.handlers['profiles:list']({})).find((v) => v.profile.id === profileId);
    expect(view?.runtime.container?.id).toBe(jobId);
  });

  it('stop cancels the job (CANCELLED, exited); remove makes it gone', { timeout: 120_000 }, async () => {
    const stopped = await app!.handlers['profiles:stop']({ profileId });
    expect(stopped.runtime.container?.state ?? 'exited').not.toBe('running');
    const state = await poll('Slurm to say CANCELLED', 60_000, async () => {
      const s = await onLogin(conn, `squeue -h -t all -j ${jobId} -o %T 2>/dev/null || true`);
      return s.startsWith('CANCELLED') ? s : undefined;
    }, 500);
    expect(state).toMatch(/^CANCELLED/);
    const listed = (await app!.handlers['swarm:list']({ engineId })).find((c) => c.id === jobId);
    expect(listed?.state).toBe('exited');
    await expect(app!.handlers['profiles:remove']({ profileId })).resolves.toEqual({ removed: true });
    await poll('the job to be gone from the engine', 30_000, async () =>
      (await app!.handlers['swarm:list']({ engineId })).some((c) => c.id === jobId) ? undefined : true,
    );
  });
});
