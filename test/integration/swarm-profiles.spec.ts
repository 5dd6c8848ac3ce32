// Swarm profiles end to end through the app's own handlers (contract-checked): the test bed's real
// dockerd (locally and through its sshd), the fake swarm image (a labelled TEST DOUBLE), binds to
// temporary folders. Host networking: the test bed's dockerd has no bridge network.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_PROFILE, NATIVE_ID_PREFIX } from '../../electron/services/engines/container-engine';
import { ServerProfileInput, engineIdOfServer } from '../../electron/shared/schemas-servers';
import type { ProfileInputRaw, ProfileView } from '../../electron/shared/schemas-profiles';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { freePort, recordSwarmStatuses, waitForEvent } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed, loadTestbedWithNative } from '../testbed/testbed';

const tb = loadTestbed();
const docker = new Docker({ socketPath: tb.dockerSocket });
/** A secret value that must reach the container's env and nothing else the app writes or sends. */
const CANARY = 'swanlab-canary-7d1e55b0c2';

function recordEvents(app: TestApp): string[] {
  const seen: string[] = [];
  app.hub.subscribe((channel, payload) => seen.push(`${channel} ${JSON.stringify(payload)}`));
  return seen;
}

async function containersOfProfile(profileId: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${LABEL_PROFILE}=${profileId}`] } });
}

function viewOf(views: ProfileView[], id: string): ProfileView | undefined {
  return views.find((v) => v.profile.id === id);
}

describe('swarm profiles on the local Docker engine', () => {
  let app: TestApp;
  let events: string[];
  const errors: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'agentswarm-profiles-'));
  const dirs = { model: join(scratch, 'model'), log: join(scratch, 'log'), exp: join(scratch, 'exp'), ckpt: join(scratch, 'ckpt') };
  let profileId: string;
  let port: number;
  let firstContainerId: string;

  async function expectRejected(promise: Promise<unknown>, code: string): Promise<void> {
    const error = (await promise.then(
      () => null,
      (e: unknown) => e,
    )) as { code?: string; message?: string } | null;
    expect(error?.code).toBe(code);
    errors.push(String(error?.message));
  }

  beforeAll(async () => {
    for (const dir of Object.values(dirs)) mkdirSync(dir);
    writeFileSync(join(dirs.model, 'config.json'), '{"model_type":"qwen2"}');
    app = await startTestApp();
    events = recordEvents(app);
    port = await freePort();
  });

  afterAll(async () => {
    await app?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('adds a profile and starts it: binds, labels, config hash and the secret in the container only', async () => {
    const input: ProfileInputRaw = {
      label: 'Fake Qwen',
      engineId: 'local',
      image: tb.fakeSwarmImage,
      port,
      networkMode: 'host',
      gpus: { mode: 'none' },
      shm: { mode: 'size', gb: 16 },
      model: { hostPath: dirs.model, containerPath: '/mnt/models/fake-qwen' },
      logDir: dirs.log,
      experimentsDir: dirs.exp,
      checkpointsDir: dirs.ckpt,
      env: [{ name: 'NCCL_NVLS_ENABLE', value: '0' }],
      secretEnv: ['SWANLAB_API_KEY'],
    };
    const added = await app.handlers['profiles:add'](ProfileInput.parse(input));
    profileId = added.profile.id;
    expect(added.runtime).toMatchObject({ container: null, drifted: false, containerConfigHash: null, secretsKnown: [] });
    expect(viewOf(await app.handlers['profiles:list']({}), profileId)?.profile.label).toBe('Fake Qwen');

    await expectRejected(app.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false }), 'SECRET_MISSING');

    const statuses = recordSwarmStatuses(app.hub);
    // The real doctor runs first and passes: model folder with config.json, folders, free port, image present, no GPUs asked.
    const started = await app.handlers['profiles:start']({ profileId, secrets: { SWANLAB_API_KEY: CANARY }, skipDoctor: false, replaceDrifted: false });
    expect(events.some((e) => e.startsWith('doctor:report') && e.includes(`"profileId":"${profileId}"`))).toBe(true);
    expect(started.runtime).toMatchObject({ drifted: false, secretsKnown: ['SWANLAB_API_KEY'], containerConfigHash: started.runtime.configHash });
    expect(started.runtime.container).toMatchObject({ state: 'running', port, networkMode: 'host', engineId: 'local', profileId });
    firstContainerId = started.runtime.container!.id;
    // The engine's plain list says which profile a container belongs to (the quick-start list leaves it to the card).
    expect((await app.handlers['swarm:list']({ engineId: 'local' })).find((c) => c.id === firstContainerId)?.profileId).toBe(profileId);
    await statuses.of(firstContainerId, (s) => s.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE');
    statuses.stop();

    const info = await docker.getContainer(firstContainerId).inspect();
    expect(info.HostConfig.Binds).toEqual([
      `${dirs.model}:/mnt/models/fake-qwen:ro`,
      `${dirs.log}:/workspace/log`,
      `${dirs.exp}:/workspace/saved_experiments`,
      `${dirs.ckpt}:/workspace/saved_checkpoints`,
    ]);
    expect(info.Config.Labels).toMatchObject({
      'io.agentswarm.managed': 'true',
      'io.agentswarm.role': 'swarm-server',
      'io.agentswarm.profile': profileId,
      'io.agentswarm.config-hash': started.runtime.configHash,
      'io.agentswarm.port': String(port),
    });
    expect(info.HostConfig.NetworkMode).toBe('host');
    expect(info.HostConfig.Init).toBe(true);
    expect(info.Config.Cmd).toEqual(['ajet-swarm', 'start', '--swarm-port', String(port)]);
    expect(info.Config.Env).toEqual(expect.arrayContaining(['NO_COLOR=1', 'LOGURU_COLORIZE=NO', 'NCCL_NVLS_ENABLE=0', `SWANLAB_API_KEY=${CANARY}`]));
    // The model is mounted read-only: the server sees it, cannot write it.
    const mounts = info.Mounts.map((m) => [m.Destination, m.RW]);
    expect(mounts).toContainEqual(['/mnt/models/fake-qwen', false]);

    // Already running with the same settings: Start gives it back, makes no second one.
    const again = await app.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false });
    expect(again.runtime.container?.id).toBe(firstContainerId);
    expect(await containersOfProfile(profileId)).toHaveLength(1);

    const { command, notes } = await app.handlers['profiles:command']({ profileId });
    expect(command).toContain(`-v ${dirs.model}:/mnt/models/fake-qwen:ro`);
    expect(command).toContain('-e SWANLAB_API_KEY=****');
    expect(command).not.toContain(CANARY);
    expect(notes.join(' ')).toContain('****');
  });

  it('shows a drifted container after an edit, refuses a plain Start, and Restart replaces it (one container)', async () => {
    const current = viewOf(await app.handlers['profiles:list']({}), profileId)!;
    const drifted = waitForEvent(app.hub, 'profiles:changed', (views) => viewOf(views, profileId)?.runtime.drifted === true);
    const edited = await app.handlers['profiles:update']({
      profileId,
      profile: { ...current.profile, env: [{ name: 'NCCL_NVLS_ENABLE', value: '1' }] },
    });
    expect(edited.runtime).toMatchObject({ drifted: true, containerConfigHash: current.runtime.configHash });
    expect(edited.runtime.configHash).not.toBe(current.runtime.configHash);
    await drifted;

    await expectRejected(app.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false }), 'PROFILE_DRIFTED');

    // No secret given: the value typed at the first Start is remembered for this run.
    const restarted = await app.handlers['profiles:restart']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false });
    expect(restarted.runtime).toMatchObject({ drifted: false, containerConfigHash: edited.runtime.configHash });
    expect(restarted.runtime.container?.id).not.toBe(firstContainerId);
    expect(restarted.runtime.container?.state).toBe('running');
    const left = await containersOfProfile(profileId);
    expect(left.map((c) => c.Id)).toEqual([restarted.runtime.container!.id]);
    expect((await docker.getContainer(left[0]!.Id).inspect()).Config.Env).toContain('NCCL_NVLS_ENABLE=1');
  });

  it('after a backend restart finds the same container (no second), then stops and removes it', async () => {
    const before = viewOf(await app.handlers['profiles:list']({}), profileId)!;
    const again = await startTestApp({ dataDir: app.dataDir });
    try {
      const found = viewOf(await again.handlers['profiles:list']({}), profileId)!;
      expect(found.runtime.container?.id).toBe(before.runtime.container?.id);
      expect(found.runtime).toMatchObject({ drifted: false, secretsKnown: [] });
      // A new backend knows no secret: Start says which one, and never makes a second container.
      await expectRejected(again.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false }), 'SECRET_MISSING');
      const same = await again.handlers['profiles:start']({ profileId, secrets: { SWANLAB_API_KEY: CANARY }, skipDoctor: true, replaceDrifted: false });
      expect(same.runtime.container?.id).toBe(before.runtime.container?.id);
      expect(await containersOfProfile(profileId)).toHaveLength(1);
    } finally {
      await again.stop();
    }

    await expectRejected(app.handlers['profiles:remove']({ profileId }), 'CONTAINER_CONFLICT');
    const stopped = await app.handlers['profiles:stop']({ profileId });
    expect(stopped.runtime.container?.state).toBe('exited');
    expect(stopped.runtime.drifted).toBe(false);
    await expect(app.handlers['profiles:remove']({ profileId })).resolves.toEqual({ removed: true });
    expect(await containersOfProfile(profileId)).toEqual([]);
    expect(viewOf(await app.handlers['profiles:list']({}), profileId)).toBeUndefined();
    await expectRejected(app.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false }), 'PROFILE_NOT_FOUND');
  });

  it('runs the real doctor before Start: a missing model folder is DOCTOR_FAILED naming the check, and nothing is created', async () => {
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({
        label: 'Doctor says no',
        engineId: 'local',
        image: tb.fakeSwarmImage,
        port: await freePort(),
        networkMode: 'host',
        gpus: { mode: 'none' },
        shm: { mode: 'size', gb: 1 },
        model: { hostPath: join(scratch, 'no-such-model'), containerPath: '/mnt/models/x' },
      }),
    );
    await expectRejected(app.handlers['profiles:start']({ profileId: added.profile.id, secrets: {}, skipDoctor: false, replaceDrifted: false }), 'DOCTOR_FAILED');
    expect(errors.at(-1)).toContain('model-dir');
    expect(await containersOfProfile(added.profile.id)).toEqual([]);
    // The doctor's own report went out too, for the card.
    expect(events.some((e) => e.startsWith('doctor:report') && e.includes(added.profile.id))).toBe(true);
    await app.handlers['profiles:remove']({ profileId: added.profile.id });
  });

  it('never lets the secret value out: not in events, errors, the command or the app log', async () => {
    expect(events.some((e) => e.startsWith('profiles:changed'))).toBe(true);
    expect(events.filter((e) => e.includes(CANARY))).toEqual([]);
    expect(errors.length).toBeGreaterThanOrEqual(5);
    expect(errors.filter((e) => e.includes(CANARY))).toEqual([]);
    expect(readFileSync(join(app.dataDir, 'app.log'), 'utf8')).not.toContain(CANARY);
    expect(readFileSync(join(app.dataDir, 'swarm-profiles.json'), 'utf8')).not.toContain(CANARY);
  });
});

describe('swarm profiles on a server over SSH', () => {
  let app: TestApp;
  let engineIdForNative: string | undefined;
  const subdir = `agentswarm-profiles-test-${process.pid}`;
  // The test user's home, as the system has it (testbed.sh puts it under its own state folder).
  const home = execFileSync('getent', ['passwd', tb.ssh.user], { encoding: 'utf8' }).trim().split(':')[5] ?? '';

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(async () => {
    await app?.dispose();
    // dockerd made the bind folder (as root) in the test user's home.
    rmSync(join(home, subdir), { recursive: true, force: true });
  });

  it('starts a profile on the server, ~/ expanded to the login user\'s home there; stop and remove', async () => {
    const server = await app.handlers['servers:add'](
      ServerProfileInput.parse({ label: 'profiles-ssh', host: tb.ssh.host, port: tb.ssh.port, username: tb.ssh.user, authMethods: ['key'], identityFiles: [tb.ssh.plainKeyPath] }),
    );
    await app.handlers['servers:connect']({ serverId: server.profile.id });
    const up = await app.handlers['servers:trust-host-key']({ serverId: server.profile.id, fingerprint: tb.ssh.hostKeyFingerprint });
    expect(up.state).toBe('up');
    const engineId = engineIdOfServer(server.profile.id);
    const port = await freePort();

    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({ label: 'Remote fake', engineId, image: tb.fakeSwarmImage, port, networkMode: 'host', gpus: { mode: 'none' }, shm: { mode: 'size', gb: 1 }, logDir: `~/${subdir}/log` }),
    );
    const statuses = recordSwarmStatuses(app.hub);
    const started = await app.handlers['profiles:start']({ profileId: added.profile.id, secrets: {}, skipDoctor: true, replaceDrifted: false });
    expect(started.runtime.container).toMatchObject({ engineId, state: 'running', port });
    await statuses.of(started.runtime.container!.id, (s) => s.engineId === engineId && s.connection === 'online');
    statuses.stop();
    const info = await docker.getContainer(started.runtime.container!.id).inspect();
    expect(info.HostConfig.Binds).toEqual([`${home}/${subdir}/log:/workspace/log`]);
    expect(info.Config.Labels?.[LABEL_PROFILE]).toBe(added.profile.id);

    const { command, notes } = await app.handlers['profiles:command']({ profileId: added.profile.id });
    expect(command).toContain(`-v ${home}/${subdir}/log:/workspace/log`);
    expect(notes.join(' ')).toContain('profiles-ssh');

    const stopped = await app.handlers['profiles:stop']({ profileId: added.profile.id });
    expect(stopped.runtime.container?.state).toBe('exited');
    await expect(app.handlers['profiles:remove']({ profileId: added.profile.id })).resolves.toEqual({ removed: true });
    expect(await containersOfProfile(added.profile.id)).toEqual([]);
    engineIdForNative = engineId;
  });

  it('native mode on the server: the profile runs ajet-swarm (TEST DOUBLE) without Docker, found, stopped and removed by the profile', async () => {
    const native = loadTestbedWithNative().native;
    const engineId = engineIdForNative!;
    const port = await freePort();
    const events: string[] = [];
    app.hub.subscribe((channel, payload) => events.push(`${channel} ${JSON.stringify(payload)}`));
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({ label: 'Remote native', engineId, mode: 'native', image: tb.fakeSwarmImage, port, nativeActivate: native.sshUserActivate, secretEnv: ['SWANLAB_API_KEY'] }),
    );
    const { command } = await app.handlers['profiles:command']({ profileId: added.profile.id });
    expect(command).toContain('nohup setsid sh -c');
    expect(command).toContain(`ajet-swarm start --swarm-port=${port}`);
    expect(command).not.toContain(CANARY);

    const statuses = recordSwarmStatuses(app.hub);
    const started = await app.handlers['profiles:start']({ profileId: added.profile.id, secrets: { SWANLAB_API_KEY: CANARY }, skipDoctor: true, replaceDrifted: false });
    expect(started.runtime).toMatchObject({ drifted: false, secretsKnown: ['SWANLAB_API_KEY'] });
    expect(started.runtime.container?.id.startsWith(NATIVE_ID_PREFIX)).toBe(true);
    expect(started.runtime.container?.state).toBe('running');
    await statuses.of(started.runtime.container!.id, (s) => s.engineId === engineId && s.connection === 'online' && s.url !== null, 60_000);
    statuses.stop();

    const stopped = await app.handlers['profiles:stop']({ profileId: added.profile.id });
    expect(stopped.runtime.container?.state).toBe('exited');
    await expect(app.handlers['profiles:remove']({ profileId: added.profile.id })).resolves.toEqual({ removed: true });
    expect((await app.handlers['swarm:list']({ engineId })).map((c) => c.id)).not.toContain(started.runtime.container!.id);
    expect(events.filter((e) => e.includes(CANARY))).toEqual([]);
  });
});
