import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../electron/shared/errors';
import type { ContainerEngine, ContainerExecResult, ContainerSpec, ContainerSummary, EngineHost } from '../../../../electron/services/engines/container-engine';
import type { EngineWording } from '../../../../electron/services/engines/engine-wording';
import { EngineRegistry } from '../../../../electron/services/engines/engine-registry';
import { EventHub } from '../../../../electron/services/events';
import { LOCAL_DOCKER_WORDING } from '../../../../electron/services/engines/local-docker';
import {
  firstSaid,
  gpuNotVisibleError,
  gpuProductOf,
  judgeGpuCheck,
  parseNvidiaSmiList,
  verifyGpus,
} from '../../../../electron/services/swarm/gpu-verify';
import { SwarmContainers } from '../../../../electron/services/swarm/swarm-containers';
import { SwarmMonitor } from '../../../../electron/services/swarm/swarm-monitor';

// What nvidia-smi -L prints (driver 535), copied from real machines.
const TWO_A100 = [
  'GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-4b6e2e7a-7c3e-2b4a-9d0c-1e2f3a4b5c6d)',
  'GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-9a8b7c6d-5e4f-3a2b-1c0d-ef0123456789)',
  '',
].join('\n');
const MIG_TWO_SLICES = [
  'GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)',
  '  MIG 3g.20gb     Device  0: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)',
  '  MIG 3g.20gb     Device  1: (UUID: MIG-cba663e8-9bed-5b25-b243-5985ef7c9beb)',
  '',
].join('\n');
const DRIVER_GONE = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n\n";
// What Docker 20.10 and Podman 4.3 (compat API) answer for an exec of a binary the container lacks (measured here).
const DOCKER_MISSING: ContainerExecResult = {
  code: 126,
  stdout: 'OCI runtime exec failed: exec failed: unable to start container process: exec: "nvidia-smi": executable file not found in $PATH: unknown\r\n',
  stderr: '',
};
const PODMAN_MISSING: ContainerExecResult = {
  code: 127,
  stdout: '',
  stderr:
    'Error: runc: exec failed: unable to start container process: exec: "nvidia-smi": executable file not found in $PATH: OCI runtime attempted to invoke a command that was not found\nError: read unixpacket @->/proc/self/fd/14/attach: read: connection reset by peer\n',
};
const ok = (stdout: string): ContainerExecResult => ({ code: 0, stdout, stderr: '' });

describe('parseNvidiaSmiList', () => {
  it('counts GPU lines, and MIG devices apart from them', () => {
    expect(parseNvidiaSmiList(TWO_A100)).toEqual({ gpus: [TWO_A100.split('\n')[0], TWO_A100.split('\n')[1]], migDevices: [] });
    const mig = parseNvidiaSmiList(MIG_TWO_SLICES);
    expect(mig.gpus).toHaveLength(1);
    expect(mig.migDevices).toEqual([
      'MIG 3g.20gb     Device  0: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)',
      'MIG 3g.20gb     Device  1: (UUID: MIG-cba663e8-9bed-5b25-b243-5985ef7c9beb)',
    ]);
  });

  it('finds nothing in a failure text or "No devices were found", and takes CRLF', () => {
    expect(parseNvidiaSmiList(DRIVER_GONE)).toEqual({ gpus: [], migDevices: [] });
    expect(parseNvidiaSmiList('No devices were found\n')).toEqual({ gpus: [], migDevices: [] });
    expect(parseNvidiaSmiList('GPU 0: Tesla T4 (UUID: GPU-1)\r\nGPU 1: Tesla T4 (UUID: GPU-2)\r\n').gpus).toHaveLength(2);
  });
});

describe('judgeGpuCheck', () => {
  it('"all" passes with at least one GPU and fails with none', () => {
    expect(judgeGpuCheck({ mode: 'all' }, ok(TWO_A100))).toEqual({ ok: true, detail: 'sees 2 GPUs' });
    expect(judgeGpuCheck({ mode: 'all' }, ok('GPU 0: Tesla T4 (UUID: GPU-1)\n'))).toEqual({ ok: true, detail: 'sees 1 GPU' });
    expect(judgeGpuCheck({ mode: 'all' }, ok(MIG_TWO_SLICES))).toEqual({ ok: true, detail: 'sees 1 GPU (2 MIG devices)' });
    expect(judgeGpuCheck({ mode: 'all' }, ok(''))).toEqual({ ok: false, problem: 'nvidia-smi -L lists no GPU' });
    expect(judgeGpuCheck({ mode: 'all' }, { code: 6, stdout: 'No devices were found\n', stderr: '' })).toEqual({ ok: false, problem: 'nvidia-smi -L failed (exit 6): "No devices were found"' });
  });

  it('"ids" needs as many GPUs as ids, named UUIDs among them, and MIG ids counted as MIG devices', () => {
    expect(judgeGpuCheck({ mode: 'ids', ids: ['0', '2'] }, ok(TWO_A100))).toMatchObject({ ok: true });
    expect(judgeGpuCheck({ mode: 'ids', ids: ['0'] }, ok(TWO_A100))).toEqual({ ok: false, problem: 'it asked for GPU 0 but nvidia-smi -L lists 2 GPUs' });
    expect(judgeGpuCheck({ mode: 'ids', ids: ['0', '1', '2'] }, ok(TWO_A100))).toMatchObject({ ok: false });
    expect(judgeGpuCheck({ mode: 'ids', ids: ['GPU-9a8b7c6d-5e4f-3a2b-1c0d-ef0123456789'] }, ok(TWO_A100.split('\n')[1]!))).toMatchObject({ ok: true });
    expect(judgeGpuCheck({ mode: 'ids', ids: ['GPU-0000'] }, ok(TWO_A100.split('\n')[1]!))).toEqual({
      ok: false,
      problem: 'it asked for GPU GPU-0000 but nvidia-smi -L lists 1 GPU, and not GPU-0000',
    });
    // Two slices of one GPU: one GPU line, two MIG lines.
    expect(judgeGpuCheck({ mode: 'ids', ids: ['0:0', '0:1'] }, ok(MIG_TWO_SLICES))).toMatchObject({ ok: true });
    expect(judgeGpuCheck({ mode: 'ids', ids: ['MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f'] }, ok(MIG_TWO_SLICES))).toMatchObject({ ok: false });
  });

  it('a missing nvidia-smi (Docker 126, Podman 127), a broken driver and a timeout all fail, quoting the first line', () => {
    expect(judgeGpuCheck({ mode: 'all' }, DOCKER_MISSING)).toEqual({
      ok: false,
      problem: `nvidia-smi is not there, so the NVIDIA driver was not handed in: "${DOCKER_MISSING.stdout.trim()}"`,
    });
    const podman = judgeGpuCheck({ mode: 'all' }, PODMAN_MISSING);
    expect(podman).toMatchObject({ ok: false, problem: expect.stringContaining('nvidia-smi is not there') });
    expect(podman.ok === false && podman.problem).not.toContain('unixpacket');
    expect(judgeGpuCheck({ mode: 'all' }, { code: 9, stdout: DRIVER_GONE, stderr: '' })).toEqual({
      ok: false,
      problem: `nvidia-smi -L failed (exit 9): "${DRIVER_GONE.trim()}"`,
    });
    expect(judgeGpuCheck({ mode: 'ids', ids: ['0'] }, { code: null, stdout: '', stderr: '' }, 15_000)).toEqual({
      ok: false,
      problem: 'nvidia-smi -L did not answer within 15 s (a hung NVIDIA driver?)',
    });
  });

  it('quotes no secret and no more than one capped line', () => {
    const said = firstSaid({ code: 1, stdout: `\n\nfailed with HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz ${'x'.repeat(400)}\nsecond line`, stderr: '' } as ContainerExecResult);
    expect(said).not.toContain('hf_abcdefghijklmnopqrstuvwxyz');
    expect(said).not.toContain('second line');
    expect(said.length).toBeLessThanOrEqual(200);
  });
});

const PODMAN_WORDING: EngineWording = { ...LOCAL_DOCKER_WORDING, product: 'Podman', noGpuRuntime: () => 'Podman cannot give GPUs here.' };
const SSH_HOST: EngineHost = { kind: 'ssh', label: 'gpu-1 (alice@10.0.0.5)', exec: () => Promise.reject(new Error('unused')) };

describe('gpuNotVisibleError', () => {
  it('Podman: names the engine, what nvidia-smi said and the CDI spec command; Docker: the NVIDIA Container Toolkit', () => {
    const podman = { summary: { id: 'p', kind: 'podman' as const, label: 'gpu-1', endpoint: 'ssh://gpu-1' }, wording: PODMAN_WORDING, host: SSH_HOST };
    const error = gpuNotVisibleError(podman, 'nvidia-smi is not there', false);
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('GPU_NOT_VISIBLE');
    expect(error.message).toBe(
      "The swarm server's container on gpu-1 (Podman) started without the GPUs it asked for (checked with nvidia-smi -L inside it): nvidia-smi is not there. " +
        'It was stopped and removed before it ran any training. Podman gives GPUs to containers through CDI: generate a CDI spec on gpu-1 (alice@10.0.0.5) ' +
        '(sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml; "nvidia-ctk cdi list" then shows nvidia.com/gpu devices) and start again. Or start with GPUs off.',
    );
    const docker = { summary: { id: 'local', kind: 'local-docker' as const, label: 'Local Docker', endpoint: 'unix:///var/run/docker.sock' }, wording: LOCAL_DOCKER_WORDING, host: null };
    const dockerError = gpuNotVisibleError(docker, 'x', false);
    expect(dockerError.message).toContain('on Local Docker (Docker)');
    expect(dockerError.message).toContain("install it on the engine's host and register it with Docker (sudo nvidia-ctk runtime configure --runtime=docker, then restart Docker)");
    expect(dockerError.message).toContain('--gpus');
    expect(dockerError.message).not.toContain('CDI');
    expect(dockerError.message).toMatch(/Or start with GPUs off\.$/);
  });

  it('a Docker-kind engine that answers as Podman gets the CDI fix; an unknown product its own wording; native the driver', () => {
    const relabelled = { summary: { id: 's', kind: 'ssh-docker' as const, label: 's', endpoint: 'x' }, wording: PODMAN_WORDING, host: null };
    expect(gpuProductOf(relabelled)).toBe('podman');
    const other = { summary: { id: 'm', kind: 'slurm' as const, label: 'cluster', endpoint: 'x' }, wording: { ...LOCAL_DOCKER_WORDING, product: 'Slurm', noGpuRuntime: () => 'Ask for --gres=gpu.' }, host: null };
    expect(gpuProductOf(other)).toBeNull();
    expect(gpuNotVisibleError(other, 'x', false).message).toContain('Ask for --gres=gpu. Or start with GPUs off.');
    const native = gpuNotVisibleError({ ...relabelled, host: SSH_HOST }, 'nvidia-smi -L lists no GPU', true).message;
    expect(native).toContain('The native swarm server on s started without the GPUs it asked for (checked with nvidia-smi -L on gpu-1 (alice@10.0.0.5))');
    expect(native).toContain('Install the NVIDIA driver on gpu-1 (alice@10.0.0.5)');
  });
});

/**
 * TEST DOUBLE: an in-memory engine whose exec answers what a test says, for the decision logic of
 * the check and the start flow around it (which calls, in which order). The real exec and the
 * real start flow run against Docker and Podman in test/integration/gpu-verify.spec.ts.
 */
class ExecDoubleEngine implements ContainerEngine {
  readonly summary = { id: 'double', kind: 'local-docker' as const, label: 'Double engine', endpoint: 'memory://' };
  readonly wording = LOCAL_DOCKER_WORDING;
  readonly host = null;
  readonly calls: string[] = [];
  readonly containers = new Map<string, ContainerSummary>();
  constructor(private readonly exec: (id: string) => Promise<ContainerExecResult>) {}

  async execInContainer(id: string, cmd: string[]) {
    this.calls.push(`exec:${cmd.join(' ')}`);
    return this.exec(id);
  }
  async inspectContainer(id: string) {
    const c = this.containers.get(id);
    if (!c) throw new AppError('CONTAINER_NOT_FOUND', 'gone');
    return c;
  }
  async createContainer(spec: ContainerSpec) {
    this.calls.push('create');
    const id = `c${this.containers.size + 1}`;
    this.containers.set(id, { id, name: spec.name, image: spec.image, state: 'created', statusText: '', labels: spec.labels, createdAt: '', startedAt: null, finishedAt: null, exitCode: null, oomKilled: false });
    return id;
  }
  async startContainer(id: string) {
    this.calls.push('start');
    (await this.inspectContainer(id)).state = 'running';
  }
  async stopContainer(id: string) {
    this.calls.push('stop');
    (await this.inspectContainer(id)).state = 'exited';
  }
  async removeContainer(id: string) {
    this.calls.push('remove');
    this.containers.delete(id);
  }
  async health() {
    return { id: 'double', reachable: true, version: '1', apiVersion: '1', error: null };
  }
  async listContainers() {
    return [...this.containers.values()];
  }
  async imageExists() {
    return true;
  }
  async isHostPortFree() {
    return true;
  }
  async urlForHostPort(port: number) {
    return `http://127.0.0.1:${port}`;
  }
  async readLog() {
    return [];
  }
  watchEvents() {
    return () => undefined;
  }
  async dispose() {}
  // Not used by these tests: the double says so loudly if one ever calls them.
  async info(): Promise<never> {
    throw new Error('not part of this double');
  }
  async inspectImage(): Promise<never> {
    throw new Error('not part of this double');
  }
  async pullImage(): Promise<never> {
    throw new Error('not part of this double');
  }
  async followLog(): Promise<never> {
    throw new Error('not part of this double');
  }
  async readContainerFile(): Promise<never> {
    throw new Error('not part of this double');
  }
}

describe('verifyGpus (decision logic)', () => {
  const running = (engine: ExecDoubleEngine, state: ContainerSummary['state'] = 'running') =>
    engine.containers.set('c1', { id: 'c1', name: 'n', image: 'i', state, statusText: '', labels: {}, createdAt: '', startedAt: null, finishedAt: null, exitCode: null, oomKilled: false });

  it('asks nothing when no GPUs were asked for; passes and fails by what nvidia-smi -L said', async () => {
    const engine = new ExecDoubleEngine(async () => ok(TWO_A100));
    running(engine);
    expect(await verifyGpus(engine, 'c1', { gpus: { mode: 'none' } })).toEqual({ status: 'skipped', reason: 'no GPUs asked for' });
    expect(engine.calls).toEqual([]);
    expect(await verifyGpus(engine, 'c1', { gpus: { mode: 'all' } })).toMatchObject({ status: 'passed', detail: 'sees 2 GPUs' });
    expect(engine.calls).toEqual(['exec:nvidia-smi -L']);
    const failed = await verifyGpus(engine, 'c1', { gpus: { mode: 'ids', ids: ['3'] } });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'GPU_NOT_VISIBLE' } });
  });

  it('an exec the engine refuses: skipped when the server already ended (a crash, reported by the monitor), failed while it runs', async () => {
    const refusing = new ExecDoubleEngine(async () => {
      throw new AppError('CONTAINER_CONFLICT', 'Docker refused: Container c1 is not running.');
    });
    running(refusing, 'exited');
    expect(await verifyGpus(refusing, 'c1', { gpus: { mode: 'all' } })).toMatchObject({ status: 'skipped' });
    running(refusing, 'running');
    const failed = await verifyGpus(refusing, 'c1', { gpus: { mode: 'all' } });
    expect(failed.status).toBe('failed');
    expect(failed.status === 'failed' && failed.error.message).toContain('the engine refused to run nvidia-smi in it (Docker refused: Container c1 is not running.)');
  });
});

describe('SwarmContainers start with GPUs (start flow around the check)', () => {
  function setup(exec: () => Promise<ContainerExecResult>) {
    const engine = new ExecDoubleEngine(exec);
    const engines = new EngineRegistry();
    engines.add(engine);
    const hub = new EventHub();
    const changed: string[] = [];
    hub.subscribe((name) => changed.push(name));
    const monitor = new SwarmMonitor({ events: hub, intervalMs: 60_000, isContainerRunning: async () => true });
    const containers = new SwarmContainers({ engines, monitor, events: hub, appVersion: 'test' });
    const request = { engineId: 'double', image: 'x/y:1', port: 12001, networkMode: 'host' as const, gpus: true, shmSizeGb: 1 };
    return { engine, monitor, containers, request, changed };
  }

  it('a container that sees no GPU is stopped and removed, never watched, and the port is free for the next Start', async () => {
    let answer = DOCKER_MISSING;
    const { engine, monitor, containers, request, changed } = setup(async () => answer);
    await expect(containers.start(request)).rejects.toMatchObject({ code: 'GPU_NOT_VISIBLE', message: expect.stringContaining('executable file not found') });
    expect(engine.calls).toEqual(['create', 'start', 'exec:nvidia-smi -L', 'stop', 'remove']);
    expect(engine.containers.size).toBe(0);
    expect(monitor.statuses()).toEqual([]);
    expect(changed).toContain('swarm:containers-changed');
    // The port lock was released: the next Start runs (and passes the check this time).
    answer = ok(TWO_A100);
    await expect(containers.start(request)).resolves.toMatchObject({ state: 'running' });
    expect(monitor.statuses()).toHaveLength(1);
    monitor.dispose();
  });

  it('without GPUs the check runs no command', async () => {
    const { engine, monitor, containers, request } = setup(async () => DOCKER_MISSING);
    await expect(containers.start({ ...request, gpus: false })).resolves.toMatchObject({ state: 'running' });
    expect(engine.calls).toEqual(['create', 'start']);
    monitor.dispose();
  });
});
