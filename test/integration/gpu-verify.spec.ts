// Commands inside containers (the exec API) and the post-start GPU check, against the test bed's
// real engines. The fake swarm image (a TEST DOUBLE of AgentJet's) has node and no shell, and no
// nvidia-smi: exactly a container whose GPU request was dropped. Needs `bash test/testbed/testbed.sh up`.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerEngine, ContainerSpec } from '../../electron/services/engines/container-engine';
import { EXEC_MAX_OUTPUT_BYTES } from '../../electron/services/engines/docker-exec';
import { createLocalDockerEngine } from '../../electron/services/engines/local-docker';
import { createSshDockerEngine } from '../../electron/services/engines/ssh-docker';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { verifyGpus } from '../../electron/services/swarm/gpu-verify';
import { loadTestbed } from '../testbed/testbed';
import { removeTestContainers, TEST_CONTAINER_LABELS } from '../support/test-app';
import { connectToTestbed } from '../support/testbed-ssh';

const tb = loadTestbed();
let connection: SshConnection;
const engines: Record<string, ContainerEngine> = {};

beforeAll(async () => {
  engines.local = createLocalDockerEngine(`unix://${tb.dockerSocket}`);
  connection = await connectToTestbed({}, tb);
  engines.ssh = createSshDockerEngine({
    id: 'ssh:testbed',
    label: 'testbed',
    connection,
    urlForHostPort: (port) => Promise.resolve(`http://127.0.0.1:${port}`),
  });
});

afterEach(async () => {
  await removeTestContainers();
});

afterAll(async () => {
  await Promise.all(Object.values(engines).map((e) => e.dispose()));
  await connection?.close();
});

/** A container that only idles (no swarm server needed to run commands in it). */
function idleSpec(name: string): ContainerSpec {
  return {
    name: `agentswarm-gpu-test-${name}-${process.pid}-${Date.now()}`,
    image: tb.fakeSwarmImage,
    cmd: ['node', '-e', 'setInterval(() => {}, 1 << 30)'],
    env: {},
    labels: { ...TEST_CONTAINER_LABELS, 'agentswarm.test.case': 'gpu-verify' },
    network: { mode: 'publish', ports: [] },
    init: true,
    gpus: { mode: 'none' },
    shm: { mode: 'size', bytes: 64 * 1024 * 1024 },
    binds: [],
  };
}

async function runningContainer(engine: ContainerEngine, name: string): Promise<string> {
  const id = await engine.createContainer(idleSpec(name));
  await engine.startContainer(id);
  return id;
}

const node = (script: string) => ['node', '-e', script];

describe.each([
  ['local Docker', 'local'],
  ['Docker over SSH', 'ssh'],
])('execInContainer on %s', (_title, key) => {
  const engine = () => engines[key]!;

  it('gives the exit code, with stdout and stderr apart', async () => {
    const id = await runningContainer(engine(), `streams-${key}`);
    await expect(engine().execInContainer(id, node('process.stdout.write("to out\\n"); process.stderr.write("to err\\n"); process.exit(3)'), { timeoutMs: 10_000 })).resolves.toEqual({
      code: 3,
      stdout: 'to out\n',
      stderr: 'to err\n',
    });
    // An argv, no shell: quotes and spaces reach the program as they are.
    await expect(engine().execInContainer(id, ['node', '-e', 'console.log(process.argv[1])', "it's a $HOME"], { timeoutMs: 10_000 })).resolves.toMatchObject({ code: 0, stdout: "it's a $HOME\n" });
  });

  it('keeps at most the cap of a long output, says how much it dropped, and still gets the exit code', async () => {
    const id = await runningContainer(engine(), `bounded-${key}`);
    const result = await engine().execInContainer(id, node('process.stdout.write("x".repeat(300 * 1024)); process.exitCode = 5'), { timeoutMs: 20_000 });
    expect(result.code).toBe(5);
    expect(result.stdout.startsWith('x'.repeat(EXEC_MAX_OUTPUT_BYTES))).toBe(true);
    expect(result.stdout.slice(EXEC_MAX_OUTPUT_BYTES)).toBe(`\n[… ${300 * 1024 - EXEC_MAX_OUTPUT_BYTES} more bytes not kept]`);
  });

  it('a missing binary answers at once with a non-zero code and the runtime saying so', async () => {
    const id = await runningContainer(engine(), `missing-${key}`);
    const started = Date.now();
    const result = await engine().execInContainer(id, ['nvidia-smi', '-L'], { timeoutMs: 10_000 });
    const ms = Date.now() - started;
    // Docker 20.10: 126 with the OCI error on stdout (Podman: 127, on stderr).
    expect(result.code).toBe(126);
    expect(`${result.stdout}${result.stderr}`).toMatch(/"nvidia-smi": executable file not found in \$PATH/);
    expect(ms).toBeLessThan(2_000);
  });

  it('past the timeout it stops waiting (code null) and kills nothing', async () => {
    const id = await runningContainer(engine(), `timeout-${key}`);
    const started = Date.now();
    const result = await engine().execInContainer(id, node('console.log("begun"); setTimeout(() => {}, 20_000)'), { timeoutMs: 800 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.code).toBeNull();
    const ps = await engine().execInContainer(
      id,
      node('const fs = require("fs"); for (const p of fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p))) { try { console.log(fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\\0").join(" ")); } catch {} }'),
      { timeoutMs: 10_000 },
    );
    expect(ps.stdout).toContain('setTimeout(() => {}, 20_000)');
  });

  it('a stopped or removed container is refused with the engine\'s typed error', async () => {
    const id = await runningContainer(engine(), `refused-${key}`);
    await engine().stopContainer(id, 1);
    await expect(engine().execInContainer(id, node('1'), { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT', message: expect.stringMatching(/is not running/) });
    await engine().removeContainer(id);
    await expect(engine().execInContainer(id, node('1'), { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
  });

  it('the GPU check of a container without nvidia-smi fails fast with GPU_NOT_VISIBLE naming Docker\'s fix', async () => {
    const id = await runningContainer(engine(), `check-${key}`);
    const outcome = await verifyGpus(engine(), id, { gpus: { mode: 'all' } });
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.error.code).toBe('GPU_NOT_VISIBLE');
    expect(outcome.error.message).toContain('nvidia-smi is not there');
    expect(outcome.error.message).toContain('NVIDIA Container Toolkit');
    expect(outcome.ms).toBeLessThan(2_000);
    console.info(`[gpu-verify] check on ${key} took ${outcome.ms} ms`);
  });
});
