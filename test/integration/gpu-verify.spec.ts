// Commands inside containers (the exec API) and the post-start GPU check, against the test bed's
// real engines. The fake swarm image (a TEST DOUBLE of AgentJet's) has node and no shell, and no
// nvidia-smi: exactly a container whose GPU request was dropped. Needs `bash test/testbed/testbed.sh up`.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_MANAGED, LABEL_PORT, LABEL_ROLE, type ContainerEngine, type ContainerSpec } from '../../electron/services/engines/container-engine';
import { EXEC_MAX_OUTPUT_BYTES } from '../../electron/services/engines/docker-exec';
import { EngineRegistry } from '../../electron/services/engines/engine-registry';
import { createLocalDockerEngine, isLoopbackPortFree } from '../../electron/services/engines/local-docker';
import { createSshDockerEngine } from '../../electron/services/engines/ssh-docker';
import type { EventSink } from '../../electron/services/events';
import { APP_LOG_FILE } from '../../electron/services/util/app-log';
import { NativeProcesses } from '../../electron/services/native/native-processes';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { createSwarmMonitor } from '../../electron/services/swarm/create-monitor';
import { GPU_CHECK_TIMEOUT_MS, verifyGpus } from '../../electron/services/swarm/gpu-verify';
import { buildSwarmSpec, SWARM_ROLE, SwarmContainers } from '../../electron/services/swarm/swarm-containers';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { loadTestbed, loadTestbedWithNative, loadTestbedWithPodman } from '../testbed/testbed';
import { freePort } from '../support/helpers';
import { enginesUnderTest } from '../support/engines-under-test';
import { removeTestContainers, startTestApp, TEST_APP_VERSION, TEST_CONTAINER_LABELS, type TestApp } from '../support/test-app';
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
function idleSpec(name: string, labels: Record<string, string>): ContainerSpec {
  return {
    name: `agentswarm-gpu-test-${name}-${process.pid}-${Date.now()}`,
    image: tb.fakeSwarmImage,
    cmd: ['node', '-e', 'setInterval(() => {}, 1 << 30)'],
    env: {},
    labels: { ...labels, 'agentswarm.test.case': 'gpu-verify' },
    network: { mode: 'publish', ports: [] },
    init: true,
    gpus: { mode: 'none' },
    shm: { mode: 'size', bytes: 64 * 1024 * 1024 },
    binds: [],
  };
}

async function runningContainer(engine: ContainerEngine, name: string): Promise<string> {
  const id = await engine.createContainer(idleSpec(name, TEST_CONTAINER_LABELS));
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
    // Fast means: not the check's timeout (GPU_CHECK_TIMEOUT_MS); a docker exec alone took over 2 s at load 24.
    expect(ms).toBeLessThan(GPU_CHECK_TIMEOUT_MS / 2);
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
    expect(outcome.ms).toBeLessThan(GPU_CHECK_TIMEOUT_MS / 2);
    console.info(`[gpu-verify] check on ${key} took ${outcome.ms} ms`);
  });
});

/**
 * The start flow (SwarmContainers with the real monitor) on one engine, for what the app's handlers
 * cannot ask for: a native spec that requests GPUs. Records what it would send the UI and log.
 */
function startFlowOn(engine: ContainerEngine) {
  const registry = new EngineRegistry();
  registry.add(engine);
  const sent: Array<{ name: string; payload: unknown }> = [];
  const events: EventSink = { emit: (name, payload) => void sent.push({ name, payload }) };
  const monitor = createSwarmMonitor(registry, events, { intervalMs: 200 });
  const containers = new SwarmContainers({ engines: registry, monitor, events, appVersion: TEST_APP_VERSION });
  return { containers, monitor, sent, dispose: () => monitor.dispose() };
}

/**
 * A CDI spec for `nvidia.com/gpu` (devices `all` and `0`) whose edits add a harmless device node and no
 * driver: Podman resolves the GPU request and starts the container, which then has no nvidia-smi, as
 * on a host whose CDI spec is stale or hand-made. The node is /dev/null itself: rootless runc
 * bind-mounts a device from its container path on the host, so a /dev/nvidia0 backed by /dev/null
 * starts only rootful. Machine-wide (Podman 4.3 reads only /etc/cdi and /var/run/cdi), so it lives
 * only while a test needs it: the doctor's Podman test expects none.
 */
const CDI_TEST_FILE = '/var/run/cdi/agentswarm-test-gpu.yaml';
const CDI_TEST_SPEC = `# TEST DOUBLE of an NVIDIA CDI spec (test/integration/gpu-verify.spec.ts): a harmless device node, no driver.
cdiVersion: "0.5.0"
kind: "nvidia.com/gpu"
devices:
  - name: "all"
    containerEdits:
      deviceNodes:
        - path: "/dev/null"
  - name: "0"
    containerEdits:
      deviceNodes:
        - path: "/dev/null"
containerEdits: {}
`;

async function withTestCdiSpec<T>(run: () => Promise<T>): Promise<T> {
  const dir = dirname(CDI_TEST_FILE);
  const madeDir = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(CDI_TEST_FILE, CDI_TEST_SPEC, { mode: 0o644 });
  try {
    return await run();
  } finally {
    rmSync(CDI_TEST_FILE, { force: true });
    // Leave the machine as found: a folder this test made goes too (unless something else wrote there meanwhile).
    if (madeDir && readdirSync(dir).length === 0) rmdirSync(dir);
  }
}

/** What the app log says the check took (the start flow logs it with the removal). */
function loggedCheckMs(app: TestApp): number {
  const line = readFileSync(join(app.dataDir, APP_LOG_FILE), 'utf8')
    .split('\n')
    .find((l) => l.includes('swarm server started without its GPUs: removed'));
  const ms = /"ms":(\d+)/.exec(line ?? '')?.[1];
  if (ms === undefined) throw new Error(`the app log has no GPU check entry: ${line ?? 'none'}`);
  return Number(ms);
}

describe.each(enginesUnderTest(loadTestbedWithPodman()).filter((e) => e.product === 'podman'))('GPU request on $name whose CDI spec hands in no driver', (eut) => {
  let app: TestApp;
  let engineId = '';

  beforeAll(async () => {
    app = await startTestApp(eut.appOptions());
    engineId = await eut.attach(app);
  });

  afterAll(async () => {
    rmSync(CDI_TEST_FILE, { force: true });
    await app?.dispose();
  });

  /** Our swarm containers on this engine for `port`, asked of the engine directly (not through the app). */
  const leftOn = (port: number) =>
    eut.direct.listContainers({ all: true, filters: { label: [`${LABEL_MANAGED}=true`, `${LABEL_ROLE}=${SWARM_ROLE}`, `${LABEL_PORT}=${port}`] } });

  it('quick start with GPUs: the container starts through CDI, the check finds no nvidia-smi, it is stopped and removed, nothing reports a crash', async () => {
    const port = await freePort();
    const sent: Array<{ name: string; payload: unknown }> = [];
    const unsubscribe = app.hub.subscribe((name, payload) => sent.push({ name, payload }));
    const started = Date.now();
    const error = await withTestCdiSpec(() => app.handlers['swarm:start']({ engineId, image: eut.image, port, networkMode: 'host', gpus: true, shmSizeGb: 1 }).then(() => null, (e: unknown) => e));
    const ms = Date.now() - started;
    unsubscribe();
    const checkMs = loggedCheckMs(app);
    console.info(`[gpu-verify] ${eut.name}: the check took ${checkMs} ms; start + check + stop + remove ${ms} ms`);
    expect(checkMs).toBeLessThan(GPU_CHECK_TIMEOUT_MS / 2);
    expect(error).toMatchObject({ code: 'GPU_NOT_VISIBLE' });
    const message = (error as Error).message;
    // It started (CDI resolved), and the check ran in it: the runtime's own words about nvidia-smi.
    expect(message).toMatch(/started without the GPUs it asked for \(checked with nvidia-smi -L inside it\): nvidia-smi is not there, so the NVIDIA driver was not handed in: ".*executable file not found in \$PATH/);
    expect(message).toContain('(Podman)');
    expect(message).toContain('sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml');
    expect(message).toMatch(/Or start with GPUs off\.$/);
    expect(message).not.toMatch(/runtime configure|--runtime=docker/);
    expect(await leftOn(port)).toEqual([]);
    // Never watched, so never reported: no status at all for this engine, only the list invalidation.
    expect(sent.filter((e) => e.name === 'swarm:status' && (e.payload as { engineId: string }).engineId === engineId)).toEqual([]);
    // Of this engine: Local Docker may run other files' servers meanwhile (npm test's timer lane).
    expect((await app.handlers['swarm:statuses']({})).filter((st) => st.engineId === engineId)).toEqual([]);
    expect(await app.handlers['swarm:list']({ engineId })).toEqual([]);
  });

  it('a profile asking for GPU 0, started anyway past the doctor: stopped and removed the same way, and the profile shows no container', async () => {
    const port = await freePort();
    const view = await app.handlers['profiles:add'](ProfileInput.parse({ label: `gpu check ${eut.name}`, engineId, image: eut.image, port, networkMode: 'host', gpus: { mode: 'ids', ids: ['0'] }, shm: { mode: 'size', gb: 1 } }));
    await expect(withTestCdiSpec(() => app.handlers['profiles:start']({ profileId: view.profile.id, secrets: {}, skipDoctor: true, replaceDrifted: false }))).rejects.toMatchObject({
      code: 'GPU_NOT_VISIBLE',
      message: expect.stringContaining('nvidia-smi is not there'),
    });
    expect(await leftOn(port)).toEqual([]);
    const after = (await app.handlers['profiles:list']({})).find((p) => p.profile.id === view.profile.id);
    expect(after?.runtime.container).toBeNull();
    await app.handlers['profiles:remove']({ profileId: view.profile.id });
  });
});

describe('start flow of a native server on this computer (no container: the check runs on the host)', () => {
  it('a host without nvidia-smi: the native server is stopped and removed, GPU_NOT_VISIBLE names the driver', async () => {
    const ntb = loadTestbedWithNative();
    const engine = createLocalDockerEngine(`unix://${ntb.dockerSocket}`);
    const flow = startFlowOn(engine);
    const native = new NativeProcesses(engine.host!);
    try {
      const port = await freePort();
      const base = buildSwarmSpec({ engineId: engine.summary.id, image: 'native', port, networkMode: 'host', gpus: true, shmSizeGb: 1 }, TEST_APP_VERSION);
      // The profiles' builder gives native specs no GPU request today (the host's own GPUs are used);
      // a spec that carries one is checked on the host.
      const spec: ContainerSpec = { ...base, cmd: ['ajet-swarm', 'start', `--swarm-port=${port}`], runtime: 'native', nativeActivate: `export PATH=${ntb.native.binDir}:$PATH` };
      await expect(flow.containers.startSpec(engine.summary.id, spec)).rejects.toMatchObject({
        code: 'GPU_NOT_VISIBLE',
        message: expect.stringMatching(/^The native swarm server on Local Docker started without the GPUs it asked for \(checked with nvidia-smi -L on this computer\): nvidia-smi is not there.*Install the NVIDIA driver on this computer/),
      });
      expect(await native.list({ [LABEL_PORT]: String(port) })).toEqual([]);
      expect(flow.monitor.statuses()).toEqual([]);
      expect(flow.sent.filter((e) => e.name === 'swarm:status')).toEqual([]);
      expect(await isLoopbackPortFree(port)).toBe(true);
    } finally {
      flow.dispose();
      await engine.dispose();
    }
  });
});
