// Ends the scheduler decides, through the app's own contract-checked handlers against the test bed's REAL Slurm 22.05
// (the test bed's sshd as the login node): a `scancel` in a terminal (outside the app) and a node that goes DOWN under
// a running job (`scontrol update nodename=… state=down`, as root on this machine, resumed in a finally). The monitor
// names each end from the engine's `schedulerEnd` ('cancelled', 'node-failure', not "stopped" or "crashed"), the jobs
// panel shows Slurm's state, and the app's own Stop of a CANCELLED job stays 'stopped'. The server in the jobs is the
// fake swarm (TEST DOUBLE of ajet-swarm, on PATH through the test bed's activate line).
// Needs `bash test/testbed/testbed.sh up`; run under `flock /tmp/agentswarm-slurm.lock` (it takes the node down).
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import type { SwarmStatus } from '../../electron/shared/schemas';
import { poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const activate = loadTestbed().native.sshUserActivate;
const run = `sx${process.pid.toString(36)}${Date.now().toString(36)}`;
const labelPort = 35_000 + (process.pid % 3000);

/** Slurm's admin commands run as root on this machine (the login user may not take a node down). */
function asAdmin(...args: string[]): string {
  return execFileSync(`${tb.slurm.bin}/scontrol`, args, { env: { ...process.env, SLURM_CONF: tb.slurm.conf }, encoding: 'utf8' });
}

describe('ends the scheduler decides, through the app', () => {
  let app: TestApp;
  let conn: SshConnection;
  let engineId = '';
  let profileIds: string[] = [];

  beforeAll(async () => {
    conn = await connectToTestbed({}, tb);
    app = await startTestApp();
    engineId = await connectTestbedServer(app, `slurm-${run}`, tb, { docker: { engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' } });
  });

  afterEach(async () => {
    // By name: only this suite's jobs, whatever a failed test left.
    for (const id of profileIds) await conn.exec(`scancel -u "$USER" -n agentswarm-${id}; rm -rf "$HOME/.agentswarm/slurm/agentswarm-${id}"`).catch(() => undefined);
    profileIds = [];
  });

  afterAll(async () => {
    await app?.dispose();
    await conn?.close();
  });

  async function startProfile(name: string, port: number): Promise<{ profileId: string; jobId: string }> {
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({
        label: `${name} ${run}`,
        engineId,
        mode: 'native',
        image: 'ghcr.io/modelscope/agentjet:main',
        port,
        nativeActivate: activate,
        slurm: { partition: tb.slurm.partition, timeLimit: '10', run: { mode: 'native', activate } },
      }),
    );
    const profileId = added.profile.id;
    profileIds.push(profileId);
    const started = await app.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false });
    const jobId = started.runtime.container?.id ?? '';
    expect(jobId).toMatch(/^\d+$/);
    await poll('the job to run and its server to be watched', 120_000, async () => {
      const s = (await app.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === jobId);
      return s?.connection === 'online' ? s : undefined;
    }, 500);
    return { profileId, jobId };
  }

  const endOf = (jobId: string, what: string): Promise<SwarmStatus> =>
    poll(`the monitor to name the end (${what})`, 90_000, async () => {
      const s = (await app.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === jobId);
      return s?.exit ? s : undefined;
    }, 500);

  const slurmState = async (jobId: string) => (await app.handlers['slurm:jobs']({ engineId })).find((j) => j.id === jobId)?.state;

  it('a scancel in a terminal: "cancelled" (not a stop of the app, not a crash); the panel shows CANCELLED; Clear then forgets it', { timeout: 240_000 }, async () => {
    const { profileId, jobId } = await startProfile('Outside cancel', labelPort);
    const folder = `"$HOME/.agentswarm/slurm/agentswarm-${profileId}"`;
    // Clear never touches a running job.
    await expect(app.handlers['slurm:clear']({ engineId, jobIds: [jobId] })).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT', message: expect.stringContaining(`Slurm job ${jobId} is still running`) });
    expect((await conn.exec(`test -d ${folder}`)).code).toBe(0);
    const r = await conn.exec(`scancel ${jobId}`);
    expect(r.code).toBe(0);
    const status = await endOf(jobId, 'cancelled');
    expect(status).toMatchObject({ connection: 'stopped', exit: { kind: 'cancelled' } });
    await poll('slurm:jobs to show CANCELLED', 60_000, async () => ((await slurmState(jobId)) === 'CANCELLED' ? true : undefined), 1000);
    // Ended: Clear removes the app's record of it (its folder), and the panel no longer lists it. By id: the test bed's
    // login user is shared with other suites, whose ended jobs "Clear ended" (no ids) would clear too.
    expect(await app.handlers['slurm:clear']({ engineId, jobIds: [jobId] })).toEqual({ cleared: [jobId] });
    expect((await conn.exec(`test -e ${folder}`)).code).toBe(1);
    expect(await slurmState(jobId)).toBeUndefined();
  });

  it("the app's own Stop: CANCELLED in Slurm, 'stopped' for the user", { timeout: 240_000 }, async () => {
    const { profileId, jobId } = await startProfile('Own stop', labelPort + 1);
    await app.handlers['profiles:stop']({ profileId });
    const status = await endOf(jobId, 'stopped');
    expect(status.exit?.kind).toBe('stopped');
    expect(await slurmState(jobId)).toBe('CANCELLED');
  });

  it('the node goes DOWN under the job: "node-failure"; the panel shows NODE_FAIL; the node is resumed after', { timeout: 300_000 }, async () => {
    const { jobId } = await startProfile('Node failure', labelPort + 2);
    try {
      asAdmin('update', `nodename=${tb.slurm.node}`, 'state=down', `reason=agentswarm test ${run}`);
      const status = await endOf(jobId, 'node-failure');
      expect(status).toMatchObject({ connection: 'stopped', exit: { kind: 'node-failure' } });
      await poll('slurm:jobs to show NODE_FAIL', 60_000, async () => ((await slurmState(jobId)) === 'NODE_FAIL' ? true : undefined), 1000);
    } finally {
      // The test bed's ReturnToService=2 lets the node back in as soon as its slurmd answers (measured: 37 ms); a node
      // still DOWN (or drained) is resumed here, so the next suite finds it taking jobs.
      const state = /\bState=(\S+)/.exec(asAdmin('-o', 'show', 'node', tb.slurm.node))?.[1] ?? '';
      if (/DOWN|DRAIN|FAIL/.test(state)) asAdmin('update', `nodename=${tb.slurm.node}`, 'state=resume');
    }
    await poll('the node to take jobs again', 60_000, async () => (/State=(IDLE|MIXED|ALLOCATED)/.test(asAdmin('-o', 'show', 'node', tb.slurm.node)) ? true : undefined), 500);
  });
});
