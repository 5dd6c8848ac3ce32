import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineHealth } from '../../../../electron/shared/schemas';
import type { DoctorCheckId, DoctorReport, ProfileInputRaw } from '../../../../electron/shared/schemas-profiles';
import { ProfileInput } from '../../../../electron/shared/schemas-profiles';
import type { ContainerEngine, EngineHost, EngineInfo, HostExecResult } from '../../../../electron/services/engines/container-engine';
import { EngineRegistry } from '../../../../electron/services/engines/engine-registry';
import { LOCAL_DOCKER_WORDING } from '../../../../electron/services/engines/local-docker';
import { hostPathWord } from '../../../../electron/services/doctor/check-kit';
import { DoctorService } from '../../../../electron/services/doctor/doctor-service';
import { availableBytesOf } from '../../../../electron/services/doctor/engine-checks';
import { ProfileStore } from '../../../../electron/services/profiles/profile-store';

const INFO: EngineInfo = {
  operatingSystem: 'Ubuntu 22.04.4 LTS',
  osType: 'linux',
  serverVersion: '27.3.1',
  rootDir: '/var/lib/docker',
  runtimes: ['runc'],
  defaultRuntime: 'runc',
  cdiDevices: [],
  rootless: false,
};

const HEALTHY: EngineHealth = { id: 'e', reachable: true, version: '27.3.1', apiVersion: '1.47', error: null };

/**
 * TEST DOUBLE: an engine and host answering what each case needs (engine states this machine cannot
 * be put in: Docker Desktop, CDI GPUs, permission denied, a hanging nvidia-smi). The real checks run
 * against dockerd and sshd in test/integration/doctor.spec.ts.
 */
function fakeEngine(options: { health?: EngineHealth; info?: Partial<EngineInfo>; host?: ((script: string) => Promise<HostExecResult>) | null }): ContainerEngine {
  const exec = options.host === undefined ? async () => ({ code: 0, stdout: '', stderr: '' }) : options.host;
  const host: EngineHost | null = exec === null ? null : { kind: 'ssh', label: 'gpu-1 (alice@10.0.0.5)', exec: (script) => exec(script) };
  return {
    summary: { id: 'e', kind: 'ssh-docker', label: 'gpu-1', endpoint: 'ssh://alice@10.0.0.5/var/run/docker.sock' },
    wording: LOCAL_DOCKER_WORDING,
    host,
    health: async () => options.health ?? HEALTHY,
    info: async () => ({ ...INFO, ...options.info }),
    inspectImage: async () => ({ id: 'sha256:1', repoDigests: ['ghcr.io/modelscope/agentjet@sha256:abc'], sizeBytes: 20e9 }),
    listContainers: async () => [],
    isHostPortFree: async () => true,
    dispose: async () => undefined,
  } as unknown as ContainerEngine;
}

let dataDir: string;
let store: ProfileStore;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'doctor-unit-'));
  store = new ProfileStore(dataDir);
  await store.load();
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** Each profile its own label and port: random ones collided now and then (one store holds every profile of a test). */
let profileCount = 0;

async function runWith(engine: ContainerEngine, input: Partial<ProfileInputRaw> = {}, checkTimeoutMs = 5_000): Promise<{ report: DoctorReport; status: (id: DoctorCheckId) => string; of: (id: DoctorCheckId) => DoctorReport['checks'][number] }> {
  const engines = new EngineRegistry();
  engines.add(engine);
  const profile = await store.add(ProfileInput.parse({ label: `p ${(profileCount += 1)}`, engineId: 'e', image: 'ghcr.io/modelscope/agentjet:main', port: 10086 + profileCount, ...input }));
  const events: DoctorReport[] = [];
  const doctor = new DoctorService({ engines, profiles: store, events: { emit: (_c, r) => events.push(r as DoctorReport) }, checkTimeoutMs });
  const report = await doctor.run(profile.id);
  expect(events).toEqual([report]);
  const of = (id: DoctorCheckId) => report.checks.find((c) => c.id === id)!;
  return { report, status: (id) => of(id).status, of };
}

describe('doctor checks on engines this machine is not', () => {
  it('engine unreachable: that check fails with the fix; checks that need the engine skip instead of repeating the error', async () => {
    const down: EngineHealth = { id: 'e', reachable: false, version: null, apiVersion: null, error: { code: 'ENGINE_UNREACHABLE', message: 'Cannot reach Docker at ssh://… (ECONNREFUSED).' } };
    const { of, status, report } = await runWith(fakeEngine({ health: down }));
    expect(of('engine-reachable')).toMatchObject({ status: 'fail', detail: 'Cannot reach Docker at ssh://… (ECONNREFUSED).', command: 'docker version', commandWhere: 'server' });
    for (const id of ['docker-desktop-vm', 'gpu-runtime', 'disk-space', 'image'] as const) expect(status(id)).toBe('skip');
    expect(status('socket-permission')).toBe('skip');
    expect(report.verdict).toBe('fail');
  });

  it('permission denied: the socket check fails and says a new group membership needs a new login', async () => {
    const denied: EngineHealth = { id: 'e', reachable: false, version: null, apiVersion: null, error: { code: 'ENGINE_PERMISSION_DENIED', message: 'Permission denied on unix:///var/run/docker.sock.' } };
    const { of } = await runWith(fakeEngine({ health: denied }));
    const socket = of('socket-permission');
    expect(socket).toMatchObject({ status: 'fail', command: 'sudo usermod -aG docker "$USER"' });
    expect(socket.fix).toContain('reconnect');
    expect(socket.fix).toContain('new logins');
    expect(of('engine-reachable').status).toBe('skip');
  });

  it('Docker Desktop with GPUs wanted is a warning; without GPUs fine', async () => {
    const desktop = fakeEngine({ info: { operatingSystem: 'Docker Desktop' } });
    expect((await runWith(desktop)).of('docker-desktop-vm')).toMatchObject({ status: 'warn', command: 'docker context use default' });
    expect((await runWith(desktop, { gpus: { mode: 'none' } })).status('docker-desktop-vm')).toBe('pass');
  });

  it('GPU runtime: nvidia runtime or NVIDIA CDI devices pass; neither (and no toolkit hook) fails with nvidia-ctk', async () => {
    expect((await runWith(fakeEngine({ info: { runtimes: ['runc', 'nvidia'] } }))).status('gpu-runtime')).toBe('pass');
    expect((await runWith(fakeEngine({ info: { cdiDevices: ['nvidia.com/gpu=0', 'nvidia.com/gpu=all'] } }))).of('gpu-runtime').detail).toContain('nvidia.com/gpu=0');
    const none = await runWith(fakeEngine({ host: async () => ({ code: 1, stdout: '', stderr: '' }) }));
    expect(none.of('gpu-runtime').command).toContain('nvidia-ctk runtime configure');
  });

  it('GPUs by id: an index the host does not have fails, naming what it has', async () => {
    const twoGpus = async (script: string) =>
      script.startsWith('nvidia-smi') ? { code: 0, stdout: 'GPU 0: NVIDIA A100 (UUID: GPU-1)\nGPU 1: NVIDIA A100 (UUID: GPU-2)\n', stderr: '' } : { code: 0, stdout: '', stderr: '' };
    expect((await runWith(fakeEngine({ host: twoGpus }), { gpus: { mode: 'ids', ids: ['0', '1'] } })).of('gpu-host').detail).toBe('2 GPUs on gpu-1 (alice@10.0.0.5): GPU 0: NVIDIA A100; GPU 1: NVIDIA A100.');
    const missing = (await runWith(fakeEngine({ host: twoGpus }), { gpus: { mode: 'ids', ids: ['3'] } })).of('gpu-host');
    expect(missing.status).toBe('fail');
    expect(missing.detail).toContain('GPU 3');
  });

  it('no shell on the engine host (Windows, remote DOCKER_HOST): host checks skip saying why', async () => {
    const { of } = await runWith(fakeEngine({ host: null }), { model: { hostPath: '/m', containerPath: '/m' }, logDir: '/l' });
    for (const id of ['gpu-host', 'model-dir', 'host-dirs', 'disk-space'] as const) {
      expect(of(id).status).toBe('skip');
      expect(of(id).detail).toContain('cannot run commands on this engine');
    }
  });

  it('disk: too little room for the AgentJet image fails and says the size is an estimate', async () => {
    const engine = fakeEngine({ host: async (s) => (s.startsWith('df') ? { code: 0, stdout: 'Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sda1 100000000 95000000 5000000 95% /\n', stderr: '' } : { code: 0, stdout: '', stderr: '' }) });
    (engine as { inspectImage: unknown }).inspectImage = async () => null;
    const disk = (await runWith(engine)).of('disk-space');
    expect(disk.status).toBe('fail');
    expect(disk.detail).toContain('(an estimate)');
    expect(disk.detail).toContain('4.8 GiB free');
  });

  it('shm: a small size warns; IPC host is judged by the size of the host\'s /dev/shm', async () => {
    expect((await runWith(fakeEngine({}), { shm: { mode: 'size', gb: 8 } })).of('shm')).toMatchObject({ status: 'warn' });
    expect((await runWith(fakeEngine({}), { shm: { mode: 'size', gb: 32 } })).status('shm')).toBe('pass');
    const shmOf = (kib: number) => async (s: string) =>
      s.startsWith('df -Pk /dev/shm') ? { code: 0, stdout: `Filesystem 1024-blocks Used Available Capacity Mounted on\ntmpfs ${kib} 0 ${kib} 0% /dev/shm\n`, stderr: '' } : { code: 0, stdout: '', stderr: '' };
    const small = (await runWith(fakeEngine({ host: shmOf(65536) }), { shm: { mode: 'ipc-host' } })).of('shm');
    expect(small).toMatchObject({ status: 'warn', command: 'sudo mount -o remount,size=32G /dev/shm', commandWhere: 'server' });
    expect(small.detail).toContain('0.1 GiB');
    expect((await runWith(fakeEngine({ host: shmOf(64 * 1024 * 1024) }), { shm: { mode: 'ipc-host' } })).status('shm')).toBe('pass');
  });

  it('disk: an image already there passes, but warns when a newer version would not fit', async () => {
    const df = (availableKib: number) => async (s: string) =>
      s.startsWith('df') ? { code: 0, stdout: `Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sda1 100000000 1 ${availableKib} 1% /\n`, stderr: '' } : { code: 0, stdout: '', stderr: '' };
    // The fake image is 20 GB.
    expect((await runWith(fakeEngine({ host: df(50_000_000) }))).status('disk-space')).toBe('pass');
    expect((await runWith(fakeEngine({ host: df(5_000_000) }))).of('disk-space')).toMatchObject({ status: 'warn', command: 'docker system df' });
  });

  it('two runs of the same profile at once share one run and one report (Start and a click)', async () => {
    let nvidiaCalls = 0;
    const engines = new EngineRegistry();
    engines.add(fakeEngine({ host: async (s) => (s.startsWith('nvidia-smi') ? (nvidiaCalls++, { code: 127, stdout: '', stderr: 'not found' }) : { code: 0, stdout: '', stderr: '' }) }));
    const profile = await store.add(ProfileInput.parse({ label: 'twice', engineId: 'e', image: 'x/y:1' }));
    const events: unknown[] = [];
    const doctor = new DoctorService({ engines, profiles: store, events: { emit: (_c, r) => events.push(r) } });
    const [a, b] = await Promise.all([doctor.run(profile.id), doctor.run(profile.id)]);
    expect(a).toBe(b);
    expect(nvidiaCalls).toBe(1);
    expect(events).toHaveLength(1);
    expect(doctor.list()).toEqual([a]);
    // Once it ended, a new run runs again.
    await doctor.run(profile.id);
    expect(nvidiaCalls).toBe(2);
    // Removing the profile drops its report.
    await store.remove(profile.id);
    expect(doctor.list()).toEqual([]);
  });

  it('a hanging check ends as a warning at its own timeout and the others still finish', async () => {
    const hang = (script: string) => (script.startsWith('nvidia-smi') ? new Promise<HostExecResult>(() => undefined) : Promise.resolve({ code: 0, stdout: 'ok\n', stderr: '' }));
    const started = Date.now();
    const { of, report } = await runWith(fakeEngine({ host: hang }), { model: { hostPath: '/m', containerPath: '/m' } }, 300);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(of('gpu-host')).toMatchObject({ status: 'warn' });
    expect(of('gpu-host').detail).toContain('did not finish');
    expect(of('model-dir').status).toBe('pass');
    expect(report.checks).toHaveLength(12);
  });

  it('a check that throws is a warning with the reason; the rest of the report stands', async () => {
    const engine = fakeEngine({});
    (engine as { info: unknown }).info = async () => {
      throw new Error('info exploded');
    };
    const { of } = await runWith(engine);
    expect(of('docker-desktop-vm')).toMatchObject({ status: 'warn', detail: 'This check could not run: info exploded' });
    expect(of('image').status).toBe('pass');
  });
});

describe('doctor helpers', () => {
  it('reads df -Pk output', () => {
    expect(availableBytesOf('Filesystem 1024-blocks Used Available Capacity Mounted on\noverlay 100 40 60 40% /\n')).toBe(60 * 1024);
    expect(availableBytesOf('df: /nope: No such file or directory')).toBeNull();
  });

  it('quotes host paths for sh, expanding ~/ to $HOME', () => {
    expect(hostPathWord('/data/my model')).toBe("'/data/my model'");
    expect(hostPathWord("~/it's")).toBe(`"$HOME"/'it'"'"'s'`);
  });
});
