// The fake swarm image (a TEST DOUBLE of the AgentJet image) run the way the app runs the real one:
// host network, Init, `ajet-swarm start --swarm-port N`, no bind mounts. Needs `bash test/testbed/testbed.sh up`.
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTestbed } from '../testbed/testbed';
import { freePort, poll } from '../support/helpers';
import { removeTestContainers, TEST_CONTAINER_LABELS } from '../support/test-app';
import { upstreamJob } from '../support/job-yaml';

const tb = loadTestbed();
const docker = new Docker({ socketPath: tb.dockerSocket });

async function logsOf(container: Docker.Container): Promise<string> {
  const raw = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
  // Non-follow logs come back as one multiplexed buffer with 8-byte frame headers.
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const frames = new PassThrough();
  docker.modem.demuxStream(frames, out, out);
  frames.end(raw);
  await new Promise((ok) => setImmediate(ok));
  return Buffer.concat(chunks).toString('utf8');
}

afterEach(async () => {
  await removeTestContainers();
});

describe('fake swarm container', () => {
  it('starts with `ajet-swarm start --swarm-port`, boots to ROLLING and stops fast on SIGTERM', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const container = await docker.createContainer({
      Image: tb.fakeSwarmImage,
      Cmd: ['ajet-swarm', 'start', '--swarm-port', String(port)],
      Labels: TEST_CONTAINER_LABELS,
      HostConfig: { NetworkMode: 'host', Init: true },
    });
    await container.start();

    const health = await poll('/health', 15_000, async () => {
      const r = await fetch(`${base}/health`);
      return r.ok ? ((await r.json()) as unknown) : undefined;
    });
    expect(health).toEqual({ status: 'ok' });
    const logs = await logsOf(container);
    expect(logs).toContain(`Interchange server is running in blocking mode on:\n------\nURL 1: ${base}\n`);

    const statusOf = async () => ((await (await fetch(`${base}/get_engine_status`)).json()) as { engine_status: string; global_step: number | null });
    expect(await statusOf()).toEqual({ engine_status: 'ENGINE.OFFLINE', engine_status_detail: null, global_step: null });
    const sync = await fetch(`${base}/sync_train_config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ yaml_as_string: upstreamJob('  data:\n    train_batch_size: 2\n  rollout:\n    num_repeat: 2\n') }),
    });
    expect(await sync.json()).toEqual({ success: true });
    const started = (await (await fetch(`${base}/start_engine`, { method: 'POST', body: '{}' })).json()) as { success: boolean; pid: number };
    expect(started.success).toBe(true);
    expect(Number.isInteger(started.pid)).toBe(true);

    const seen: string[] = [];
    const rolling = await poll('ENGINE.ROLLING', 15_000, async () => {
      const s = await statusOf();
      if (seen.at(-1) !== s.engine_status) seen.push(s.engine_status);
      return s.engine_status === 'ENGINE.ROLLING' ? s : undefined;
    });
    expect(seen).toEqual(['ENGINE.BOOTING', 'ENGINE.ROLLING']);
    expect(rolling.global_step).toBe(1);
    // The server logs a status after it has set it, and Docker's log copy lags the container's stdout: the line may
    // come after /get_engine_status already answers ROLLING (idle CI-AR read the log 1 line short).
    const rollingLine = '[update_engine_status] Engine status set to ENGINE.ROLLING';
    const afterBoot = await poll('the ROLLING line in the container log', 10_000, async () => {
      const logs = await logsOf(container);
      return logs.includes(rollingLine) ? logs : undefined;
    });
    expect(afterBoot).toContain('[start_engine] Successfully started training process (PID: ');

    await container.stop({ t: 10 });
    const state = (await container.inspect()).State;
    // With Init the SIGTERM reaches the server, which dies by it: 143, and well before the 10 s SIGKILL (137).
    expect(state.ExitCode).toBe(143);
    await container.remove();
    await expect(container.inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});
