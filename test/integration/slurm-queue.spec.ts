// Slurm jobs that wait in the queue, through the app's own contract-checked handlers against the test bed's REAL
// Slurm 22.05 (one node, 2 fake GPUs): a blocker job submitted by the test takes both GPUs, so a 1-GPU profile's job
// queues (PENDING, Resources). Start answers with the job queued (no second job on a second start); when the blocker
// goes the job runs and the app adopts it (tunnel, monitor → the fake server's ENGINE.OFFLINE); an app restart while
// queued finds the job again and submits nothing; stop cancels a queued job. The server in the job is the fake swarm
// (TEST DOUBLE of ajet-swarm, on PATH through the test bed's activate line). Needs `bash test/testbed/testbed.sh up`;
// run under `flock /tmp/agentswarm-slurm.lock` (the test needs the node's two GPUs to itself).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { APP_LOG_FILE } from '../../electron/services/util/app-log';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const run = `sq${process.pid.toString(36)}${Date.now().toString(36)}`;
const blockerName = `blocker-${run}`;
/** The profiles' ports: job labels (each job picks its real port on the node itself). */
const labelPort = 34_000 + (process.pid % 3000);

async function onLogin(conn: SshConnection, command: string): Promise<string> {
  const result = await conn.exec(command, { timeoutMs: 20_000 });
  if (result.code !== 0) throw new Error(`${command} -> ${result.code}: ${result.stderr}`);
  return result.stdout.trim();
}

describe('a Slurm job that waits in the queue', () => {
  let app: TestApp | null = null;
  const earlierApps: TestApp[] = [];
  let conn: SshConnection;
  let engineId = '';
  const profileIds: string[] = [];

  /** Both GPUs of the node taken by a job of the login user, RUNNING before the test goes on. */
  async function block(): Promise<string> {
    const id = await onLogin(conn, `sbatch --parsable -p ${tb.slurm.partition} --job-name=${blockerName} --gres=gpu:${tb.slurm.gpusPerNode} -o /dev/null --wrap 'sleep 600'`);
    await poll('the blocker to run', 30_000, async () => ((await onLogin(conn, `squeue -h -j ${id} -o %T`)) === 'RUNNING' ? true : undefined), 300);
    return id;
  }

  /** The app's jobs of a profile that are not over (what a second submission would add to). */
  async function activeJobs(profileId: string): Promise<string[]> {
    return (await onLogin(conn, `squeue -h -u "$USER" -n agentswarm-${profileId} -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i`)).split('\n').filter(Boolean);
  }

  async function addProfile(name: string, port: number): Promise<string> {
    const activate = loadTestbed().native.sshUserActivate;
    const added = await app!.handlers['profiles:add'](
      ProfileInput.parse({
        label: `Slurm queue ${name} ${run}`,
        engineId,
        mode: 'native',
        image: 'ghcr.io/modelscope/agentjet:main',
        port,
        nativeActivate: activate,
        slurm: { partition: tb.slurm.partition, timeLimit: '10', gpus: { flag: 'gres', count: 1 }, run: { mode: 'native', activate } },
      }),
    );
    profileIds.push(added.profile.id);
    return added.profile.id;
  }

  const start = (profileId: string) => app!.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false });

  async function cancelledAfterStop(profileId: string, jobId: string): Promise<void> {
    const stopped = await app!.handlers['profiles:stop']({ profileId });
    expect(stopped.runtime.container?.id).toBe(jobId);
    expect(stopped.runtime.container?.state).toBe('exited');
    const state = await poll('Slurm to say CANCELLED', 60_000, async () => {
      const s = await onLogin(conn, `squeue -h -t all -j ${jobId} -o %T 2>/dev/null || true`);
      return s.startsWith('CANCELLED') ? s : undefined;
    }, 500);
    expect(state).toMatch(/^CANCELLED/);
    expect(await activeJobs(profileId)).toEqual([]);
  }

  beforeAll(async () => {
    conn = await connectToTestbed({}, tb);
    app = await startTestApp();
    engineId = await connectTestbedServer(app, `slurmq-${run}`, tb, { docker: { engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' } });
    await poll('the Slurm engine to answer', 20_000, async () => ((await app!.handlers['engines:health']({ engineId })).reachable ? true : undefined));
  });

  /** By name (scancel takes one name at a time): the blocker, and every job of this run's profiles (one whose start failed has no id known here). */
  async function cancelAll(): Promise<void> {
    for (const name of [blockerName, ...profileIds.map((id) => `agentswarm-${id}`)]) await onLogin(conn, `scancel -u "$USER" -n ${name}`);
  }

  afterEach(async () => {
    await cancelAll();
  });

  afterAll(async () => {
    await cancelAll().catch(() => undefined);
    await conn?.exec(profileIds.map((id) => `rm -rf "$HOME/.agentswarm/slurm/agentswarm-${id}"`).join('\n') || 'true').catch(() => undefined);
    for (const earlier of earlierApps) await earlier.dispose().catch(() => undefined);
    await app?.dispose();
    // The next suite needs an idle node (scontrol, not sinfo: see testbed-slurm.spec.ts).
    await poll('the node to be idle again', 60_000, async () => (/CPUAlloc=0\b/.test(await onLogin(conn, `scontrol -o show node ${tb.slurm.node}`)) ? true : undefined), 500);
    await conn?.close();
  });

  it('GPUs all taken: start answers with the job queued (Resources, position), a second start submits nothing, and once the GPUs are free the job runs and is watched', { timeout: 240_000 }, async () => {
    const blocker = await block();
    const profileId = await addProfile('a', labelPort);

    const started = await start(profileId);
    const queued = started.runtime.container;
    const jobId = queued?.id ?? '';
    expect(jobId).toMatch(/^\d+$/);
    expect(queued).toMatchObject({ state: 'created', profileId, port: labelPort });
    expect(queued?.statusText).toMatch(/^queued: /);

    const view = await poll('slurm:jobs to show the job PENDING (Resources) with its position', 30_000, async () => {
      const job = (await app!.handlers['slurm:jobs']({ engineId })).find((j) => j.id === jobId);
      return job?.state === 'PENDING' && job.reason === 'Resources' && job.pendingPosition !== null ? job : undefined;
    }, 500);
    expect(view).toMatchObject({ profileId, port: labelPort, node: null });
    expect(view.pendingPosition).toBeGreaterThanOrEqual(1);
    const listed = (await app!.handlers['swarm:list']({ engineId })).find((c) => c.id === jobId);
    expect(listed?.statusText).toBe(`queued: Resources (position ${view.pendingPosition})`);
    expect((await app!.handlers['swarm:statuses']({})).some((s) => s.engineId === engineId && s.containerId === jobId), 'nothing to watch while queued').toBe(false);

    // Start again while it waits: the queued job is the profile's server; no second submission.
    const again = await start(profileId);
    expect(again.runtime.container?.id).toBe(jobId);
    expect(await activeJobs(profileId)).toEqual([jobId]);

    await onLogin(conn, `scancel ${blocker}`);
    const status = await poll('the queued job to run and the monitor to reach its server through the login node', 120_000, async () => {
      const s = (await app!.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === jobId);
      return s?.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE' ? s : undefined;
    }, 500);
    expect(status.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await onLogin(conn, `squeue -h -j ${jobId} -o %T`)).toBe('RUNNING');
    const profile = (await app!.handlers['profiles:list']({})).find((v) => v.profile.id === profileId);
    expect(profile?.runtime.container).toMatchObject({ id: jobId, state: 'running' });
    expect(await activeJobs(profileId)).toEqual([jobId]);
    // The GPU check reads what the job was given (the node has fake GPUs and no nvidia-smi): the request and the allocation.
    const checked = readFileSync(join(app!.dataDir, APP_LOG_FILE), 'utf8').split('\n').find((l) => l.includes('GPU check after start passed') && l.includes(`"containerId":"${jobId}"`));
    expect(checked).toMatch(new RegExp(`Slurm job ${jobId} asked for 1 GPU \\(--gres=gpu:1\\) and was given 1 on ${tb.slurm.node} \\(gpu:fake:1\\)`));

    await cancelledAfterStop(profileId, jobId);
  });

  it('an app restart while queued finds the job again and submits no second one; stop cancels the queued job', { timeout: 240_000 }, async () => {
    await block();
    const profileId = await addProfile('b', labelPort + 1);
    const jobId = (await start(profileId)).runtime.container?.id ?? '';
    expect(jobId).toMatch(/^\d+$/);
    expect(await activeJobs(profileId)).toEqual([jobId]);

    await app!.stop();
    earlierApps.push(app!);
    app = await startTestApp({ dataDir: app!.dataDir });
    const found = await poll('the restarted app to list the queued job', 60_000, async () => {
      const v = (await app!.handlers['profiles:list']({})).find((x) => x.profile.id === profileId);
      return v?.runtime.container ? v.runtime.container : undefined;
    }, 500);
    expect(found).toMatchObject({ id: jobId, state: 'created' });
    expect(found.statusText).toMatch(/^queued: Resources/);
    const job = (await app!.handlers['slurm:jobs']({ engineId })).find((j) => j.id === jobId);
    expect(job).toMatchObject({ state: 'PENDING', reason: 'Resources' });

    const again = await start(profileId);
    expect(again.runtime.container?.id).toBe(jobId);
    expect(await activeJobs(profileId)).toEqual([jobId]);
    expect((await app!.handlers['swarm:statuses']({})).some((s) => s.engineId === engineId && s.containerId === jobId)).toBe(false);

    await cancelledAfterStop(profileId, jobId);
    const listed = (await app!.handlers['swarm:list']({ engineId })).find((c) => c.id === jobId);
    expect(listed).toMatchObject({ state: 'exited' });
    expect(await onLogin(conn, `squeue -h -t all -j ${jobId} -o %N`), 'it never ran on a node').toBe('');
  });
});
