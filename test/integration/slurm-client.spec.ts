// SlurmClient and the job script against the test bed's REAL Slurm 22.05 (test/testbed/slurm.sh), reached as
// the app reaches a cluster: over SSH to the login node (the test bed's sshd) as its user, with the plain key.
// The server in the jobs is the fake swarm (TEST DOUBLE of ajet-swarm, on PATH through the test bed's activate
// line). The node is this machine, NodeAddr 127.0.0.1. Needs `bash test/testbed/testbed.sh up`; the GPU cases
// need the node to themselves: run beside other Slurm suites under `flock /tmp/agentswarm-slurm.lock`.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SshHost } from '../../electron/services/engines/engine-host';
import { parseTimeWarning, slurmJobScript, slurmOutputPath } from '../../electron/services/engines/slurm/job-script';
import { SlurmClient } from '../../electron/services/engines/slurm/slurm-client';
import { isEndedState } from '../../electron/services/engines/slurm/slurm-parse';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { SshTunnel } from '../../electron/services/ssh/tunnel';
import { SlurmJobIdentity, SlurmJobOptions, type SlurmJob, type SlurmJobOptionsInput } from '../../electron/shared/schemas-slurm';
import { poll } from '../support/helpers';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const slurm = tb.slurm;
// Profile ids of this run only, so the suite touches nothing else on the shared Slurm.
const run = `it${process.pid.toString(36)}${Date.now().toString(36)}`;
const connections: SshConnection[] = [];
const profiles = new Set<string>();
let client: SlurmClient;
let host: SshHost;

async function newClient(): Promise<{ client: SlurmClient; host: SshHost; connection: SshConnection }> {
  const connection = await connectToTestbed({}, tb);
  connections.push(connection);
  const h = new SshHost(`testbed login (${slurm.loginUser})`, () => Promise.resolve(connection));
  return { client: new SlurmClient({ exec: (script, options) => h.exec(script, options), host: h.label }), host: h, connection };
}

function profile(name: string): string {
  const id = `${run}-${name}`;
  profiles.add(id);
  return id;
}

function jobOptions(input: Partial<SlurmJobOptionsInput> = {}): SlurmJobOptions {
  return SlurmJobOptions.parse({ timeLimit: '10', run: { mode: 'native', activate: tb.native.sshUserActivate }, ...input });
}

async function submit(profileId: string, input: Partial<SlurmJobOptionsInput> = {}, extra: { hold?: boolean } = {}): Promise<string> {
  const script = slurmJobScript(SlurmJobIdentity.parse({ profileId, appVersion: '0.1.0-test' }), jobOptions(input));
  return (await client.submit(script, { profileId, ...extra })).jobId;
}

function jobIn(c: SlurmClient, id: string, accept: (job: SlurmJob) => boolean, what: string, timeoutMs = 30_000): Promise<SlurmJob> {
  return poll(`job ${id} ${what}`, timeoutMs, async () => {
    const job = await c.job(id);
    return job && accept(job) ? job : undefined;
  });
}

/** Rejects naming `what` when `promise` takes longer than `ms` (a hang would otherwise show as a bare test timeout). */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The job's server process on the node (the node is this machine, reached through the same login). */
async function serverProcesses(port: number): Promise<string[]> {
  const { stdout } = await host.exec(`ps -u ${slurm.loginUser} -o args=`);
  return stdout.split('\n').filter((l) => l.includes(`--swarm-port ${port}`));
}

beforeAll(async () => {
  ({ client, host } = await newClient());
  // The node must be free for the GPU cases: jobs of another suite would change every reason and place.
  await poll('the Slurm node to be free of running jobs', 60_000, async () => {
    // Every user's jobs in this node's partition (the client asks about the app's only; the test bed's other node may
    // run another chain's): squeue on the login node itself.
    const { stdout } = await host.exec(`squeue -h -p ${slurm.partition} -o %i`);
    return stdout.trim() === '' ? true : undefined;
  }, 500);
});

afterEach(async () => {
  // Whatever a failed test left queued or running.
  const left = (await client.jobs()).filter((j) => !isEndedState(j.state) && [...profiles].some((p) => j.name === `agentswarm-${p}`));
  await Promise.all(left.map((j) => client.cancel(j.id)));
});

afterAll(async () => {
  if (host && profiles.size > 0) await host.exec(`cd "$HOME"/.agentswarm/slurm && rm -rf ${[...profiles].map((p) => `'agentswarm-${p}'`).join(' ')}`);
  await Promise.all(connections.map((c) => c.close()));
});

describe('a native swarm server as a Slurm job', () => {
  it('queues, runs, writes its endpoint, answers through the login node, and is gone after cancel', async () => {
    const p = profile('native');
    const t0 = performance.now();
    const id = await submit(p, { gpus: { flag: 'gres', count: 1 } });
    const tSubmitted = performance.now();
    const running = await jobIn(client, id, (j) => j.state === 'RUNNING', 'RUNNING');
    const tRunning = performance.now();
    expect(running).toMatchObject({ name: `agentswarm-${p}`, comment: `agentswarm profile=${p} app=0.1.0-test`, user: slurm.loginUser, partition: slurm.partition, node: slurm.node, gres: 'gres:gpu:1', timeLimitSeconds: 600, pendingPosition: null });
    expect(running.timeLeftSeconds).toBeGreaterThan(540);

    const endpoint = await poll('the endpoint file', 30_000, async () => {
      const e = await client.endpoint(p);
      return e?.jobId === id ? e : undefined;
    });
    const tEndpoint = performance.now();
    expect(endpoint).toMatchObject({ node: slurm.node, jobId: id });
    const addr = await client.nodeAddr(running.node!);
    expect(addr).toBe('127.0.0.1');

    // The app's tunnel: a loopback listener whose sockets are forwardOut channels of the login node's connection.
    const connection = connections[0]!;
    const tunnel = await SshTunnel.open({ openChannel: () => connection.forwardOut(addr, endpoint.port), remotePort: endpoint.port, localPort: 0 });
    try {
      const status = await poll('the swarm server through the tunnel', 30_000, async () => {
        const response = await fetch(`${tunnel.url}/get_engine_status`, { signal: AbortSignal.timeout(5000) });
        return response.ok ? ((await response.json()) as { engine_status: string }) : undefined;
      });
      const tAnswer = performance.now();
      expect(status.engine_status).toBe('ENGINE.OFFLINE');
      expect(await serverProcesses(endpoint.port)).toHaveLength(1);
      const tCancel = performance.now();
      const cancelled = await client.cancel(id);
      const tGone = performance.now();
      expect(cancelled).toMatchObject({ id, state: 'CANCELLED', exitCode: 143, signal: 0 });
      expect(await serverProcesses(endpoint.port)).toEqual([]);
      await expect(within(10_000, 'a channel to the closed port', connection.forwardOut(addr, endpoint.port))).rejects.toThrow(/refused|failure/i);
      expect(await client.endpoint(p), 'the job removes its endpoint file when it ends').toBeNull();
      const tail = await client.outputTail(cancelled!.outputPath!, 5);
      expect(tail?.join('\n')).toMatch(/stop requested \(SIGTERM\)[\s\S]*ajet-swarm exited with code 143/);
      console.info(
        `[slurm timings] sbatch ${Math.round(tSubmitted - t0)} ms, submit→RUNNING ${Math.round(tRunning - t0)} ms, submit→endpoint ${Math.round(tEndpoint - t0)} ms, ` +
          `submit→HTTP answer through the tunnel ${Math.round(tAnswer - t0)} ms, cancel→CANCELLED and no process ${Math.round(tGone - tCancel)} ms`,
      );
    } finally {
      await tunnel.close();
    }
  });

  it('a job that fails at once: FAILED with its exit code, and the output tail says why', async () => {
    const p = profile('fails');
    const id = await submit(p, { run: { mode: 'native', activate: 'source ~/no-such-venv/bin/activate' } });
    const failed = await jobIn(client, id, (j) => isEndedState(j.state), 'ended');
    expect(failed).toMatchObject({ state: 'FAILED', reason: 'NonZeroExitCode', exitCode: 1, signal: 0 });
    expect(failed.outputPath).toMatch(new RegExp(`/\\.agentswarm/slurm/agentswarm-${p}/out/${id}\\.out$`));
    const tail = await client.outputTail(slurmOutputPath(p, id), 10);
    expect(tail?.join('\n')).toMatch(/no-such-venv\/bin\/activate: No such file or directory[\s\S]*\[agentswarm\] the activate line failed/);
    expect(await client.outputTail(slurmOutputPath(p, '999999'), 10)).toBeNull();
  });

  it('more GPUs than the node has: the submission error, with the fix', async () => {
    const p = profile('toomany');
    await expect(submit(p, { gpus: { flag: 'gres', count: slurm.gpusPerNode + 1 } })).rejects.toMatchObject({
      code: 'SCHEDULER_REJECTED',
      message: expect.stringMatching(/Requested node configuration is not available\..*sinfo/),
    });
    // Slurm lists the refused job anyway (FAILED BadConstraints for MinJobAge): never an active one.
    expect((await client.jobs()).filter((j) => j.name === `agentswarm-${p}` && !isEndedState(j.state))).toEqual([]);
  });

  it('every GPU taken: the next job waits PENDING (Resources), first in the queue, its whole limit ahead', async () => {
    const ids = [];
    for (let i = 0; i < slurm.gpusPerNode; i++) ids.push(await submit(profile(`gpu${i}`), { gpus: { flag: 'gres', count: 1 } }));
    await Promise.all(ids.map((id) => jobIn(client, id, (j) => j.state === 'RUNNING', 'RUNNING')));
    const waiting = profile('waits');
    const id = await submit(waiting, { gpus: { flag: 'gpus', count: 1 }, timeLimit: '2:00:00' });
    const pending = await jobIn(client, id, (j) => j.state === 'PENDING' && j.reason === 'Resources', 'PENDING (Resources)');
    expect(pending).toMatchObject({ node: null, timeLeftSeconds: 7200, gres: 'gres:gpu:1' });
    expect((await client.jobs()).find((j) => j.id === id)?.pendingPosition).toBe(1);
    // Once a GPU is free it runs.
    await client.cancel(ids[0]!);
    await jobIn(client, id, (j) => j.state === 'RUNNING', 'RUNNING after a GPU was freed');
  });

  it('a held job is found again by a new client (an app restart) and starts when released', async () => {
    const p = profile('held');
    const id = await submit(p, {}, { hold: true });
    const fresh = (await newClient()).client;
    const found = await poll('the held job in a new client', 15_000, async () => (await fresh.jobs()).find((j) => j.id === id));
    expect(found).toMatchObject({ name: `agentswarm-${p}`, state: 'PENDING', reason: 'JobHeldUser' });
    await fresh.release(id);
    await jobIn(fresh, id, (j) => j.state === 'RUNNING', 'RUNNING after release');
    expect(await fresh.cancel(id)).toMatchObject({ state: 'CANCELLED' });
  });
});

describe('the time limit', () => {
  it('--time=2 with --signal=B:USR1@100: the job writes the warning the app reads', async () => {
    const p = profile('warned');
    // slurmctld looks at time limits in a background pass (seen a minute apart here: a 1-minute job with a 50 s warning
    // got none when the pass before its limit came 53 s before it); a 100 s window always holds one pass.
    const id = await submit(p, { timeLimit: '2', warnBeforeLimitSeconds: 100 });
    const running = await jobIn(client, id, (j) => j.state === 'RUNNING', 'RUNNING');
    expect(running.timeLimitSeconds).toBe(120);
    // Slurm sends the signal on its own schedule (up to a minute early or late): measured ~10 s in here.
    const t0 = performance.now();
    const { warning } = await poll('the time-limit warning', 110_000, async () => {
      const files = await client.jobFiles(p);
      return files.warning ? files : undefined;
    }, 500);
    expect(warning?.seconds).toBe(100);
    const tail = await client.outputTail(slurmOutputPath(p, id), 20);
    expect(tail?.map(parseTimeWarning)).toContain(100);
    // USR1 went to the batch shell only: the server still serves.
    const endpoint = await client.endpoint(p);
    expect(endpoint?.jobId).toBe(id);
    expect(await serverProcesses(endpoint!.port)).toHaveLength(1);
    console.info(`[slurm timings] time-limit warning ${Math.round((performance.now() - t0) / 1000)} s after RUNNING was seen (limit 120 s, warning at 100 s)`);
    await client.cancel(id);
  }, 240_000);
});
