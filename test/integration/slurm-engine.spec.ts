// SlurmEngine, the ContainerEngine over a Slurm login node, against the test bed's REAL Slurm 22.05
// (test/testbed/slurm.sh), reached over SSH to the login node (the test bed's sshd) as its user with the plain
// key. The server in the jobs is the fake swarm (TEST DOUBLE of ajet-swarm, on PATH through the test bed's
// activate line). The node is this machine (NodeAddr 127.0.0.1). Needs `bash test/testbed/testbed.sh up`; other
// suites share the node: run it under `flock /tmp/agentswarm-slurm.lock`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_MANAGED, LABEL_PORT, LABEL_PROFILE, LABEL_ROLE, type ContainerEvent, type ContainerSpec, type EngineLogLine } from '../../electron/services/engines/container-engine';
import { SshHost } from '../../electron/services/engines/engine-host';
import type { EngineWording } from '../../electron/services/engines/engine-wording';
import { SlurmEngine } from '../../electron/services/engines/slurm/slurm-engine';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { ContainerId } from '../../electron/shared/schemas';
import { SlurmJobOptions } from '../../electron/shared/schemas-slurm';
import { poll } from '../support/helpers';
import { TEST_CONTAINER_LABELS } from '../support/test-app';
import { slurmTestPorts } from '../support/slurm-test-ports';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const run = `se${process.pid.toString(36)}${Date.now().toString(36)}`;
/** A port label of this run only (the job chooses its real port on the node, from portBase up). */
const { labelPort, portBase } = slurmTestPorts();
/** The app's labels with this run as the profile (so a listing finds only this run's jobs). */
const labels = { [LABEL_MANAGED]: 'true', [LABEL_ROLE]: 'swarm-server', [LABEL_PROFILE]: run };
let connection: SshConnection;
let engine: SlurmEngine;
const created = new Set<string>();

/** `testLabels`: the test label every container a test makes carries (test-hygiene.spec.ts). */
function spec(name: string, testLabels: Record<string, string>, over: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    name: `agentswarm-${run}-${name}`,
    image: '',
    cmd: ['ajet-swarm', 'start', '--swarm-port', String(labelPort)],
    env: { NO_COLOR: '1' },
    labels: { ...labels, ...testLabels, [LABEL_PORT]: String(labelPort) },
    network: { mode: 'host' },
    init: true,
    gpus: { mode: 'none' },
    shm: { mode: 'ipc-host' },
    binds: [],
    runtime: 'native',
    nativeActivate: loadTestbed().native.sshUserActivate,
    ...over,
  };
}

async function newEngine(): Promise<{ engine: SlurmEngine; connection: SshConnection; close: () => Promise<void> }> {
  const conn = await connectToTestbed({}, tb);
  const host = new SshHost(`testbed login (${tb.slurm.loginUser})`, () => Promise.resolve(conn));
  const e = new SlurmEngine({
    summary: { id: 'slurm-test', kind: 'slurm', label: 'test bed Slurm', endpoint: `ssh://${tb.ssh.user}@${tb.ssh.host}:${tb.ssh.port}` },
    wording: { product: 'Slurm' } as EngineWording,
    host,
    openChannel: (address, port) => conn.forwardOut(address, port),
    appVersion: '0.1.0-test',
    // Away from 10086, which other suites' servers on this machine use, and from the label port's tunnel.
    portBase,
    eventPollMs: 500,
    logPollMs: 300,
  });
  return { engine: e, connection: conn, close: async () => { await e.dispose(); await conn.close(); } };
}

beforeAll(async () => {
  ({ engine, connection } = await newEngine());
});

afterAll(async () => {
  for (const id of created) await engine.removeContainer(id).catch(() => undefined);
  await engine?.dispose();
  await connection?.close();
});

describe('SlurmEngine on the test bed Slurm', () => {
  it('reports Slurm 22.05 as the engine version, no container product', async () => {
    const health = await engine.health();
    expect(health).toMatchObject({ reachable: true, version: tb.slurm.version, product: null, error: null });
  });

  it('queues, starts, serves through the login node, stops with a die event and is removed', { timeout: 180_000 }, async () => {
    const events: ContainerEvent[] = [];
    const unwatch = engine.watchEvents(labels, (e) => events.push(e));
    try {
      const id = await engine.createContainer(spec('ok', TEST_CONTAINER_LABELS));
      created.add(id);
      expect(ContainerId.safeParse(id).success, 'the job id is a valid container id').toBe(true);
      const queued = await engine.inspectContainer(id);
      expect(queued).toMatchObject({ id, state: 'created', startedAt: null, labels: { [LABEL_PORT]: String(labelPort) } });
      expect(queued.statusText).toBe('queued: held until started');
      expect((await engine.listContainers(labels)).map((c) => c.id)).toContain(id);
      await expect(engine.urlForHostPort(labelPort), 'a queued job has no URL yet, and the error says why').rejects.toThrow(
        new RegExp(`Slurm job ${id} for port ${labelPort} waits in the queue \\(queued: held until started\\)`),
      );

      await engine.startContainer(id);
      await poll('the job to run', 60_000, async () => ((await engine.inspectContainer(id)).state === 'running' ? true : undefined), 300);

      const status = await poll('the swarm server through the tunnel', 60_000, async () => {
        const url = await engine.urlForHostPort(labelPort);
        const response = await fetch(`${url}/get_engine_status`, { signal: AbortSignal.timeout(5000) });
        return response.ok ? ((await response.json()) as { engine_status: string }) : undefined;
      }, 300);
      expect(status.engine_status).toBe('ENGINE.OFFLINE');
      expect(new URL(await engine.urlForHostPort(labelPort)).hostname).toBe('127.0.0.1');

      const gpuCheck = await engine.execInContainer(id, ['sh', '-c', 'echo "step in $SLURM_JOB_ID"'], { timeoutMs: 20_000 });
      expect(gpuCheck).toMatchObject({ code: 0, stdout: `step in ${id}\n` });

      await poll('a start event', 20_000, () => Promise.resolve(events.some((e) => e.containerId === id && e.action === 'start') ? true : undefined), 100);

      const followed: EngineLogLine[] = [];
      const follow = new AbortController();
      const following = engine.followLog(id, { signal: follow.signal, onLines: (lines) => followed.push(...lines) });
      await poll('the job line in the followed output', 20_000, () => Promise.resolve(followed.some((l) => l.text.includes('starting ajet-swarm')) ? true : undefined), 100);

      // An app restart: a new engine on a new connection finds the job again, with the labels it was created with.
      const again = await newEngine();
      const found = (await again.engine.listContainers(labels)).find((c) => c.id === id);
      expect(found).toMatchObject({ state: 'running', name: `agentswarm-${run}-ok`, labels: { [LABEL_PORT]: String(labelPort) } });
      await again.close();

      await engine.stopContainer(id, 10);
      const stopped = await engine.inspectContainer(id);
      expect(stopped.state).toBe('exited');
      expect(stopped.exitCode, 'the fake swarm ends on SIGTERM with 143, as the job script reports').toBe(143);
      const die = await poll('a die event', 20_000, () => Promise.resolve(events.find((e) => e.containerId === id && e.action === 'die')), 100);
      expect(die.exitCode).toBe(143);
      // The job ended: the follow reads the rest and resolves by itself.
      await following;
      expect(followed.map((l) => l.text).join('\n')).toMatch(/stop requested \(SIGTERM\)/);
      expect(followed[0]?.timestamp).toBe('line:000000000001');
      await expect(engine.urlForHostPort(labelPort)).rejects.toThrow(/No Slurm job of the app runs for port/);

      await engine.removeContainer(id);
      created.delete(id);
      expect((await engine.listContainers(labels)).map((c) => c.id)).not.toContain(id);
      await expect(engine.inspectContainer(id)).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
      await poll('a destroy event', 20_000, () => Promise.resolve(events.some((e) => e.containerId === id && e.action === 'destroy') ? true : undefined), 100);
    } finally {
      unwatch();
    }
  });

  it('a job whose server fails at once ends exited with its exit code, and its output says why', { timeout: 120_000 }, async () => {
    // A PATH without the fake swarm: ajet-swarm is not found on the node, the script exits 127.
    const batch = SlurmJobOptions.parse({ timeLimit: '10', run: { mode: 'native', activate: 'export PATH=/usr/bin:/bin' } });
    const id = await engine.createContainer(spec('fail', TEST_CONTAINER_LABELS, { batch }));
    created.add(id);
    await engine.startContainer(id);
    const ended = await poll('the job to end', 60_000, async () => {
      const c = await engine.inspectContainer(id);
      return c.state === 'exited' ? c : undefined;
    }, 300);
    expect(ended.exitCode).toBe(127);
    expect(ended.statusText).toContain('FAILED');
    const log = await engine.readLog(id, { tail: 20 });
    expect(log.join('\n')).toMatch(/ajet-swarm is not on PATH/);
    await engine.removeContainer(id);
    created.delete(id);
  });

  it('refuses a second job for the same folder while one is queued', { timeout: 60_000 }, async () => {
    const id = await engine.createContainer(spec('twice', TEST_CONTAINER_LABELS));
    created.add(id);
    await expect(engine.createContainer(spec('twice', TEST_CONTAINER_LABELS))).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT' });
    await engine.removeContainer(id);
    created.delete(id);
    expect((await engine.listContainers(labels)).map((c) => c.id)).not.toContain(id);
  });
});
