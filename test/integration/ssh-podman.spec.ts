// Rootless Podman over SSH against the test bed: its real sshd (127.0.0.1:2222) and the rootless Podman 4.3
// service of its Podman user (no logind: XDG_RUNTIME_DIR unset over SSH, /run/user/<uid> made by hand).
// The user socket is found on the server; a user without a running service is told how to start it; a server
// set up as Docker whose socket is Podman's is reported as Podman. Needs `bash test/testbed/testbed.sh up`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerSpec } from '../../electron/services/engines/container-engine';
import { findUserPodmanSocket } from '../../electron/services/engines/podman-socket';
import { createSshDockerEngine } from '../../electron/services/engines/ssh-docker';
import type { DockerApiEngine } from '../../electron/services/engines/docker-api-engine';
import { runDiagnostics, type DiagnosticsOptions } from '../../electron/services/ssh/connection-diagnostics';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { ServerProfileInput, engineIdOfServer } from '../../electron/shared/schemas-servers';
import { loadTestbedWithPodman } from '../testbed/testbed';
import { freePort, poll } from '../support/helpers';
import { removeTestContainers, startTestApp, TEST_CONTAINER_LABELS } from '../support/test-app';
import { connectToTestbed } from '../support/testbed-ssh';

const tb = loadTestbedWithPodman();
const podUser = tb.podman.rootless.user;
const CASE = 'agentswarm.test.case';
const connections: SshConnection[] = [];
const engines: DockerApiEngine[] = [];
let pod: SshConnection;

async function connectAs(username: string): Promise<SshConnection> {
  const connection = await connectToTestbed({ username }, tb);
  connections.push(connection);
  return connection;
}

function sshEngine(connection: SshConnection, options: Pick<Parameters<typeof createSshDockerEngine>[0], 'engine' | 'transport'>): DockerApiEngine {
  const engine = createSshDockerEngine({
    id: 'ssh-testbed-podman',
    label: 'testbed',
    connection,
    ...options,
    // The test bed's sshd runs on this machine: the server's loopback is ours.
    urlForHostPort: (port) => Promise.resolve(`http://127.0.0.1:${port}`),
  });
  engines.push(engine);
  return engine;
}

/** The fake swarm with `labels` (always TEST_CONTAINER_LABELS, so the cleanup finds it) and this suite's label. */
function fakeSwarm(labels: Record<string, string>, port: number): ContainerSpec {
  return {
    name: `agentswarm-ssh-podman-${port}`,
    image: tb.podman.image,
    cmd: ['ajet-swarm', 'start', '--swarm-port', String(port)],
    env: {},
    labels: { ...labels, [CASE]: 'ssh-podman' },
    network: { mode: 'host' },
    init: true,
    gpus: { mode: 'none' },
    shm: { mode: 'size', bytes: 64 * 1024 * 1024 },
    binds: [],
  };
}

beforeAll(async () => {
  pod = await connectAs(podUser);
});

afterEach(async () => {
  await removeTestContainers();
});

afterAll(async () => {
  await Promise.all(engines.map((e) => e.dispose()));
  await Promise.all(connections.map((c) => c.close()));
});

describe('the user socket of rootless Podman over SSH', () => {
  it('is found on the server although XDG_RUNTIME_DIR is unset over SSH', async () => {
    expect((await pod.exec('echo "[$XDG_RUNTIME_DIR]"')).stdout.trim()).toBe('[]');
    expect(await findUserPodmanSocket(pod)).toEqual({ found: true, path: tb.podman.rootless.socket });
  });

  it('gives an engine that says Podman, rootless, and runs, logs, stops and removes the fake swarm', async () => {
    const engine = sshEngine(pod, { engine: 'podman', transport: { kind: 'user-socket' } });
    expect(engine.summary).toEqual({
      id: 'ssh-testbed-podman',
      kind: 'podman',
      label: 'testbed',
      endpoint: `ssh://${podUser}@${tb.ssh.host}:${tb.ssh.port} (${podUser}'s rootless Podman socket)`,
    });
    expect(await engine.health()).toEqual({ id: 'ssh-testbed-podman', reachable: true, version: tb.podman.version, apiVersion: '1.41', product: 'podman', rootless: true, gpus: { runtime: false, devices: null }, error: null });
    expect((await engine.info()).rootless).toBe(true);

    const port = await freePort();
    const events: string[] = [];
    const unwatch = engine.watchEvents({ [CASE]: 'ssh-podman' }, (e) => events.push(e.action));
    try {
      const id = await engine.createContainer(fakeSwarm(TEST_CONTAINER_LABELS, port));
      await engine.startContainer(id, { port });
      const lines = await poll('the boot banner', 20_000, async () => {
        const log = await engine.readLog(id, { tail: 100 });
        return log.some((l) => l.includes(`http://127.0.0.1:${port}`)) ? log : undefined;
      });
      expect(lines.join('\n')).toContain('Interchange server is running');
      expect((await engine.listContainers({ [CASE]: 'ssh-podman' })).map((c) => [c.id, c.state])).toEqual([[id, 'running']]);
      await engine.stopContainer(id, 5);
      expect((await engine.inspectContainer(id)).state).toBe('exited');
      await engine.removeContainer(id);
      await poll('the destroy event', 15_000, async () => (events.includes('destroy') ? true : undefined));
      expect(events).toContain('die');
    } finally {
      unwatch();
    }
  });
});

describe('a server set up as Docker whose socket is rootless Podman', () => {
  it('is reported as Podman, rootless, with Podman\'s fixes, and stays the ssh-docker engine it was created as', async () => {
    const engine = sshEngine(pod, { engine: 'docker', transport: { kind: 'socket', path: tb.podman.rootless.socket } });
    expect(engine.summary.kind).toBe('ssh-docker');
    expect(await engine.health()).toMatchObject({ reachable: true, product: 'podman', rootless: true, version: tb.podman.version });
    await expect(engine.createContainer({ ...fakeSwarm(TEST_CONTAINER_LABELS, 1), image: '127.0.0.1:5000/agentswarm-test/not-there:1' })).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
      message: expect.stringContaining('on testbed: podman pull 127.0.0.1:5000/agentswarm-test/not-there:1'),
    });
  });
});

describe('a user whose Podman API service is not running', () => {
  it('is told so, with the commands that start it and keep it after logout', async () => {
    const other = await connectAs(tb.ssh.user);
    const engine = sshEngine(other, { engine: 'podman', transport: { kind: 'user-socket' } });
    const health = await engine.health();
    expect(health).toMatchObject({ reachable: false, error: { code: 'ENGINE_UNREACHABLE' } });
    const message = health.error!.message;
    expect(message).toContain(`The Podman API service is not running for ${tb.ssh.user} on testbed`);
    expect(message).toContain('systemctl --user enable --now podman.socket');
    expect(message).toContain('podman system service --time=0 unix://$XDG_RUNTIME_DIR/podman/podman.sock &');
    expect(message).toContain(`loginctl enable-linger ${tb.ssh.user}`);
    await expect(engine.listContainers({})).rejects.toMatchObject({ code: 'ENGINE_UNREACHABLE', message: expect.stringContaining('not running for') });
  });
});

describe('Test connection with Podman', () => {
  const hop = (username: string) => ({ host: tb.ssh.host, port: tb.ssh.port, username, auth: [{ kind: 'key' as const, path: tb.ssh.plainKeyPath }] });
  const run = (username: string, docker: DiagnosticsOptions['docker']) =>
    runDiagnostics({
      serverId: 'testbed',
      hops: [hop(username)],
      docker,
      askSecret: () => Promise.resolve(null),
      verifyHostKey: (_hop, info) => Promise.resolve(info.fingerprint === tb.ssh.hostKeyFingerprint),
    });
  const stage = (report: Awaited<ReturnType<typeof run>>, name: string) => report.stages.find((s) => s.stage === name)!;

  it('passes through the user socket and names Podman and its version', async () => {
    const report = await run(podUser, { engine: 'podman', transport: 'user-socket', socketPath: '/var/run/docker.sock' });
    expect(stage(report, 'docker-version')).toMatchObject({ status: 'pass', detail: `Podman ${tb.podman.version} (API 1.41) through ${podUser}'s rootless Podman socket` });
    expect(stage(report, 'docker-permission')).toMatchObject({ status: 'pass', detail: `${podUser}'s rootless Podman socket is ${tb.podman.rootless.socket}` });
  });

  it('says a server set up as Docker is Podman', async () => {
    const report = await run(podUser, { engine: 'docker', transport: 'socket', socketPath: tb.podman.rootless.socket });
    expect(stage(report, 'docker-version').detail).toContain('the server is set up as Docker, but Podman answers: the app treats it as Podman');
  });

  it('fails with the fix when the user has no running service', async () => {
    const report = await run(tb.ssh.user, { engine: 'podman', transport: 'user-socket', socketPath: '/var/run/docker.sock' });
    expect(stage(report, 'docker-version')).toMatchObject({ status: 'fail', error: { code: 'ENGINE_UNREACHABLE' } });
    const permission = stage(report, 'docker-permission');
    expect(permission).toMatchObject({ status: 'fail', error: { code: 'ENGINE_UNREACHABLE', message: `The Podman API service is not running for ${tb.ssh.user} on ${tb.ssh.user}@${tb.ssh.host}:${tb.ssh.port}.` } });
    expect(permission.fix).toContain('systemctl --user enable --now podman.socket');
    expect(stage(report, 'gpus').status).toBe('skipped');
  });
});

describe('a rootless Podman server added in the app', () => {
  it('connects, is listed as a Podman engine with the server\'s id, and reports Podman rootless', async () => {
    const app = await startTestApp();
    try {
      const hostKey = readFileSync(tb.ssh.hostPublicKeyPath, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
      writeFileSync(join(app.dataDir, 'known_hosts'), `[${tb.ssh.host}]:${tb.ssh.port} ${hostKey}\n`);
      const input = ServerProfileInput.parse({
        label: 'podman-box',
        host: tb.ssh.host,
        port: tb.ssh.port,
        username: podUser,
        authMethods: ['key'],
        identityFiles: [tb.ssh.plainKeyPath],
        docker: { engine: 'podman', transport: 'user-socket' },
      });
      const view = await app.handlers['servers:add'](input);
      const engineId = engineIdOfServer(view.profile.id);
      expect(await app.handlers['engines:list']({})).toContainEqual(expect.objectContaining({ id: engineId, kind: 'podman', label: 'podman-box' }));
      expect((await app.handlers['servers:connect']({ serverId: view.profile.id })).state).toBe('up');
      expect(await app.handlers['engines:health']({ engineId })).toMatchObject({ reachable: true, product: 'podman', rootless: true, version: tb.podman.version });
    } finally {
      await app.dispose();
    }
  });
});
