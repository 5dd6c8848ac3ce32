import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineHealth, EngineKind } from '../../../../electron/shared/schemas';
import { ProfileInput, type DoctorCheckId, type DoctorReport, type ProfileInputRaw } from '../../../../electron/shared/schemas-profiles';
import type { ContainerEngine, EngineHost, EngineInfo, HostExecResult } from '../../../../electron/services/engines/container-engine';
import { EngineRegistry } from '../../../../electron/services/engines/engine-registry';
import { LOCAL_DOCKER_WORDING } from '../../../../electron/services/engines/local-docker';
import { DoctorService } from '../../../../electron/services/doctor/doctor-service';
import { CDI_KIND_PATTERN, CDI_SCAN_SCRIPT, INIT_SCAN_SCRIPT } from '../../../../electron/services/doctor/podman-checks';
import { LINGER_SCRIPT, NETWORK_SCRIPT, SESSION_SCRIPT, STORAGE_SCRIPT } from '../../../../electron/services/doctor/podman-rootless-checks';
import { ProfileStore } from '../../../../electron/services/profiles/profile-store';
import { expectWorded } from './doctor-words';

const INFO: EngineInfo = {
  operatingSystem: 'Red Hat Enterprise Linux 9.4 (Plow)',
  osType: 'linux',
  serverVersion: '4.9.4',
  rootDir: '/home/alice/.local/share/containers/storage',
  runtimes: ['crun', 'runc'],
  defaultRuntime: 'crun',
  cdiDevices: [],
  rootless: true,
};

const PODMAN_WORDING = { ...LOCAL_DOCKER_WORDING, product: 'Podman', permissionDenied: () => 'Use your own rootless Podman instead of the rootful socket.' };

type Scripts = Partial<Record<'cdi' | 'init' | 'linger' | 'session' | 'storage' | 'network' | 'id' | 'other', string | ((script: string) => HostExecResult | Promise<HostExecResult>)>>;

const SCRIPT_NAMES: [string, keyof Scripts][] = [
  [CDI_SCAN_SCRIPT, 'cdi'],
  [INIT_SCAN_SCRIPT, 'init'],
  [LINGER_SCRIPT, 'linger'],
  [SESSION_SCRIPT, 'session'],
  [STORAGE_SCRIPT, 'storage'],
  [NETWORK_SCRIPT, 'network'],
  ['id -u', 'id'],
];

/**
 * TEST DOUBLE: a Podman engine and a host answering each check's script with what a server in the
 * case at hand prints (GPU servers, systemd, CDI specs: states this machine is not in). The scripts
 * themselves run against real Podman, sshd and sh in test/integration/doctor-podman.spec.ts.
 */
function fakePodman(options: { kind?: EngineKind; health?: Partial<EngineHealth>; info?: Partial<EngineInfo>; scripts?: Scripts; host?: 'ssh' | 'local' | null }): ContainerEngine & { ran: string[] } {
  const ran: string[] = [];
  const answer = async (script: string): Promise<HostExecResult> => {
    const name = SCRIPT_NAMES.find(([s]) => s === script)?.[1] ?? 'other';
    ran.push(name);
    const given = options.scripts?.[name];
    if (typeof given === 'function') return given(script);
    return { code: 0, stdout: given ?? '', stderr: '' };
  };
  const kind = options.host === undefined ? 'ssh' : options.host;
  const host: EngineHost | null = kind === null ? null : { kind, label: kind === 'ssh' ? 'gpu-1 (alice@10.0.0.5)' : 'this computer', exec: (script) => answer(script) };
  const health: EngineHealth = { id: 'e', reachable: true, version: '4.9.4', apiVersion: '1.41', product: 'podman', rootless: true, error: null, ...options.health };
  return {
    ran,
    summary: { id: 'e', kind: options.kind ?? 'podman', label: 'gpu-1', endpoint: 'ssh://alice@10.0.0.5/run/user/1001/podman/podman.sock' },
    wording: PODMAN_WORDING,
    host,
    health: async () => health,
    info: async () => ({ ...INFO, ...options.info }),
    inspectImage: async () => ({ id: 'sha256:1', repoDigests: ['ghcr.io/modelscope/agentjet@sha256:abc'], sizeBytes: 20e9 }),
    listContainers: async () => [],
    isHostPortFree: async () => true,
    dispose: async () => undefined,
  } as unknown as ContainerEngine & { ran: string[] };
}

let dataDir: string;
let store: ProfileStore;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'doctor-podman-unit-'));
  store = new ProfileStore(dataDir);
  await store.load();
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

let nextPort = 20_000;

async function runWith(engine: ContainerEngine, input: Partial<ProfileInputRaw> = {}, checkTimeoutMs = 5_000) {
  const engines = new EngineRegistry();
  engines.add(engine);
  const profile = await store.add(ProfileInput.parse({ label: `p ${Math.random().toString(36).slice(2, 8)}`, engineId: 'e', image: 'ghcr.io/modelscope/agentjet:main', port: nextPort++, ...input }));
  const doctor = new DoctorService({ engines, profiles: store, events: { emit: () => undefined }, checkTimeoutMs });
  const report: DoctorReport = await doctor.run(profile.id);
  const of = (id: DoctorCheckId) => {
    const found = report.checks.find((c) => c.id === id);
    if (!found) throw new Error(`no ${id} in ${report.checks.map((c) => c.id).join(', ')}`);
    return found;
  };
  return { report, ids: report.checks.map((c) => c.id), of };
}

const COMMON_HEAD = ['engine-reachable', 'socket-permission'];
const ROOTFUL_PODMAN = [...COMMON_HEAD, 'gpu-host', 'podman-cdi', 'disk-space', 'image', 'model-dir', 'host-dirs', 'port', 'shm', 'podman-init', 'native-ajet'];
const ROOTLESS_PODMAN = [...COMMON_HEAD, 'gpu-host', 'podman-cdi', 'disk-space', 'image', 'model-dir', 'host-dirs', 'port', 'shm', 'podman-init', 'podman-linger', 'podman-runtime-dir', 'podman-storage', 'podman-network', 'native-ajet'];
const DOCKER = [...COMMON_HEAD, 'docker-desktop-vm', 'gpu-host', 'gpu-runtime', 'disk-space', 'image', 'model-dir', 'host-dirs', 'port', 'shm', 'native-ajet'];

describe('which checks a report lists', () => {
  it('Docker: the twelve checks as before, none of Podman\'s (and its host is not asked whether it is rootless)', async () => {
    const docker = fakePodman({ kind: 'ssh-docker', health: { product: 'docker', rootless: null } });
    const { ids } = await runWith(docker);
    expect(ids).toEqual(DOCKER);
    expect(docker.ran).not.toContain('id');
    // An engine from before `product` existed: its kind says Docker.
    expect((await runWith(fakePodman({ kind: 'local-docker', health: { product: undefined, rootless: undefined } }))).ids).toEqual(DOCKER);
  });

  it("rootful Podman: CDI instead of Docker's NVIDIA runtime, no Docker Desktop row, the init check, no rootless rows", async () => {
    expect((await runWith(fakePodman({ health: { rootless: false } }))).ids).toEqual(ROOTFUL_PODMAN);
  });

  it('rootless Podman: the four rootless checks too', async () => {
    expect((await runWith(fakePodman({}))).ids).toEqual(ROOTLESS_PODMAN);
  });

  it('a server added as Docker that answers as Podman gets the Podman checks', async () => {
    expect((await runWith(fakePodman({ kind: 'ssh-docker', health: { product: 'podman', rootless: true } }))).ids).toEqual(ROOTLESS_PODMAN);
  });

  it("rootlessness unknown to the engine (older engine code): info's yes, else the host user (not root → rootless)", async () => {
    expect((await runWith(fakePodman({ health: { rootless: undefined }, info: { rootless: true } }))).ids).toEqual(ROOTLESS_PODMAN);
    // Podman 4.3's compat /info never says rootless: its no is not believed, the host user is asked.
    expect((await runWith(fakePodman({ health: { rootless: undefined }, info: { rootless: false }, scripts: { id: '0\n' } }))).ids).toEqual(ROOTFUL_PODMAN);
    expect((await runWith(fakePodman({ health: { rootless: undefined }, info: { rootless: false }, scripts: { id: '1001\n' } }))).ids).toEqual(ROOTLESS_PODMAN);
    const down = fakePodman({ health: { reachable: false, rootless: undefined, product: undefined, version: null, error: { code: 'ENGINE_UNREACHABLE', message: 'Cannot reach Podman.' } }, scripts: { id: '1001\n' } });
    const { ids, of } = await runWith(down);
    expect(ids).toEqual(ROOTLESS_PODMAN);
    expect(of('engine-reachable').status).toBe('fail');
    expect((await runWith(fakePodman({ health: { reachable: false, rootless: undefined, product: undefined, error: { code: 'ENGINE_UNREACHABLE', message: 'x' } }, scripts: { id: '0\n' } }))).ids).toEqual(ROOTFUL_PODMAN);
  });

  it('native mode on Podman: no container, so neither the Podman nor the Docker-only rows', async () => {
    expect((await runWith(fakePodman({}), { mode: 'native' })).ids).toEqual([...COMMON_HEAD, 'gpu-host', 'disk-space', 'image', 'model-dir', 'host-dirs', 'port', 'shm', 'native-ajet']);
  });

  it('an engine that hangs when asked: its kind decides within the limit, and every check still ends', async () => {
    const hung = fakePodman({});
    (hung as { health: unknown }).health = () => new Promise(() => undefined);
    const started = Date.now();
    const { ids, of } = await runWith(hung, {}, 300);
    expect(Date.now() - started).toBeLessThan(3_000);
    // Rootlessness unknown: the rootless rows stay, each able to say what it found.
    expect(ids).toEqual(ROOTLESS_PODMAN);
    expect(of('engine-reachable').detail).toContain('did not finish');
  });

  it("permission denied on Podman: the engine's own advice, no Docker group command", async () => {
    const denied = fakePodman({ health: { reachable: false, error: { code: 'ENGINE_PERMISSION_DENIED', message: 'Permission denied on /run/podman/podman.sock.' } } });
    expect((await runWith(denied)).of('socket-permission')).toMatchObject({ status: 'fail', fix: 'Use your own rootless Podman instead of the rootful socket.', command: null });
  });
});

describe('GPUs through CDI', () => {
  it('devices the engine reports pass without asking the host', async () => {
    const engine = fakePodman({ info: { cdiDevices: ['nvidia.com/gpu=0', 'nvidia.com/gpu=all'] } });
    expect((await runWith(engine)).of('podman-cdi')).toMatchObject({ status: 'pass' });
    expect(engine.ran).not.toContain('cdi');
  });

  it('nvidia-ctk cdi list: passes naming the devices; an id the spec lacks fails', async () => {
    const cdi = '#ctk-version NVIDIA Container Toolkit CLI version 1.14.3\n#ctk-list\nnvidia.com/gpu=0\nnvidia.com/gpu=1\nnvidia.com/gpu=all\n#ctk-end\n#spec /etc/cdi/nvidia.yaml\n';
    expect((await runWith(fakePodman({ scripts: { cdi } }))).of('podman-cdi').detail).toContain('nvidia.com/gpu=0, nvidia.com/gpu=1, nvidia.com/gpu=all');
    const missing = (await runWith(fakePodman({ scripts: { cdi } }), { gpus: { mode: 'ids', ids: ['1', '3'] } })).of('podman-cdi');
    expect(missing).toMatchObject({ status: 'fail', command: 'sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml' });
    expect(missing.detail).toContain('GPU 3');
  });

  it('a spec file without nvidia-ctk passes', async () => {
    expect((await runWith(fakePodman({ scripts: { cdi: '#spec /var/run/cdi/nvidia.json\n' } }))).of('podman-cdi')).toMatchObject({ status: 'pass' });
  });

  it('no spec: fails, says Podman takes GPUs only through CDI, names the server and gives the generate command', async () => {
    const none = (await runWith(fakePodman({ scripts: { cdi: '' } }))).of('podman-cdi');
    expect(none).toMatchObject({ status: 'fail', command: 'sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml', commandWhere: 'server' });
    expect(none.detail).toBe(
      'Podman gives GPUs to containers only through CDI, and gpu-1 (alice@10.0.0.5) has no CDI spec for NVIDIA GPUs (nvidia-ctk is not installed there, and no file in /etc/cdi or /var/run/cdi names nvidia.com/gpu). Started anyway, the swarm server would get no GPU.',
    );
    expect(none.fix).toContain('Install the NVIDIA Container Toolkit (1.12 or newer');
    const old = (await runWith(fakePodman({ scripts: { cdi: '#ctk-version NVIDIA Container Toolkit CLI version 1.10.0\n#ctk-list\nUsage: nvidia-ctk ...\n#ctk-end\n' } }))).of('podman-cdi');
    expect(old.fix).toContain('nvidia-ctk 1.10.0 cannot generate CDI specs');
  });

  it('GPUs "none": skipped', async () => {
    expect((await runWith(fakePodman({}), { gpus: { mode: 'none' } })).of('podman-cdi').status).toBe('skip');
  });

  it("the spec-file pattern matches YAML and one-line JSON specs of kind nvidia.com/gpu, nothing else (real grep)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'doctor-cdi-'));
    try {
      const files: Record<string, string> = {
        'yaml.yaml': 'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: "0"\n',
        'quoted.yaml': "cdiVersion: '0.5.0'\nkind: 'nvidia.com/gpu'\n",
        'json.json': '{"cdiVersion":"0.5.0","kind":"nvidia.com/gpu","devices":[{"name":"0"}]}',
        'other.yaml': 'cdiVersion: 0.5.0\nkind: vendor.com/fpga\n',
        'gpus.yaml': 'kind: nvidia.com/gpus-extra\n',
      };
      const matched = Object.entries(files).filter(([name, text]) => {
        writeFileSync(join(dir, name), text);
        try {
          execFileSync('grep', ['-Eq', CDI_KIND_PATTERN, join(dir, name)]);
          return true;
        } catch {
          return false;
        }
      });
      expect(matched.map(([name]) => name)).toEqual(['yaml.yaml', 'quoted.yaml', 'json.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('init (catatonit)', () => {
  it("catatonit in Podman's own place passes", async () => {
    expect((await runWith(fakePodman({ scripts: { init: '#libexec yes\n#other /usr/bin/catatonit\n#pm apt-get\n' } }))).of('podman-init')).toMatchObject({ status: 'pass' });
  });

  it('none: fails saying why the app wants an init, with the install command of the host\'s package manager and the init_path way', async () => {
    const init = (await runWith(fakePodman({ scripts: { init: '#libexec no\n#pm dnf\n' } }))).of('podman-init');
    expect(init).toMatchObject({ status: 'fail', command: 'sudo dnf install catatonit', commandWhere: 'server' });
    expect(init.detail).toContain('Stop ends it in milliseconds');
    expect(init.fix).toContain('init_path');
    expect((await runWith(fakePodman({ scripts: { init: '#libexec no\n' } }))).of('podman-init')).toMatchObject({ command: 'sudo apt-get install catatonit' });
  });

  it('only /usr/bin/catatonit on Podman 4.3: fails (measured) and writes init_path into the user\'s containers.conf', async () => {
    const init = (await runWith(fakePodman({ health: { version: '4.3.1' }, scripts: { init: '#libexec no\n#other /usr/bin/catatonit\n' } }))).of('podman-init');
    expect(init.status).toBe('fail');
    expect(init.command).toBe(`mkdir -p "$HOME"/.config/containers && printf '[containers]\\ninit_path = "%s"\\n' '/usr/bin/catatonit' > "$HOME"/.config/containers/containers.conf`);
    // Newer Podman searches further: a warning, and an existing file is edited by hand.
    const newer = (await runWith(fakePodman({ health: { version: '5.2.0' }, scripts: { init: '#libexec no\n#other /usr/bin/catatonit\n#user-conf\n' } }))).of('podman-init');
    expect(newer).toMatchObject({ status: 'warn', command: null });
    expect(newer.fix).toContain('add the line under [containers]');
  });

  it('an init_path that points nowhere fails, naming the file', async () => {
    const scripts: Scripts = { init: '#conf /etc/containers/containers.conf\n[containers]\ninit_path = "/usr/bin/tini-static"\n#conf-end\n#libexec yes\n', other: '' };
    const init = (await runWith(fakePodman({ scripts }))).of('podman-init');
    expect(init.status).toBe('fail');
    expect(init.detail).toContain('init_path in /etc/containers/containers.conf on gpu-1 (alice@10.0.0.5) names /usr/bin/tini-static');
    const there = (await runWith(fakePodman({ scripts: { ...scripts, other: '#init-ok\n' } }))).of('podman-init');
    expect(there).toMatchObject({ status: 'pass' });
  });
});

describe('rootless specifics', () => {
  it('lingering: on passes; off warns with enable-linger for the user, quoted; no systemd warns that the service may stop at logout', async () => {
    expect((await runWith(fakePodman({ scripts: { linger: '#user alice\n#rc 0\nLinger=yes\n' } }))).of('podman-linger').status).toBe('pass');
    expect((await runWith(fakePodman({ scripts: { linger: "#user o'neil\n#rc 0\nLinger=no\n" } }))).of('podman-linger')).toMatchObject({ status: 'warn', command: `sudo loginctl enable-linger 'o'"'"'neil'` });
    const none = (await runWith(fakePodman({ scripts: { linger: "#user alice\n#rc 1\nSystem has not been booted with systemd as init system (PID 1). Can't operate.\nFailed to connect to bus: Host is down\n" } }))).of('podman-linger');
    expect(none).toMatchObject({ status: 'warn', command: null });
    expect(none.detail).toContain('loginctl does not work on gpu-1 (alice@10.0.0.5)');
    expect(none.detail).toContain('may stop when alice logs out');
    expect(none.fix).toContain('sudo loginctl enable-linger');
  });

  it('XDG_RUNTIME_DIR: set passes; unset over SSH warns with the fallback the app uses and how to make it', async () => {
    expect((await runWith(fakePodman({ scripts: { session: '#user alice\n#uid 1001\n#xdg /run/user/1001\n#fallback owned\n' } }))).of('podman-runtime-dir').status).toBe('pass');
    const unset = (await runWith(fakePodman({ scripts: { session: '#user alice\n#uid 1001\n#fallback missing\n' } }))).of('podman-runtime-dir');
    expect(unset).toMatchObject({ status: 'warn', command: "sudo install -d -m 0700 -o 'alice' '/run/user/1001'", commandWhere: 'server' });
    expect(unset.detail).toContain("XDG_RUNTIME_DIR is not set in the app's SSH session on gpu-1 (alice@10.0.0.5)");
    expect(unset.detail).toContain('/run/user/1001');
    const owned = (await runWith(fakePodman({ scripts: { session: '#user alice\n#uid 1001\n#fallback owned\n' } }))).of('podman-runtime-dir');
    expect(owned).toMatchObject({ status: 'warn', command: null });
    expect(owned.detail).toContain('Podman and the app use /run/user/1001 when it belongs to alice, and it does');
  });

  it('storage: overlay passes; vfs warns that it is slow and that podman system reset deletes the images', async () => {
    expect((await runWith(fakePodman({ scripts: { storage: 'overlay\n#rc 0\n' } }))).of('podman-storage')).toMatchObject({ status: 'pass' });
    const vfs = (await runWith(fakePodman({ scripts: { storage: 'vfs\n#rc 0\n' } }))).of('podman-storage');
    expect(vfs.status).toBe('warn');
    expect(vfs.detail).toContain('vfs copies every layer: pulls and starts are slow and use much more disk');
    expect(vfs.fix).toContain('Read before running: podman system reset deletes ALL');
    expect(vfs.command).toContain('driver = "overlay"');
    expect(vfs.command).toContain('podman system reset');
    expect((await runWith(fakePodman({ scripts: { storage: 'vfs\n#rc 0\n#storage-conf\n' } }))).of('podman-storage').command).toBe('podman system reset');
    expect((await runWith(fakePodman({ scripts: { storage: 'sh: 1: podman: not found\n#rc 127\n' } }))).of('podman-storage')).toMatchObject({ status: 'warn' });
  });

  it('publish networking: /dev/net/tun unusable fails with the host-networking fallback, worded honestly; host mode passes', async () => {
    const denied = (await runWith(fakePodman({ scripts: { network: '#tool slirp4netns /usr/bin/slirp4netns\n#tun-mode crw-------\n#tun denied\n#pm apt-get\n' } }), { networkMode: 'publish' })).of('podman-network');
    expect(denied).toMatchObject({ status: 'fail', command: 'sudo chmod 0666 /dev/net/tun' });
    expect(denied.detail).toContain('/dev/net/tun on gpu-1 (alice@10.0.0.5) cannot be opened by this user (crw-------)');
    expect(denied.fix).toContain('switch the profile\'s network to "host"');
    expect(denied.fix).toContain('through its SSH tunnel');
    expect(denied.fix).toContain('0.0.0.0');
    const noTools = (await runWith(fakePodman({ scripts: { network: '#tun ok\n#pm dnf\n' } }), { networkMode: 'publish' })).of('podman-network');
    expect(noTools).toMatchObject({ status: 'fail', command: 'sudo dnf install slirp4netns' });
    expect((await runWith(fakePodman({ scripts: { network: '#tool pasta /usr/bin/pasta\n#tun ok\n' } }), { networkMode: 'publish' })).of('podman-network').status).toBe('pass');
    expect((await runWith(fakePodman({}), { networkMode: 'host' })).of('podman-network').status).toBe('pass');
  });
});

describe('every Podman finding as data, with words in en and zh-CN (issue 32)', () => {
  it('the problems of a badly set up rootless server, the engine down or refusing, and the passes of a good one', async () => {
    const bad = fakePodman({
      info: { cdiDevices: [] },
      scripts: {
        cdi: '',
        init: '#libexec no\n#pm apt-get\n',
        linger: '#user alice\n#rc 0\nLinger=no\n',
        session: '#user alice\n#uid 1001\n#fallback missing\n',
        storage: 'vfs\n#rc 0\n',
        network: '#tool slirp4netns /usr/bin/slirp4netns\n#tun missing\n',
      },
    });
    const badReport = await runWith(bad, { gpus: { mode: 'all' }, networkMode: 'publish' });
    for (const id of ['podman-cdi', 'podman-init', 'podman-linger', 'podman-runtime-dir', 'podman-storage', 'podman-network'] as const) {
      expect(badReport.of(id).status, id).not.toBe('pass');
      expectWorded(badReport.of(id));
    }
    expect(badReport.of('podman-cdi').say).toEqual({ key: 'cdiNoSpecNoToolkit', params: { host: 'gpu-1 (alice@10.0.0.5)', version: '', min: '1.12' } });
    expect(badReport.of('podman-runtime-dir').say).toEqual({ key: 'runtimeDirMissing', params: { user: 'alice', dir: '/run/user/1001', host: 'gpu-1 (alice@10.0.0.5)', uid: 1001 } });

    const good = fakePodman({
      info: { cdiDevices: ['nvidia.com/gpu=0', 'nvidia.com/gpu=all'] },
      scripts: {
        init: '#libexec yes\n',
        linger: '#user alice\n#rc 0\nLinger=yes\n',
        session: '#user alice\n#uid 1001\n#xdg /run/user/1001\n#fallback owned\n',
        storage: 'overlay\n#rc 0\n',
        network: '#tool pasta /usr/bin/pasta\n#tun ok\n',
      },
    });
    const goodReport = await runWith(good, { gpus: { mode: 'all' }, networkMode: 'publish' });
    for (const id of ['engine-reachable', 'socket-permission', 'podman-cdi', 'podman-init', 'podman-linger', 'podman-runtime-dir', 'podman-storage', 'podman-network'] as const) {
      expect(goodReport.of(id).status, id).toBe('pass');
      expectWorded(goodReport.of(id));
    }

    const downOnServer = await runWith(fakePodman({ health: { reachable: false, error: { code: 'ENGINE_UNREACHABLE', message: 'Cannot reach Podman.' } } }));
    expectWorded(downOnServer.of('engine-reachable'));
    expect(downOnServer.of('engine-reachable').say).toEqual({ key: 'unreachablePodmanServer', params: { product: 'Podman', endpoint: 'ssh://alice@10.0.0.5/run/user/1001/podman/podman.sock', host: 'gpu-1 (alice@10.0.0.5)' } });
    const downHere = await runWith(fakePodman({ host: 'local', health: { reachable: false, rootless: false, error: { code: 'ENGINE_UNREACHABLE', message: 'Cannot reach Podman.' } } }));
    expect(downHere.of('engine-reachable').say?.key).toBe('unreachablePodmanLocalRootful');
    // '' is this computer: the renderer names it in the user's language.
    expect(downHere.of('engine-reachable').say?.params.host).toBe('');
    const dockerDown = await runWith(fakePodman({ kind: 'ssh-docker', health: { reachable: false, product: 'docker', rootless: null, error: { code: 'ENGINE_UNREACHABLE', message: 'Cannot reach Docker.' } } }));
    expect(dockerDown.of('engine-reachable').say?.key).toBe('unreachableDockerServer');
    const denied = await runWith(fakePodman({ health: { reachable: false, error: { code: 'ENGINE_PERMISSION_DENIED', message: 'Permission denied on /run/podman/podman.sock.' } } }));
    expectWorded(denied.of('socket-permission'));
    expect(denied.of('socket-permission').say?.key).toBe('deniedPodmanServer');
  });

  it('a check that hangs says so as data too', async () => {
    const hung = fakePodman({});
    (hung as { health: unknown }).health = () => new Promise(() => undefined);
    const { of } = await runWith(hung, {}, 300);
    expect(of('engine-reachable').say).toEqual({ key: 'timedOut', params: { seconds: 0 } });
    expectWorded(of('engine-reachable'));
  });
});
