import net from 'node:net';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventHub } from '../../electron/services/events';
import type { Handlers } from '../../electron/services/ipc/handlers';
import type { SwarmContainer } from '../../electron/shared/schemas';
import { loadTestbed } from '../testbed/testbed';
import { freePort, waitForEvent } from '../support/helpers';
import { startTestApp, TEST_CONTAINER_LABELS, type TestApp } from '../support/test-app';

// Real dockerd from test/testbed, the fake swarm image from the local registry, the app's own
// services: nothing here is mocked except the swarm server itself (a labelled test double).
describe('swarm server lifecycle on the local Docker engine', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  let app: TestApp;
  let hub: EventHub;
  let handlers: Handlers;

  async function start(port: number, extra: { image?: string; gpus?: boolean } = {}): Promise<SwarmContainer> {
    return handlers['swarm:start']({
      engineId: 'local',
      image: extra.image ?? testbed.fakeSwarmImage,
      port,
      networkMode: 'host',
      gpus: extra.gpus ?? false,
      shmSizeGb: 1,
    });
  }

  async function ourContainerIds(): Promise<string[]> {
    return (await handlers['swarm:list']({ engineId: 'local' })).map((c) => c.id);
  }

  beforeAll(async () => {
    app = await startTestApp();
    ({ hub, handlers } = app);
  });

  afterAll(async () => {
    // By label: also a Start that failed half-way and never reported its id to the test.
    await app?.dispose();
  });

  it('starts a labelled, detached container with Init and reports ENGINE.OFFLINE from its API', async () => {
    const port = await freePort();
    const online = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE');
    const container = await start(port);
    expect(container).toMatchObject({ engineId: 'local', state: 'running', port, networkMode: 'host', image: testbed.fakeSwarmImage });
    const status = await online;
    expect(status).toMatchObject({ containerId: container.id, url: `http://127.0.0.1:${port}`, globalStep: null });

    const info = await docker.getContainer(container.id).inspect();
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

    // A second server on the same port is refused before Docker is asked.
    await expect(start(port)).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT' });

    // After an app restart, a fresh set of services finds the container by its labels again.
    // (Its events go to its own hub; wait on the statuses it serves, which follow the same polls.)
    const restarted = await startTestApp({ dataDir: app.dataDir });
    try {
      await expect
        .poll(async () => (await restarted.handlers['swarm:statuses']({})).find((s) => s.containerId === container.id), { timeout: 30_000 })
        .toMatchObject({ connection: 'online', engineStatus: 'ENGINE.OFFLINE' });
    } finally {
      await restarted.stop();
    }

    const stoppedEvent = waitForEvent(hub, 'swarm:status', (s) => s.containerId === container.id && s.connection === 'stopped');
    const stopped = await handlers['swarm:stop']({ engineId: 'local', containerId: container.id });
    expect(stopped.state).toBe('exited');
    // 143 = ended by SIGTERM, which Init forwarded; 137 would mean Docker had to SIGKILL it.
    expect((await docker.getContainer(container.id).inspect()).State.ExitCode).toBe(143);
    await stoppedEvent;
    // A stopped server keeps a status that says it was stopped (no engine reading), until removed.
    const afterStop = (await handlers['swarm:statuses']({})).find((s) => s.containerId === container.id);
    expect(afterStop).toMatchObject({ connection: 'stopped', engineStatus: null, globalStep: null, exit: { kind: 'stopped', code: 143 } });

    await expect(handlers['swarm:remove']({ engineId: 'local', containerId: container.id })).resolves.toEqual({ removed: true });
    expect(await ourContainerIds()).not.toContain(container.id);
    await expect(docker.getContainer(container.id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await handlers['swarm:statuses']({})).map((s) => s.containerId)).not.toContain(container.id);
  });

  it('says PORT_IN_USE when something already listens on the port, and creates nothing', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    const before = await ourContainerIds();
    try {
      await expect(start(port)).rejects.toMatchObject({ code: 'PORT_IN_USE', message: expect.stringContaining(`Port ${port}`) });
    } finally {
      blocker.close();
    }
    expect(await ourContainerIds()).toEqual(before);
  });

  it('says IMAGE_NOT_FOUND with the pull command for a missing image', async () => {
    const image = '127.0.0.1:5000/agentswarm-test/not-there:1';
    await expect(start(await freePort(), { image })).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
      message: expect.stringContaining(`docker pull ${image}`),
    });
  });

  it('removes the half-created container when Docker cannot start it (GPUs without NVIDIA runtime)', async () => {
    const before = await ourContainerIds();
    await expect(start(await freePort(), { gpus: true })).rejects.toMatchObject({
      code: 'CONTAINER_START_FAILED',
      message: expect.stringMatching(/GPU/),
    });
    expect(await ourContainerIds()).toEqual(before);
  });

  it('notices a swarm container that died on its own', async () => {
    const port = await freePort();
    const container = await start(port);
    await waitForEvent(hub, 'swarm:status', (s) => s.containerId === container.id && s.connection === 'online');
    const gone = waitForEvent(hub, 'swarm:status', (s) => s.containerId === container.id && s.connection === 'stopped');
    const listChanged = waitForEvent(hub, 'swarm:containers-changed', (p) => p.engineId === 'local');
    await docker.getContainer(container.id).kill();
    expect((await gone).exit).toMatchObject({ kind: 'killed', code: 137 });
    await listChanged;
    const listed = (await handlers['swarm:list']({ engineId: 'local' })).find((c) => c.id === container.id);
    expect(listed?.state).toBe('exited');
  });

  it('says why a swarm server that crashed at start ended: exit code and last output', async () => {
    // A variant of the fake image whose `ajet-swarm start` fails like a broken install would.
    const base = await docker.createContainer({ Image: testbed.fakeSwarmImage, Cmd: ['ajet-swarm', 'start'], Labels: TEST_CONTAINER_LABELS });
    const crashImage = 'agentswarm-test/fake-swarm-crashing:1';
    await base.commit({ repo: 'agentswarm-test/fake-swarm-crashing', tag: '1', changes: ['ENV AJET_FAKE_EXIT_ON_START=3'] });
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
      const listed = (await handlers['swarm:list']({ engineId: 'local' })).find((c) => c.id === container.id);
      expect(listed?.state).toBe('exited'); // kept, so its logs stay readable
    } finally {
      await docker.getImage(crashImage).remove({ force: true }).catch(() => undefined);
    }
  });

  it('stops watching a swarm container removed behind its back (docker rm -f)', async () => {
    const container = await start(await freePort());
    await waitForEvent(hub, 'swarm:status', (s) => s.containerId === container.id && s.connection === 'online');
    const gone = waitForEvent(hub, 'swarm:status', (s) => s.containerId === container.id && s.connection === 'stopped');
    await docker.getContainer(container.id).remove({ force: true });
    await gone;
    // The `die` event may end the watch (with its exit) before Docker has removed the container;
    // its `destroy` event then drops the row.
    await expect.poll(async () => (await handlers['swarm:statuses']({})).map((s) => s.containerId), { timeout: 10_000 }).not.toContain(container.id);
    expect(await ourContainerIds()).not.toContain(container.id);
  });

  it('refuses to stop or remove a container the app did not start', async () => {
    // Only the test label (for cleanup), none of the app's: to the app it is someone else's container.
    const foreign = await docker.createContainer({ Image: testbed.fakeSwarmImage, Cmd: ['ajet-swarm', 'start'], Labels: TEST_CONTAINER_LABELS, HostConfig: { NetworkMode: 'host' } });
    await expect(handlers['swarm:stop']({ engineId: 'local', containerId: foreign.id })).rejects.toMatchObject({
      code: 'CONTAINER_NOT_FOUND',
      message: expect.stringContaining('not started by AgentSwarm Desktop'),
    });
    await expect(handlers['swarm:remove']({ engineId: 'local', containerId: foreign.id })).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
    await expect(docker.getContainer(foreign.id).inspect()).resolves.toBeDefined();
  });
});
