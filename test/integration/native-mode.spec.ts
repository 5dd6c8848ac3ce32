// Native mode end to end: `ajet-swarm start` without Docker, over the test bed's real sshd (as its
// test user) and on this computer. The only double is `ajet-swarm` itself: the test bed's TEST DOUBLE
// script that runs the fake swarm server with the host's node. Needs `bash test/testbed/testbed.sh up`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_ID_PREFIX, type ContainerEngine, type ContainerEvent, type ContainerSpec, type EngineLogLine } from '../../electron/services/engines/container-engine';
import { LocalHost } from '../../electron/services/engines/engine-host';
import { createLocalDockerEngine } from '../../electron/services/engines/local-docker';
import { createSshDockerEngine } from '../../electron/services/engines/ssh-docker';
import { withNativeProcesses } from '../../electron/services/native/native-engine';
import { lineCursor } from '../../electron/services/native/native-log-follow';
import { NativeProcesses } from '../../electron/services/native/native-processes';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { buildSwarmSpec } from '../../electron/services/swarm/swarm-containers';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { ServerProfileInput, engineIdOfServer } from '../../electron/shared/schemas-servers';
import { freePort, poll, waitForEvent } from '../support/helpers';
import { TEST_APP_VERSION, TEST_CONTAINER_LABELS, startTestApp, type TestApp } from '../support/test-app';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbedWithNative } from '../testbed/testbed';

const tb = loadTestbedWithNative();
const SECRET = 'swanlab-canary-7f3a9c';

/** A native swarm spec as the profiles' start will build it: the app's swarm labels, `ajet-swarm start --swarm-port=<port>`. */
function nativeSpec(port: number, labels: Record<string, string>, activate: string | null, env: Record<string, string> = {}): ContainerSpec {
  const base = buildSwarmSpec({ engineId: 'x', image: 'native', port, networkMode: 'host', gpus: false, shmSizeGb: 1 }, TEST_APP_VERSION);
  return { ...base, labels: { ...base.labels, ...labels }, env: { ...base.env, ...env }, cmd: ['ajet-swarm', 'start', `--swarm-port=${port}`], runtime: 'native', nativeActivate: activate };
}

/** Runs a command as the test user on the test bed (not through the code under test). */
async function onServer(conn: SshConnection, command: string): Promise<string> {
  const result = await conn.exec(command, { timeoutMs: 15_000 });
  if (result.code !== 0) throw new Error(`${command} -> ${result.code}: ${result.stderr}`);
  return result.stdout.trim();
}

async function pidOf(native: NativeProcesses, id: string): Promise<number> {
  const pid = (await native.record(id)).pid;
  if (pid === null) throw new Error(`${id} has no pid`);
  return pid;
}

async function removeNativeTestRuns(native: NativeProcesses): Promise<void> {
  const runs = await native.list(TEST_CONTAINER_LABELS).catch(() => []);
  await Promise.all(runs.map((r) => native.remove(r.id, { force: true }).catch(() => undefined)));
}

describe('native mode over the test bed sshd', () => {
  let conn: SshConnection;
  let engine: ContainerEngine;
  let native: NativeProcesses;
  let app: TestApp | null = null;
  let firstApp: TestApp | null = null;
  let port = 0;
  let id = '';
  let engineId = '';
  let serverId = '';
  const decoys: number[] = [];

  beforeAll(async () => {
    conn = await connectToTestbed();
    engine = withNativeProcesses(
      createSshDockerEngine({ id: 'native-spec', label: 'testbed', connection: conn, urlForHostPort: (p) => Promise.resolve(`http://127.0.0.1:${p}`) }),
    );
    native = new NativeProcesses(engine.host!);
    await removeNativeTestRuns(native);
    port = await freePort();
  });

  afterAll(async () => {
    if (firstApp) await app?.stop();
    await (firstApp ?? app)?.dispose();
    for (const pid of decoys) await conn.exec(`kill ${pid}`).catch(() => undefined);
    await removeNativeTestRuns(native);
    await engine.dispose();
    await conn.close();
  });

  it('without the activate line ajet-swarm is not on a non-login PATH: NATIVE_NOT_INSTALLED naming the fix, nothing runs', async () => {
    const missing = await engine.createContainer(nativeSpec(port, TEST_CONTAINER_LABELS, null));
    await expect(engine.startContainer(missing)).rejects.toMatchObject({ code: 'NATIVE_NOT_INSTALLED', message: expect.stringMatching(/activate line/) });
    expect((await engine.inspectContainer(missing)).state).toBe('created');
    await engine.removeContainer(missing);
    await expect(engine.inspectContainer(missing)).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
  });

  it('starts detached through the wrapper; the secret reaches the server only through its environment', async () => {
    id = await engine.createContainer(nativeSpec(port, TEST_CONTAINER_LABELS, tb.native.sshUserActivate, { SWANLAB_API_KEY: SECRET }));
    expect(id.startsWith(NATIVE_ID_PREFIX)).toBe(true);
    await engine.startContainer(id);
    expect(await engine.inspectContainer(id)).toMatchObject({ id, state: 'running', exitCode: null, labels: { 'io.agentswarm.port': String(port) } });
    const pid = await pidOf(native, id);
    const dir = `$HOME/.agentswarm/run/${id.slice(NATIVE_ID_PREFIX.length)}`;
    expect((await onServer(conn, `ls ${dir}`)).split('\n').sort()).toEqual(['launch.sh', 'pid', 'pidstart', 'server.log', 'spec.json', 'started', 'wrapper']);
    expect(await onServer(conn, `cat /proc/${pid}/cmdline | tr '\\0' ' '`)).toContain(`ajet-swarm start --swarm-port=${port}`);
    // In its own session (setsid), not in the SSH exec's: closing our channel cannot hang it up.
    expect(await onServer(conn, `ps -o sid= -p ${pid} | tr -d ' '`)).not.toBe(await onServer(conn, 'ps -o sid= -p $$ | tr -d " "'));
    expect(await onServer(conn, `tr '\\0' '\\n' </proc/${pid}/environ | grep SWANLAB_API_KEY`)).toBe(`SWANLAB_API_KEY=${SECRET}`);
    expect(await onServer(conn, 'ps -eo args')).not.toContain(SECRET);
    expect(await onServer(conn, `cat ${dir}/spec.json`)).not.toContain(SECRET);
  });

  it('the app finds it on the SSH server, watches ENGINE.OFFLINE through the tunnel, and finds it again after a restart (no second process)', async () => {
    app = await startTestApp();
    const server = await app.handlers['servers:add'](ServerProfileInput.parse({ label: 'native', host: tb.ssh.host, port: tb.ssh.port, username: tb.ssh.user, authMethods: ['key'], identityFiles: [tb.ssh.plainKeyPath] }));
    serverId = server.profile.id;
    engineId = engineIdOfServer(serverId);
    await app.handlers['servers:connect']({ serverId: server.profile.id });
    const online = waitForEvent(app.hub, 'swarm:status', (s) => s.engineId === engineId && s.containerId === id && s.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE');
    await app.handlers['servers:trust-host-key']({ serverId: server.profile.id, fingerprint: tb.ssh.hostKeyFingerprint });
    const status = await online;
    const views = await app.handlers['servers:list']({});
    const tunnel = views.find((v) => v.engineId === engineId)!.tunnels.find((t) => t.remotePort === port)!;
    expect(status.url).toBe(tunnel.url);
    const listed = (await app.handlers['swarm:list']({ engineId })).find((c) => c.id === id);
    expect(listed).toMatchObject({ state: 'running', port, networkMode: 'host' });

    await app.stop();
    firstApp = app;
    app = await startTestApp({ dataDir: firstApp.dataDir });
    const again = await poll('the restarted app to watch the native server through the tunnel', 20_000, async () => {
      const s = (await app!.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === id);
      return s?.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE' ? s : undefined;
    });
    expect(again.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const servers = await onServer(conn, `ps -eo args | grep -c -- '[a]jet-swarm start --swarm-port=${port}'`);
    expect(servers).toBe('1');
  });

  it('reads the log tail and follows it from a cursor without duplicated lines', async () => {
    const tail = await engine.readLog(id, { tail: 50 });
    expect(tail.join('\n')).toContain('Interchange server is running in blocking mode');
    const follow = async (sinceTimestamp?: string): Promise<EngineLogLine[]> => {
      const controller = new AbortController();
      const lines: EngineLogLine[] = [];
      await followNativeUntil(engine, id, controller, lines, sinceTimestamp);
      return lines;
    };
    const all = await follow();
    expect(all.map((l) => l.text)).toEqual(expect.arrayContaining([expect.stringContaining('Interchange server is running')]));
    // Line cursors count from 1 with no gap; resuming after line 2 gives line 3 on, each line once.
    expect(all.map((l) => l.timestamp)).toEqual(all.map((_, i) => lineCursor(i + 1)));
    const resumed = await follow(all[1]!.timestamp!);
    expect(resumed[0]?.timestamp).toBe(lineCursor(3));
    expect(resumed.slice(0, all.length - 2).map((l) => l.text)).toEqual(all.slice(2).map((l) => l.text));
    expect(await engine.readContainerFile(id, '/workspace/log/swarm_server.log', 100_000)).toContain('Interchange server is running');
  });

  it('stops by its pid only: reused pids (a plain process, one whose argv mentions ajet-swarm) are neither running nor signalled', async () => {
    // Two run folders whose pid files name live processes of the test user that are not our servers.
    const plain = Number(await onServer(conn, 'nohup sleep 600 >/dev/null 2>&1 </dev/null & echo $!'));
    const named = Number(await onServer(conn, `nohup bash -c 'exec -a ajet-swarm-decoy sleep 600' >/dev/null 2>&1 </dev/null & echo $!`));
    decoys.push(plain, named);
    for (const [pid, pidstart] of [
      [plain, ''],
      [named, '1'],
    ] as const) {
      const decoy = await engine.createContainer(nativeSpec(await freePort(), TEST_CONTAINER_LABELS, tb.native.sshUserActivate));
      const dir = `$HOME/.agentswarm/run/${decoy.slice(NATIVE_ID_PREFIX.length)}`;
      await onServer(conn, `echo ${pid} >${dir}/pid && echo '${pidstart}' >${dir}/pidstart && echo "$(date +%s) 0" >${dir}/started`);
      expect((await engine.inspectContainer(decoy)).state).toBe('exited');
      await engine.stopContainer(decoy, 1);
      await engine.removeContainer(decoy);
    }
    expect(await onServer(conn, `kill -0 ${plain} && kill -0 ${named} && echo alive`)).toBe('alive');

    const stopped = await app!.handlers['swarm:stop']({ engineId, containerId: id });
    expect(stopped).toMatchObject({ id, state: 'exited', exitCode: 143 });
    expect(await onServer(conn, `kill -0 ${plain} && kill -0 ${named} && echo alive`)).toBe('alive');
  });

  it('a killed server reports its exit code: a die event with 137, inspect, and the app\'s monitor (kind killed, last lines)', async () => {
    const other = await engine.createContainer(nativeSpec(await freePort(), TEST_CONTAINER_LABELS, tb.native.sshUserActivate));
    await engine.startContainer(other);
    // A reconnect makes the app look for the server's swarm servers again: it watches the new one too.
    await app!.handlers['servers:disconnect']({ serverId });
    const watching = waitForEvent(app!.hub, 'swarm:status', (s) => s.containerId === other && s.connection === 'online');
    await app!.handlers['servers:connect']({ serverId });
    await watching;
    const events: ContainerEvent[] = [];
    const unsubscribe = engine.watchEvents(TEST_CONTAINER_LABELS, (e) => events.push(e));
    try {
      await new Promise((r) => setTimeout(r, 1500)); // the watcher's first poll is its baseline
      const ended = waitForEvent(app!.hub, 'swarm:status', (s) => s.containerId === other && s.connection === 'stopped' && s.exit !== null);
      const killedAt = Date.now();
      await onServer(conn, `kill -KILL ${await pidOf(native, other)}`);
      const die = await poll('the die event of the killed server', 10_000, () => Promise.resolve(events.find((e) => e.containerId === other && e.action === 'die')));
      expect(die.exitCode).toBe(137);
      expect(die.at - killedAt).toBeLessThan(5000);
      expect(await engine.inspectContainer(other)).toMatchObject({ state: 'exited', exitCode: 137 });
      const status = await ended;
      expect(status.exit).toMatchObject({ kind: 'killed', code: 137 });
      expect(status.exit?.log.lines.join('\n')).toContain('Press Ctrl+C to stop.');
    } finally {
      unsubscribe();
    }
    await app!.handlers['swarm:remove']({ engineId, containerId: id });
    await expect(engine.inspectContainer(id)).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
  });

  it('a native profile starts through profiles:start (doctor first), its server log is the run\'s, and profiles:stop ends it', async () => {
    const profilePort = await freePort();
    const view = await app!.handlers['profiles:add'](ProfileInput.parse({
      label: 'native test',
      engineId,
      mode: 'native',
      image: 'ghcr.io/modelscope/agentjet:main',
      port: profilePort,
      gpus: { mode: 'none' },
      nativeActivate: tb.native.sshUserActivate,
      secretEnv: ['SWANLAB_API_KEY'],
    }));
    const started = await app!.handlers['profiles:start']({ profileId: view.profile.id, secrets: { SWANLAB_API_KEY: SECRET }, skipDoctor: false, replaceDrifted: false });
    const containerId = started.runtime.container?.id ?? '';
    expect(containerId.startsWith(NATIVE_ID_PREFIX)).toBe(true);
    expect(started.runtime.container).toMatchObject({ state: 'running', port: profilePort });
    await poll('the monitor to reach the profile\'s native server', 15_000, async () => {
      const s = (await app!.handlers['swarm:statuses']({})).find((x) => x.containerId === containerId);
      return s?.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE' ? s : undefined;
    });
    const serverLog = await app!.handlers['logs:server-log']({ engineId, containerId, lines: 50 });
    expect(serverLog.found).toBe(true);
    expect(serverLog.lines.join('\n')).toContain('Interchange server is running');
    // The logs service follows it like a container (native lines carry line cursors).
    const stored = await poll('the stored log to have the readiness line', 10_000, async () => {
      const window = await app!.handlers['logs:read']({ engineId, containerId, from: 0, count: 100, filter: { text: 'Interchange server is running', regex: false, stream: 'all' } });
      return window.matching > 0 ? window : undefined;
    });
    expect(stored.lines[0]?.time).toMatch(/^line:\d{12}$/);
    const stopped = await app!.handlers['profiles:stop']({ profileId: view.profile.id });
    expect(stopped.runtime.container).toMatchObject({ state: 'exited', exitCode: 143 });
    await app!.handlers['profiles:remove']({ profileId: view.profile.id });
  });
});

/** Follows until the server is gone or, while it runs, until the log has been quiet for a moment. */
async function followNativeUntil(engine: ContainerEngine, id: string, controller: AbortController, lines: EngineLogLine[], sinceTimestamp?: string): Promise<void> {
  let quietTimer: NodeJS.Timeout | null = null;
  const quiet = () => {
    if (quietTimer) clearTimeout(quietTimer);
    quietTimer = setTimeout(() => controller.abort(), 1500);
  };
  quiet();
  await engine.followLog(id, {
    signal: controller.signal,
    ...(sinceTimestamp ? { sinceTimestamp } : {}),
    onLines: (batch) => {
      lines.push(...batch);
      quiet();
    },
  });
  if (quietTimer) clearTimeout(quietTimer);
}

describe('native mode on this computer', () => {
  const engine = createLocalDockerEngine();
  const native = new NativeProcesses(new LocalHost());
  afterAll(() => removeNativeTestRuns(native));

  it('starts, answers on its port, lists with the Docker containers, stops with 143 and is removed', async () => {
    const port = await freePort();
    const localId = await engine.createContainer(nativeSpec(port, TEST_CONTAINER_LABELS, `export PATH='${tb.native.binDir}':"$PATH"`));
    await engine.startContainer(localId);
    const status = await poll('the native server to answer', 15_000, async () => {
      const res = await fetch(`http://127.0.0.1:${port}/get_engine_status`).catch(() => null);
      return res?.ok ? ((await res.json()) as { engine_status: string }) : undefined;
    });
    expect(status.engine_status).toBe('ENGINE.OFFLINE');
    expect((await engine.listContainers(TEST_CONTAINER_LABELS)).map((c) => c.id)).toContain(localId);
    await engine.stopContainer(localId, 10);
    expect(await engine.inspectContainer(localId)).toMatchObject({ state: 'exited', exitCode: 143 });
    await engine.removeContainer(localId);
    expect((await engine.listContainers(TEST_CONTAINER_LABELS)).map((c) => c.id)).not.toContain(localId);
  });
});
