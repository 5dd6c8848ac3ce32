// The custom variant of a Slurm job (the user's own lines in place of the native or Podman part, as Apptainer and
// enroot sites need) against the test bed's REAL Slurm 22.05. Apptainer and enroot are not on our machines, so the
// lines here start the fake swarm server (TEST DOUBLE of ajet-swarm) directly: what is tested is the app's part —
// the lines run on the node with $PORT, the server is reached through the login node, scancel ends it, and the
// script's own lines say what happened. Needs `bash test/testbed/testbed.sh up`; run under `flock /tmp/agentswarm-slurm.lock`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_MANAGED, LABEL_PORT, LABEL_PROFILE, LABEL_ROLE, type ContainerSpec } from '../../electron/services/engines/container-engine';
import { SshHost } from '../../electron/services/engines/engine-host';
import type { EngineWording } from '../../electron/services/engines/engine-wording';
import { SlurmEngine } from '../../electron/services/engines/slurm/slurm-engine';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { SlurmJobOptions } from '../../electron/shared/schemas-slurm';
import { poll } from '../support/helpers';
import { TEST_CONTAINER_LABELS } from '../support/test-app';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const run = `sc${process.pid.toString(36)}${Date.now().toString(36)}`;
const labelPort = 33_000 + (process.pid % 3000);
const labels = { [LABEL_MANAGED]: 'true', [LABEL_ROLE]: 'swarm-server', [LABEL_PROFILE]: run };
let connection: SshConnection;
let engine: SlurmEngine;
let jobId = '';

function spec(script: string, testLabels: Record<string, string>): ContainerSpec {
  return {
    name: `agentswarm-${run}`,
    image: '',
    cmd: ['ajet-swarm', 'start', '--swarm-port', String(labelPort)],
    env: { NO_COLOR: '1', AGENTSWARM_CUSTOM_CANARY: 'custom-env-reaches-the-lines' },
    labels: { ...labels, ...testLabels, [LABEL_PORT]: String(labelPort) },
    network: { mode: 'host' },
    init: true,
    gpus: { mode: 'none' },
    shm: { mode: 'ipc-host' },
    binds: [],
    runtime: 'native',
    batch: SlurmJobOptions.parse({ partition: tb.slurm.partition, timeLimit: '10', run: { mode: 'custom', script } }),
  };
}

beforeAll(async () => {
  connection = await connectToTestbed({}, tb);
  engine = new SlurmEngine({
    summary: { id: 'slurm-custom-test', kind: 'slurm', label: 'test bed Slurm', endpoint: `ssh://${tb.ssh.user}@${tb.ssh.host}:${tb.ssh.port}` },
    wording: { product: 'Slurm' } as EngineWording,
    host: new SshHost(`testbed login (${tb.slurm.loginUser})`, () => Promise.resolve(connection)),
    openChannel: (address, port) => connection.forwardOut(address, port),
    appVersion: '0.1.0-test',
    portBase: 34_000 + (process.pid % 3000),
  });
});

afterAll(async () => {
  if (jobId) await engine.removeContainer(jobId).catch(() => undefined);
  await connection?.exec(`scancel -u "$USER" -n agentswarm-${run}; rm -rf "$HOME/.agentswarm/slurm/agentswarm-${run}"`).catch(() => undefined);
  await engine?.dispose();
  await connection?.close();
});

describe('a Slurm job that runs the user\'s own lines', () => {
  it('runs them on the node with $PORT and the profile env, is reached through the login node, and ends at scancel', { timeout: 180_000 }, async () => {
    const activate = loadTestbed().native.sshUserActivate;
    const lines = `${activate}\necho "custom lines see $AGENTSWARM_CUSTOM_CANARY on port $PORT"\najet-swarm start --swarm-port "$PORT"`;
    jobId = await engine.createContainer(spec(lines, TEST_CONTAINER_LABELS));
    await engine.startContainer(jobId);
    await poll('the job to run', 60_000, async () => ((await engine.inspectContainer(jobId)).state === 'running' ? true : undefined), 500);

    const status = await poll('the fake swarm server through the login node', 60_000, async () => {
      const url = await engine.urlForHostPort(labelPort).catch(() => null);
      if (!url) return undefined;
      const response = await fetch(`${url}/get_engine_status`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
      return response?.ok ? ((await response.json()) as { engine_status: string }) : undefined;
    }, 500);
    expect(status.engine_status).toBe('ENGINE.OFFLINE');

    const output = (await engine.readLog(jobId, { tail: 200 })).join('\n');
    expect(output).toMatch(/\[agentswarm\] starting the custom server lines on \S+ port \d+/);
    expect(output).toMatch(/custom lines see custom-env-reaches-the-lines on port \d+/);

    await engine.stopContainer(jobId, 10);
    const ended = await poll('the job to end', 60_000, async () => {
      const c = await engine.inspectContainer(jobId);
      return c.state === 'exited' ? c : undefined;
    }, 500);
    expect(ended.statusText).toContain('CANCELLED');
    // The server the lines started is gone from the node: nothing listens on the port the job chose.
    const port = /custom lines see \S+ on port (\d+)/.exec(output)![1];
    const listening = await connection.exec(`ss -Hltn 'sport = :${port}'`, { timeoutMs: 10_000 });
    expect(listening).toMatchObject({ code: 0, stdout: '' });
    const tail = (await engine.readLog(jobId, { tail: 20 })).join('\n');
    expect(tail).toContain('[agentswarm] stop requested (SIGTERM)');
  });
});
