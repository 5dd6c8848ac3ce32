// The preflight doctor on the test bed's REAL Podman 4.3: the rootful service on its private socket on this
// machine, and the rootless user's service reached over the test bed's sshd (no systemd here, so no logind:
// no lingering, XDG_RUNTIME_DIR unset over SSH; /dev/net/tun is 0600). Every check runs its real script
// through /bin/sh or an SSH exec channel. Needs `bash test/testbed/testbed.sh up`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReport, ProfileInput, type DoctorCheck, type DoctorCheckId, type ProfileInputRaw } from '../../electron/shared/schemas-profiles';
import type { ContainerEngine } from '../../electron/services/engines/container-engine';
import { EngineRegistry } from '../../electron/services/engines/engine-registry';
import { createLocalPodmanEngine, LOCAL_PODMAN_ENGINE_ID } from '../../electron/services/engines/podman';
import { createSshDockerEngine } from '../../electron/services/engines/ssh-docker';
import { DoctorService } from '../../electron/services/doctor/doctor-service';
import { ProfileStore } from '../../electron/services/profiles/profile-store';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { freePort } from '../support/helpers';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbedWithPodman } from '../testbed/testbed';

const tb = loadTestbedWithPodman();
if (typeof tb.podman.rootless?.user !== 'string') throw new Error('testbed.json has no rootless Podman user: re-run `bash test/testbed/testbed.sh up` from this checkout');
const rootless = tb.podman.rootless;

/**
 * The engines as the app builds them: Local Podman on the rootful socket, and a server over SSH whose engine
 * is Podman on the user's rootless socket (both detect Podman from its /version).
 */
function rootfulEngine(): ContainerEngine {
  return createLocalPodmanEngine(`unix://${tb.podman.rootful.socket}`);
}

function rootlessEngine(connection: SshConnection): ContainerEngine {
  return createSshDockerEngine({
    id: 'podman-rootless',
    label: 'podbox',
    connection,
    engine: 'podman',
    transport: { kind: 'socket', path: rootless.socket },
    urlForHostPort: (port) => Promise.resolve(`http://127.0.0.1:${port}`),
  });
}

let dataDir: string;
let store: ProfileStore;
let doctor: DoctorService;
let connection: SshConnection;
const engines = new EngineRegistry();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agentswarm-doctor-podman-'));
  store = new ProfileStore(dataDir);
  await store.load();
  connection = await connectToTestbed({ username: rootless.user }, tb);
  engines.add(rootfulEngine());
  engines.add(rootlessEngine(connection));
  doctor = new DoctorService({ engines, profiles: store, events: { emit: () => undefined } });
});

afterAll(async () => {
  doctor?.dispose();
  for (const id of [LOCAL_PODMAN_ENGINE_ID, 'podman-rootless']) await engines.get(id)?.dispose().catch(() => undefined);
  await connection?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function run(engineId: string, input: Partial<ProfileInputRaw>): Promise<{ report: DoctorReport; check: (id: DoctorCheckId) => DoctorCheck }> {
  const profile = await store.add(ProfileInput.parse({ label: `doctor podman ${Math.random().toString(36).slice(2, 8)}`, engineId, image: tb.podman.image, port: await freePort(), ...input }));
  // What the app's `doctor:run` channel would send: checked against the contract's schema.
  const report = DoctorReport.parse(await doctor.run(profile.id));
  const check = (id: DoctorCheckId): DoctorCheck => {
    const found = report.checks.find((c) => c.id === id);
    if (!found) throw new Error(`no ${id} check in the report: ${report.checks.map((c) => c.id).join(', ')}`);
    return found;
  };
  return { report, check };
}

/** GET a compat API path on a local unix socket as root (the rootless user's socket is 0600 and root may open it). */
function getJson(socketPath: string, path: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath, path }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve(JSON.parse(body) as Record<string, unknown>));
      })
      .on('error', reject);
  });
}

const CDI_GENERATE = 'sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml';

/** What this machine is, checked rather than assumed: the expectations below follow from it. */
function nvidiaCdiSpecOnThisMachine(): boolean {
  const hasCtk = (() => {
    try {
      execFileSync('sh', ['-c', 'command -v nvidia-ctk'], { stdio: 'pipe' });
      return true;
    } catch {
      return false;
    }
  })();
  const specs = ['/etc/cdi', '/var/run/cdi'].flatMap((dir) => (existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : []));
  return hasCtk || specs.some((file) => statSync(file).isFile() && readFileSync(file, 'utf8').includes('nvidia.com/gpu'));
}

describe('doctor on rootful Podman (the test bed service on this machine)', () => {
  it('lists the Podman checks, not Docker\'s: CDI fails with its command (no spec here), catatonit passes', async () => {
    expect(nvidiaCdiSpecOnThisMachine()).toBe(false);
    expect(existsSync('/usr/libexec/podman/catatonit')).toBe(true);
    const { report, check } = await run(LOCAL_PODMAN_ENGINE_ID, { gpus: { mode: 'all' }, networkMode: 'publish' });
    expect(report.checks.map((c) => c.id)).toEqual(['engine-reachable', 'socket-permission', 'gpu-host', 'podman-cdi', 'disk-space', 'image', 'model-dir', 'host-dirs', 'port', 'shm', 'podman-init', 'native-ajet']);
    expect(check('engine-reachable').detail).toContain(`Podman ${tb.podman.version}`);

    const cdi = check('podman-cdi');
    expect(cdi).toMatchObject({ status: 'fail', command: CDI_GENERATE, commandWhere: 'local' });
    expect(cdi.detail).toContain('Podman gives GPUs to containers only through CDI, and this computer has no CDI spec for NVIDIA GPUs');
    expect(cdi.fix).toContain('1.12 or newer');
    // Docker's advice (NVIDIA runtime, `--runtime=docker`) appears nowhere in a Podman report.
    expect(JSON.stringify(report)).not.toMatch(/runtime configure|--runtime=docker|docker group|usermod/);

    const init = check('podman-init');
    expect(init.status).toBe('pass');
    expect(init.detail).toBe("catatonit is at /usr/libexec/podman/catatonit on this computer: Podman runs it as the swarm server's init, so Stop takes milliseconds.");
    expect(check('image').detail).toContain(tb.podman.image.split(':')[0]!);
    expect(report.verdict).toBe('fail');
  });

  it('GPUs "none": the CDI check skips, and the report passes or warns only', async () => {
    const { report, check } = await run(LOCAL_PODMAN_ENGINE_ID, { gpus: { mode: 'none' }, shm: { mode: 'size', gb: 16 } });
    expect(check('podman-cdi')).toMatchObject({ status: 'skip', detail: 'The profile asks for no GPUs.' });
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
  });
});

describe('doctor on rootless Podman over SSH (the test bed user)', () => {
  it('adds the rootless checks, each naming the server: lingering and XDG_RUNTIME_DIR warn (no systemd), storage as the bed set it, publish fails on /dev/net/tun', async () => {
    const server = `podbox (${connection.target})`;
    const { report, check } = await run('podman-rootless', { gpus: { mode: 'all' }, networkMode: 'publish' });
    expect(report.checks.map((c) => c.id)).toEqual([
      'engine-reachable', 'socket-permission', 'gpu-host', 'podman-cdi', 'disk-space', 'image', 'model-dir', 'host-dirs', 'port', 'shm',
      'podman-init', 'podman-linger', 'podman-runtime-dir', 'podman-storage', 'podman-network', 'native-ajet',
    ]);
    expect(check('engine-reachable').status).toBe('pass');
    expect(check('podman-cdi')).toMatchObject({ status: 'fail', command: CDI_GENERATE, commandWhere: 'server' });
    expect(check('podman-cdi').detail).toContain(`and ${server} has no CDI spec`);
    expect(check('podman-init')).toMatchObject({ status: 'pass', detail: `catatonit is at /usr/libexec/podman/catatonit on ${server}: Podman runs it as the swarm server's init, so Stop takes milliseconds.` });

    const linger = check('podman-linger');
    expect(linger).toMatchObject({ status: 'warn', command: null });
    expect(linger.detail).toContain(`loginctl does not work on ${server} ("System has not been booted with systemd`);
    expect(linger.detail).toContain(`may stop when ${rootless.user} logs out`);
    expect(linger.fix).toContain(`sudo loginctl enable-linger '${rootless.user}'`);

    const runtimeDir = check('podman-runtime-dir');
    expect(runtimeDir.status).toBe('warn');
    expect(runtimeDir.detail).toContain(`XDG_RUNTIME_DIR is not set in the app's SSH session on ${server}`);
    // The bed made /run/user/<uid> by hand for the user: the app's fallback is there.
    expect(statSync(rootless.runtimeDir).uid).toBe(rootless.uid);
    expect(runtimeDir.detail).toContain(`Podman and the app use ${rootless.runtimeDir} when it belongs to ${rootless.user}, and it does`);
    expect(runtimeDir.fix).toContain(`XDG_RUNTIME_DIR=${rootless.runtimeDir}`);

    // The driver the user's service really uses, asked of the service itself (compat /info).
    const driver = (await getJson(rootless.socket, '/info')).Driver;
    expect(typeof driver).toBe('string');
    const storage = check('podman-storage');
    if (driver === 'vfs') {
      expect(storage.status).toBe('warn');
      expect(storage.fix).toContain('podman system reset deletes ALL');
    } else {
      expect(storage).toMatchObject({ status: 'pass', detail: `Rootless Podman on ${server} stores images with the ${String(driver)} driver.` });
    }

    // /dev/net/tun is 0600 root here: the user cannot open it.
    expect(statSync('/dev/net/tun').mode & 0o006).toBe(0);
    const network = check('podman-network');
    expect(network).toMatchObject({ status: 'fail', command: 'sudo chmod 0666 /dev/net/tun', commandWhere: 'server' });
    expect(network.detail).toContain(`/dev/net/tun on ${server} cannot be opened by this user (crw-------)`);
    expect(network.detail).toContain('slirp4netns');
    expect(network.fix).toContain('switch the profile\'s network to "host"');
    expect(network.fix).toContain("on the server's loopback, through its SSH tunnel");
    expect(network.fix).toContain('all interfaces (0.0.0.0)');
  });

  it('host networking: the network check passes (no slirp4netns, no /dev/net/tun needed)', async () => {
    const { check } = await run('podman-rootless', { gpus: { mode: 'none' }, networkMode: 'host' });
    expect(check('podman-network')).toMatchObject({ status: 'pass', detail: 'The profile uses host networking: rootless Podman needs neither slirp4netns nor /dev/net/tun for it.' });
    expect(check('podman-cdi').status).toBe('skip');
  });
});
