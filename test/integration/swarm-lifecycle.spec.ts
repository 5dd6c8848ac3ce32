import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventHub } from '../../electron/services/events';
import type { Handlers } from '../../electron/services/ipc/handlers';
import type { SwarmContainer } from '../../electron/shared/schemas';
import { enginesUnderTest, type EngineUnderTest } from '../support/engines-under-test';
import { freePort, poll, recordSwarmStatuses, waitForEvent } from '../support/helpers';
import { startTestApp, TEST_CONTAINER_LABELS, type TestApp } from '../support/test-app';

// One suite, every engine of the test bed: real dockerd, real Podman rootful on its socket, real
// Podman rootless reached over the test bed's sshd. The app's own services through its handlers;
// nothing is mocked except the swarm server itself (a labelled test double). `direct` is root's
// client on the same engine, for what happens behind the app's back.
/** How long a death or a removal behind the app's back may take to read "stopped" (Podman on a loaded machine: see below). */
const STOPPED_WITHIN_MS = 90_000;

describe.each(enginesUnderTest())('swarm server lifecycle on $name', (eut: EngineUnderTest) => {
  const { direct } = eut;
  let app: TestApp;
  let hub: EventHub;
  let handlers: Handlers;
  let engineId: string;

  async function start(port: number, extra: { image?: string; gpus?: boolean } = {}): Promise<SwarmContainer> {
    return handlers['swarm:start']({
      engineId,
      image: extra.image ?? eut.image,
      port,
      networkMode: 'host',
      gpus: extra.gpus ?? false,
      shmSizeGb: 1,
    });
  }

  /** The engine's swarm containers, or only those for `port`: other files' servers may run on it meanwhile (npm test's lanes). */
  async function ourContainerIds(port?: number): Promise<string[]> {
    return (await handlers['swarm:list']({ engineId })).filter((c) => port === undefined || c.port === port).map((c) => c.id);
  }

  beforeAll(async () => {
    app = await startTestApp(eut.appOptions());
    ({ hub, handlers } = app);
    engineId = await eut.attach(app);
  });

  afterAll(async () => {
    // By label: also a Start that failed half-way and never reported its id to the test.
    await app?.dispose();
  });

  it('starts a labelled, detached container with Init and reports ENGINE.OFFLINE from its API', async () => {
    const port = await freePort();
    const statuses = recordSwarmStatuses(hub);
    const container = await start(port);
    expect(container).toMatchObject({ engineId, state: 'running', port, networkMode: 'host', image: eut.image });
    const status = await statuses.of(container.id, (s) => s.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE').finally(statuses.stop);
    // Remote engines reach the port through the SSH tunnel, whose local port may differ.
    expect(status).toMatchObject({ containerId: container.id, globalStep: null });
    expect(status.url).toMatch(eut.remote ? /^http:\/\/127\.0\.0\.1:\d+$/ : new RegExp(`^http://127\\.0\\.0\\.1:${port}$`));

    const info = await direct.getContainer(container.id).inspect();
    expect(info.Config.Labels).toMatchObject({
      'io.agentswarm.managed': 'true',
      'io.agentswarm.role': 'swarm-server',
      'io.agentswarm.port': String(port),
    });
    expect(info.HostConfig.Init).toBe(true);
    expect(info.HostConfig.NetworkMode).toBe('host');
    expect(info.HostConfig.RestartPolicy?.Name).toBe('no');
    expect(info.Config.Cmd).toEqual(['ajet-swarm', 'start', '--swarm-port', String(port)]);
    expect(await ourContainerIds()).toContain(container.id);

    // Its output is stored and followed (logs by cursor), on every engine.
    await poll('the startup lines stored', 30_000, async () => {
      const window = await handlers['logs:read']({ engineId, containerId: container.id, from: 0, count: 100, filter: { text: 'interchange server is running', regex: false, stream: 'all' } });
      return window.matching === 1 && window.following ? true : undefined;
    });

    // A second server on the same port is refused before the engine is asked.
    await expect(start(port)).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT' });

    // After an app restart, a fresh set of services finds the container by its labels again.
    // (Its events go to its own hub; wait on the statuses it serves, which follow the same polls.)
    const restarted = await startTestApp({ ...eut.appOptions(), dataDir: app.dataDir });
    try {
      await expect
        .poll(async () => (await restarted.handlers['swarm:statuses']({})).find((s) => s.containerId === container.id), { timeout: 30_000 })
        .toMatchObject({ connection: 'online', engineStatus: 'ENGINE.OFFLINE' });
    } finally {
      await restarted.stop();
    }

    const stoppedEvent = waitForEvent(hub, 'swarm:status', (s) => s.containerId === container.id && s.connection === 'stopped');
    const stopped = await handlers['swarm:stop']({ engineId, containerId: container.id });
    expect(stopped.state).toBe('exited');
    // 143 = ended by SIGTERM, which Init forwarded; 137 would mean Docker had to SIGKILL it.
    expect((await direct.getContainer(container.id).inspect()).State.ExitCode).toBe(143);
    await stoppedEvent;
    // A stopped server keeps a status that says it was stopped (no engine reading), until removed.
    const afterStop = (await handlers['swarm:statuses']({})).find((s) => s.containerId === container.id);
    expect(afterStop).toMatchObject({ connection: 'stopped', engineStatus: null, globalStep: null, exit: { kind: 'stopped', code: 143 } });

    await expect(handlers['swarm:remove']({ engineId, containerId: container.id })).resolves.toEqual({ removed: true });
    expect(await ourContainerIds()).not.toContain(container.id);
    await expect(direct.getContainer(container.id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await handlers['swarm:statuses']({})).map((s) => s.containerId)).not.toContain(container.id);
  });

  it('says PORT_IN_USE when something already listens on the port, and creates nothing', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    const before = await ourContainerIds(port);
    try {
      await expect(start(port)).rejects.toMatchObject({ code: 'PORT_IN_USE', message: expect.stringContaining(`Port ${port}`) });
    } finally {
      blocker.close();
    }
    expect(await ourContainerIds(port)).toEqual(before);
  });

  it('says IMAGE_NOT_FOUND with the pull command for a missing image', async () => {
    const image = 'localhost/agentswarm-test/not-there:1';
    await expect(start(await freePort(), { image })).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
      message: expect.stringContaining(eut.pullCommand(image)),
    });
  });

  it('removes the half-created container when the engine cannot give it GPUs (no NVIDIA runtime, no CDI spec)', async () => {
    const port = await freePort();
    const before = await ourContainerIds(port);
    // Docker refuses the GPU request at start; Podman takes GPUs only through CDI and the test bed
    // has no CDI spec, so its start fails too. Never a silently GPU-less server.
    const failure = await start(port, { gpus: true }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: expect.stringMatching(/^(CONTAINER_START_FAILED|GPU_NOT_VISIBLE)$/), message: expect.stringMatching(/GPU/) });
    expect(await ourContainerIds(port)).toEqual(before);
  });

  it('notices a swarm container that died on its own', async () => {
    const port = await freePort();
    // Recorded per container: a timeout then lists this container's statuses, not other files' servers' (loaded run L16).
    const statuses = recordSwarmStatuses(hub);
    const container = await start(port);
    await statuses.of(container.id, (s) => s.connection === 'online');
    // Podman learns of a death from its cleanup process (a `podman` started by conmon): on a loaded machine that took
    // longer than 30 s twice (loaded runs L12, L16), and the monitor's asks back off meanwhile. 90 s, not 30.
    const gone = statuses.of(container.id, (s) => s.connection === 'stopped', STOPPED_WITHIN_MS);
    const listChanged = waitForEvent(hub, 'swarm:containers-changed', (p) => p.engineId === engineId);
    await direct.getContainer(container.id).kill();
    expect((await gone.finally(statuses.stop)).exit).toMatchObject({ kind: 'killed', code: 137 });
    await listChanged;
    const listed = (await handlers['swarm:list']({ engineId })).find((c) => c.id === container.id);
    expect(listed?.state).toBe('exited');
  });

  it('says why a swarm server that crashed at start ended: exit code and last output', async () => {
    // A variant of the fake image whose `ajet-swarm start` fails like a broken install would.
    const base = await direct.createContainer({ Image: eut.image, Cmd: ['ajet-swarm', 'start'], Labels: TEST_CONTAINER_LABELS });
    // A fully qualified name: Podman would store a short name under localhost/ anyway.
    const crashImage = 'localhost/agentswarm-test/fake-swarm-crashing:1';
    await eut.commitImage(base.id, 'localhost/agentswarm-test/fake-swarm-crashing', '1', 'ENV AJET_FAKE_EXIT_ON_START=3');
    try {
      const crashed = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'stopped' && s.exit?.code === 3);
      const container = await start(await freePort(), { image: crashImage });
      const status = await crashed;
      expect(status.containerId).toBe(container.id);
      expect(status.exit).toMatchObject({ kind: 'crashed', log: { explains: true } });
      expect(status.exit?.log.lines.join('\n')).toContain('RuntimeError: fake swarm server told to fail at start');
      // Served with the statuses too, so a reload still says why.
      const served = (await handlers['swarm:statuses']({})).find((s) => s.containerId === container.id);
      expect(served?.exit).toMatchObject({ kind: 'crashed', code: 3 });
      const listed = (await handlers['swarm:list']({ engineId })).find((c) => c.id === container.id);
      expect(listed?.state).toBe('exited'); // kept, so its logs stay readable
    } finally {
      await direct.getImage(crashImage).remove({ force: true }).catch(() => undefined);
    }
  });

  it('stops watching a swarm container removed behind its back (rm -f)', async () => {
    const statuses = recordSwarmStatuses(hub);
    const container = await start(await freePort());
    await statuses.of(container.id, (s) => s.connection === 'online');
    const gone = statuses.of(container.id, (s) => s.connection === 'stopped', STOPPED_WITHIN_MS);
    await direct.getContainer(container.id).remove({ force: true });
    await gone.finally(statuses.stop);
    // The `die` event may end the watch (with its exit) before Docker has removed the container;
    // its `destroy` event then drops the row.
    await expect.poll(async () => (await handlers['swarm:statuses']({})).map((s) => s.containerId), { timeout: 10_000 }).not.toContain(container.id);
    expect(await ourContainerIds()).not.toContain(container.id);
  });

  it('refuses to stop or remove a container the app did not start', async () => {
    // Only the test label (for cleanup), none of the app's: to the app it is someone else's container.
    const foreign = await direct.createContainer({ Image: eut.image, Cmd: ['ajet-swarm', 'start'], Labels: TEST_CONTAINER_LABELS, HostConfig: { NetworkMode: 'host' } });
    await expect(handlers['swarm:stop']({ engineId, containerId: foreign.id })).rejects.toMatchObject({
      code: 'CONTAINER_NOT_FOUND',
      message: expect.stringContaining('not started by AgentSwarm Desktop'),
    });
    await expect(handlers['swarm:remove']({ engineId, containerId: foreign.id })).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
    await expect(direct.getContainer(foreign.id).inspect()).resolves.toBeDefined();
  });
});
