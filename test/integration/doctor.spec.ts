// The preflight doctor through the app's own handlers (contract-checked) on this machine's real dockerd
// (no NVIDIA driver, no NVIDIA runtime) and once over the test bed's sshd. Needs `bash test/testbed/testbed.sh up`.
// Profiles are written to the data folder before the app starts, as a saved profiles file.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Profile, ProfileInput, type DoctorCheck, type DoctorCheckId, type DoctorReport, type ProfileInputRaw } from '../../electron/shared/schemas-profiles';
import { LABEL_PORT, LABEL_PROFILE } from '../../electron/services/engines/container-engine';
import { PROFILES_FILE } from '../../electron/services/profiles/profile-store';
import { freePort, poll, waitForEvent } from '../support/helpers';
import { startTestApp, TEST_CONTAINER_LABELS, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { loadTestbedWithNative } from '../testbed/testbed';

const tb = loadTestbedWithNative();
const docker = new Docker({ socketPath: tb.dockerSocket });
// World-readable: the SSH case runs its checks as the test bed's user.
const scratch = mkdtempSync(join(tmpdir(), 'agentswarm-doctor-'));
chmodSync(scratch, 0o755);
const modelDir = join(scratch, 'model');
const noConfigDir = join(scratch, 'not-a-model');
const logDir = join(scratch, 'log');
const standInBin = join(scratch, 'bin');

let takenServer: net.Server;
let takenPort: number;
let ownPort: number;
let freeOne: number;
let app: TestApp;
let dataDir: string;

function profile(id: string, input: Partial<ProfileInputRaw>): Profile {
  const now = new Date().toISOString();
  const parsed = ProfileInput.parse({ label: id, engineId: 'local', image: tb.fakeSwarmImage, ...input });
  return Profile.parse({ ...parsed, id, createdAt: now, updatedAt: now });
}

function check(report: DoctorReport, id: DoctorCheckId): DoctorCheck {
  const found = report.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no ${id} check in the report`);
  return found;
}

beforeAll(async () => {
  for (const dir of [modelDir, noConfigDir, logDir, standInBin]) mkdirSync(dir, { recursive: true, mode: 0o755 });
  writeFileSync(join(modelDir, 'config.json'), '{"architectures":["Qwen2ForCausalLM"]}\n');
  writeFileSync(join(noConfigDir, 'README.md'), 'not a model\n');
  // TEST DOUBLE: an `ajet-swarm` that only has to be found on the PATH the activate line sets.
  writeFileSync(join(standInBin, 'ajet-swarm'), '#!/bin/sh\necho stand-in\n', { mode: 0o755 });

  takenServer = net.createServer();
  await new Promise<void>((ok) => takenServer.listen(0, '127.0.0.1', ok));
  takenPort = (takenServer.address() as net.AddressInfo).port;
  ownPort = await freePort();
  freeOne = await freePort();

  const profiles = [
    profile('broken', { gpus: { mode: 'all' }, model: { hostPath: join(scratch, 'no-such-model'), containerPath: '/models/m' }, port: takenPort, shm: { mode: 'size', gb: 2 }, logDir: join(scratch, 'new', 'log') }),
    profile('no-config', { gpus: { mode: 'none' }, model: { hostPath: noConfigDir, containerPath: '/models/m' }, port: await freePort() }),
    profile('missing-image', { gpus: { mode: 'none' }, image: `${tb.registry}/agentswarm-test/not-here:1`, port: await freePort() }),
    profile('healthy', { gpus: { mode: 'none' }, model: { hostPath: modelDir, containerPath: '/models/m' }, logDir, port: freeOne, shm: { mode: 'size', gb: 16 } }),
    profile('own-port', { gpus: { mode: 'none' }, port: ownPort, shm: { mode: 'size', gb: 16 } }),
    profile('ipc', { gpus: { mode: 'none' }, port: await freePort(), shm: { mode: 'ipc-host' } }),
    profile('native-missing', { mode: 'native', gpus: { mode: 'none' }, port: await freePort() }),
    profile('native-found', { mode: 'native', gpus: { mode: 'none' }, port: await freePort(), nativeActivate: `PATH=${standInBin}:$PATH` }),
    profile('remote-native', { engineId: 'ssh-testbed', mode: 'native', gpus: { mode: 'none' }, port: await freePort(), nativeActivate: tb.native.sshUserActivate }),
    // `source` is bash (users copy it from venv docs); dash, Debian's sh, has no such builtin. Start runs it with bash.
    profile('remote-native-source', { engineId: 'ssh-testbed', mode: 'native', gpus: { mode: 'none' }, port: await freePort(), nativeActivate: `source /dev/null && ${tb.native.sshUserActivate}` }),
    profile('remote', { engineId: 'ssh-testbed', gpus: { mode: 'all' }, model: { hostPath: '~/no-such-model', containerPath: '/models/m' }, port: takenPort }),
  ];
  dataDir = mkdtempSync(join(tmpdir(), 'agentswarm-doctor-data-'));
  writeFileSync(join(dataDir, PROFILES_FILE), JSON.stringify({ profiles }));
  app = await startTestApp({ dataDir });
});

afterAll(async () => {
  await app?.dispose();
  await new Promise((ok) => takenServer?.close(ok));
  rmSync(scratch, { recursive: true, force: true });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('preflight doctor on this machine (real dockerd, no NVIDIA)', () => {
  it('names each failing check with its fix and command: no nvidia-smi, no NVIDIA runtime, missing model dir, taken port', async () => {
    const pushed = waitForEvent(app.hub, 'doctor:report', (r) => r.profileId === 'broken');
    const report = await app.handlers['doctor:run']({ profileId: 'broken' });
    expect((await pushed).ranAt).toBe(report.ranAt);
    expect(report).toMatchObject({ profileId: 'broken', engineId: 'local', verdict: 'fail' });
    expect(report.checks.map((c) => c.id)).toEqual(['engine-reachable', 'socket-permission', 'docker-desktop-vm', 'gpu-host', 'gpu-runtime', 'disk-space', 'image', 'model-dir', 'host-dirs', 'port', 'shm', 'native-ajet']);

    expect(check(report, 'engine-reachable')).toMatchObject({ status: 'pass', fix: null });
    expect(check(report, 'engine-reachable').detail).toMatch(/Docker \d+\.\d+/);
    expect(check(report, 'socket-permission').status).toBe('pass');
    expect(check(report, 'docker-desktop-vm').status).toBe('pass');

    const gpuHost = check(report, 'gpu-host');
    expect(gpuHost).toMatchObject({ status: 'fail', command: 'nvidia-smi -L', commandWhere: 'local' });
    expect(gpuHost.detail).toContain('nvidia-smi is not installed on this computer');

    const runtime = check(report, 'gpu-runtime');
    expect(runtime).toMatchObject({ status: 'fail', commandWhere: 'local' });
    expect(runtime.detail).toContain('no NVIDIA runtime');
    expect(runtime.command).toContain('nvidia-ctk runtime configure --runtime=docker');

    const model = check(report, 'model-dir');
    expect(model).toMatchObject({ status: 'fail', commandWhere: 'local' });
    expect(model.detail).toContain(join(scratch, 'no-such-model'));

    expect(check(report, 'host-dirs')).toMatchObject({ status: 'warn', command: `mkdir -p '${join(scratch, 'new', 'log')}'` });

    const port = check(report, 'port');
    expect(port).toMatchObject({ status: 'fail', command: `ss -ltnp 'sport = :${takenPort}'` });
    expect(port.detail).toContain(`Port ${takenPort} is already in use`);

    expect(check(report, 'shm').status).toBe('warn');
    const image = check(report, 'image');
    expect(image.status).toBe('pass');
    expect(image.detail).toContain(`${tb.registry}/agentswarm-test/fake-swarm@sha256:`);
    expect(check(report, 'disk-space').status).toBe('pass');
    expect(check(report, 'native-ajet').status).toBe('skip');

    expect((await app.handlers['doctor:reports']({})).map((r) => r.profileId)).toContain('broken');
  });

  it('a model folder without config.json is a warning naming the folder', async () => {
    const report = await app.handlers['doctor:run']({ profileId: 'no-config' });
    const model = check(report, 'model-dir');
    expect(model.status).toBe('warn');
    expect(model.detail).toContain(`${noConfigDir} exists`);
    expect(model.detail).toContain('no config.json');
  });

  it('a missing image fails with Pull as the fix and the pull command, and says pullability is only known by pulling', async () => {
    const report = await app.handlers['doctor:run']({ profileId: 'missing-image' });
    const image = check(report, 'image');
    expect(image).toMatchObject({ status: 'fail', command: `docker pull ${tb.registry}/agentswarm-test/not-here:1`, commandWhere: 'local' });
    expect(image.fix).toContain('Pull');
    expect(image.detail).toContain('only known once a pull starts');
    expect(report.verdict).toBe('fail');
  });

  it('the passing shape: GPUs none → GPU checks skip, the image is present with its digest, every check passes or skips', async () => {
    const report = await app.handlers['doctor:run']({ profileId: 'healthy' });
    const notPassing = report.checks.filter((c) => c.status !== 'pass' && c.status !== 'skip');
    expect(notPassing).toEqual([]);
    expect(report.verdict).toBe('pass');
    expect(check(report, 'gpu-host')).toMatchObject({ status: 'skip', detail: 'The profile asks for no GPUs.' });
    expect(check(report, 'gpu-runtime').status).toBe('skip');
    expect(check(report, 'image').detail).toMatch(/@sha256:[0-9a-f]{64}/);
    expect(check(report, 'model-dir')).toMatchObject({ status: 'pass', fix: null, command: null });
    expect(check(report, 'host-dirs').status).toBe('pass');
    expect(check(report, 'port').detail).toBe(`Port ${freeOne} is free on this computer.`);
    expect(report.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('a port held by the profile\'s own running server is fine', async () => {
    const container = await docker.createContainer({
      name: `agentswarm-doctor-own-${ownPort}`,
      Image: tb.fakeSwarmImage,
      Cmd: ['ajet-swarm', 'start', '--swarm-port', String(ownPort)],
      Labels: { ...TEST_CONTAINER_LABELS, [LABEL_PROFILE]: 'own-port', [LABEL_PORT]: String(ownPort) },
      HostConfig: { NetworkMode: 'host', Init: true },
    });
    await container.start();
    await poll('the own server to listen', 20_000, () =>
      new Promise<true | undefined>((ok) => {
        const socket = net.connect(ownPort, '127.0.0.1', () => (socket.destroy(), ok(true)));
        socket.on('error', () => ok(undefined));
      }),
    );
    const report = await app.handlers['doctor:run']({ profileId: 'own-port' });
    expect(check(report, 'port')).toMatchObject({ status: 'pass' });
    expect(check(report, 'port').detail).toContain("held by this profile's own running server");
  });

  it("IPC host: judged by the size of this machine's /dev/shm, as df reports it", async () => {
    const report = await app.handlers['doctor:run']({ profileId: 'ipc' });
    const shm = check(report, 'shm');
    const sizeKib = Number(execFileSync('df', ['-Pk', '/dev/shm'], { encoding: 'utf8' }).trim().split('\n').slice(-1)[0]!.split(/\s+/)[1]);
    expect(shm.status).toBe(sizeKib * 1024 >= 16 * 1024 ** 3 ? 'pass' : 'warn');
    expect(shm.detail).toContain('/dev/shm');
  });

  it('native mode: ajet-swarm missing fails as not installed; the activate line is used; container checks skip', async () => {
    const missing = await app.handlers['doctor:run']({ profileId: 'native-missing' });
    const ajet = check(missing, 'native-ajet');
    expect(ajet.status).toBe('fail');
    expect(ajet.detail).toContain('ajet-swarm is not installed where the profile runs it');
    for (const id of ['image', 'gpu-runtime', 'disk-space', 'shm', 'engine-reachable'] as const) expect(check(missing, id).status).toBe('skip');

    const found = await app.handlers['doctor:run']({ profileId: 'native-found' });
    expect(check(found, 'native-ajet')).toMatchObject({ status: 'pass', detail: `ajet-swarm is at ${join(standInBin, 'ajet-swarm')} on this computer after the activate line.` });
  });

  it('an unknown profile is PROFILE_NOT_FOUND', async () => {
    await expect(app.handlers['doctor:run']({ profileId: 'nope' })).rejects.toMatchObject({ code: 'PROFILE_NOT_FOUND' });
  });
});

describe('preflight doctor over SSH (the test bed sshd)', () => {
  it('runs the host checks on the server and words commands for it', async () => {
    await connectTestbedServer(app);
    const report = await app.handlers['doctor:run']({ profileId: 'remote' });
    expect(report.engineId).toBe('ssh-testbed');
    expect(check(report, 'engine-reachable').status).toBe('pass');
    const gpuHost = check(report, 'gpu-host');
    expect(gpuHost).toMatchObject({ status: 'fail', commandWhere: 'server' });
    expect(gpuHost.detail).toContain(`testbed (${tb.ssh.user}@${tb.ssh.host}`);
    expect(check(report, 'gpu-runtime')).toMatchObject({ status: 'fail', commandWhere: 'server' });
    // `~/` is the test user's home on the server, not ours.
    expect(check(report, 'model-dir')).toMatchObject({ status: 'fail', command: `ls -ld "$HOME"/'no-such-model'`, commandWhere: 'server' });
    // The sshd runs on this machine, so our listener holds the port on the server too.
    expect(check(report, 'port')).toMatchObject({ status: 'fail', commandWhere: 'server' });
    expect(check(report, 'image').detail).toContain('@sha256:');
    expect(check(report, 'disk-space').status).toBe('pass');
  });

  it("native mode over SSH: finds the test user's ajet-swarm after the profile's activate line", async () => {
    const report = await app.handlers['doctor:run']({ profileId: 'remote-native' });
    expect(check(report, 'native-ajet')).toMatchObject({ status: 'pass', detail: `ajet-swarm is at ${tb.native.sshUserAjetSwarmPath} on testbed (${tb.ssh.user}@${tb.ssh.host}:${tb.ssh.port}) after the activate line.` });
    // The doctor runs the activate line the way Start does (bash), so a `source` line passes here as it starts there.
    const sourced = await app.handlers['doctor:run']({ profileId: 'remote-native-source' });
    expect(check(sourced, 'native-ajet')).toMatchObject({ status: 'pass' });
  });
});
