// The preflight doctor through the app's own handlers (contract-checked) on the test bed's REAL Podman 4.3:
// the rootful service on its private socket as the app's Local Podman engine, and the rootless user's service
// reached over the test bed's sshd as an SSH server whose engine is Podman ('user-socket'). No systemd here, so
// no logind: no lingering, XDG_RUNTIME_DIR unset over SSH; /dev/net/tun is 0600. Every check runs its real
// script through /bin/sh or an SSH exec channel. Needs `bash test/testbed/testbed.sh up`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileInput, type DoctorCheck, type DoctorCheckId, type DoctorReport, type ProfileInputRaw } from '../../electron/shared/schemas-profiles';
import { enginesUnderTest } from '../support/engines-under-test';
import { freePort, waitForEvent } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbedWithPodman } from '../testbed/testbed';

const tb = loadTestbedWithPodman();
if (typeof tb.podman.rootless?.user !== 'string') throw new Error('testbed.json has no rootless Podman user: re-run `bash test/testbed/testbed.sh up` from this checkout');
const rootless = tb.podman.rootless;
const engines = enginesUnderTest(tb);
const rootfulBed = engines.find((e) => e.name === 'Podman rootful')!;
const rootlessBed = engines.find((e) => e.name === 'Podman rootless over SSH')!;

let app: TestApp;
let rootfulId: string;
let rootlessId: string;
/** How the doctor names the rootless server: the SSH host's label. */
const server = `podman-rootless (${rootless.user}@${tb.ssh.host}:${tb.ssh.port})`;

beforeAll(async () => {
  app = await startTestApp(rootfulBed.appOptions());
  rootfulId = await rootfulBed.attach(app);
  rootlessId = await rootlessBed.attach(app);
});

afterAll(async () => {
  await app?.dispose();
});

async function run(engineId: string, input: Partial<ProfileInputRaw>): Promise<{ report: DoctorReport; check: (id: DoctorCheckId) => DoctorCheck }> {
  const view = await app.handlers['profiles:add'](
    ProfileInput.parse({ label: `doctor podman ${Math.random().toString(36).slice(2, 8)}`, engineId, image: tb.podman.image, port: await freePort(), ...input }),
  );
  const pushed = waitForEvent(app.hub, 'doctor:report', (r) => r.profileId === view.profile.id);
  const report = await app.handlers['doctor:run']({ profileId: view.profile.id });
  expect((await pushed).ranAt).toBe(report.ranAt);
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
    const { report, check } = await run(rootfulId, { gpus: { mode: 'all' }, networkMode: 'publish' });
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
    const { report, check } = await run(rootfulId, { gpus: { mode: 'none' }, shm: { mode: 'size', gb: 16 } });
    expect(check('podman-cdi')).toMatchObject({ status: 'skip', detail: 'The profile asks for no GPUs.' });
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    // Issue 32: against real Podman, every finding comes as data too (the renderer words it).
    expect(report.checks.filter((c) => !c.say).map((c) => c.id)).toEqual([]);
  });
});

describe('doctor on rootless Podman over SSH (the test bed user)', () => {
  it('adds the rootless checks, each naming the server: lingering and XDG_RUNTIME_DIR warn (no systemd), storage as the bed set it, publish fails on /dev/net/tun', async () => {
    const { report, check } = await run(rootlessId, { gpus: { mode: 'all' }, networkMode: 'publish' });
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
    const { check } = await run(rootlessId, { gpus: { mode: 'none' }, networkMode: 'host' });
    expect(check('podman-network')).toMatchObject({ status: 'pass', detail: 'The profile uses host networking: rootless Podman needs neither slirp4netns nor /dev/net/tun for it.' });
    expect(check('podman-cdi').status).toBe('skip');
  });
});
