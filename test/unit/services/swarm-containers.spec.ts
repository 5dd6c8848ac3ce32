import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../electron/shared/errors';
import type { ContainerEngine, ContainerSpec, ContainerSummary } from '../../../electron/services/engines/container-engine';
import { DockerApiEngine, demuxLogBuffer } from '../../../electron/services/engines/docker-api-engine';
import { EngineRegistry } from '../../../electron/services/engines/engine-registry';
import { createLocalDockerEngine, LOCAL_DOCKER_WORDING } from '../../../electron/services/engines/local-docker';
import { EventHub } from '../../../electron/services/events';
import { buildSwarmSpec, SwarmContainers } from '../../../electron/services/swarm/swarm-containers';
import { SwarmMonitor } from '../../../electron/services/swarm/swarm-monitor';

/**
 * TEST DOUBLE: an in-memory ContainerEngine for the orderings real Docker cannot be made to
 * produce on demand (a stop that fails, two Starts racing). Real-Docker behaviour is covered by
 * test/integration/swarm-lifecycle.spec.ts.
 */
class MemoryEngine implements ContainerEngine {
  readonly summary = { id: 'local', kind: 'local-docker' as const, label: 'Memory', endpoint: 'memory://' };
  // Worded unlike Docker on purpose: swarm logic must pass the engine's own fixes through.
  readonly wording = {
    product: 'Memory',
    pullImage: (image: string) => `Load it first (memory load ${image}).`,
    unreachable: () => 'Restart the memory engine.',
    permissionDenied: () => 'Ask for memory access.',
    noGpuRuntime: () => 'The memory engine has no GPUs.',
  };
  images = new Set(['x/y:1']);
  readonly containers = new Map<string, ContainerSummary>();
  failStop = false;
  createDelay: Promise<void> = Promise.resolve();
  private next = 0;

  async health() {
    return { id: 'local', reachable: true, version: 'mem', apiVersion: 'mem', error: null };
  }
  /** Docker's label filter: every label given, with its value. */
  async listContainers(labels: Record<string, string> = {}) {
    return [...this.containers.values()].filter((c) => Object.entries(labels).every(([key, value]) => c.labels[key] === value));
  }
  async inspectContainer(id: string) {
    const c = this.containers.get(id);
    if (!c) throw new AppError('CONTAINER_NOT_FOUND', 'gone');
    return c;
  }
  async imageExists(image: string) {
    return this.images.has(image);
  }
  async createContainer(spec: ContainerSpec) {
    await this.createDelay;
    const id = (++this.next).toString(16).padStart(12, '0');
    this.containers.set(id, { id, name: spec.name, image: spec.image, state: 'created', statusText: 'Created', labels: spec.labels, createdAt: new Date(0).toISOString(), startedAt: null, finishedAt: null, exitCode: null, oomKilled: false });
    return id;
  }
  async startContainer(id: string) {
    const c = await this.inspectContainer(id);
    c.state = 'running';
  }
  async stopContainer(id: string) {
    if (this.failStop) throw new AppError('ENGINE_UNREACHABLE', 'Docker went away');
    (await this.inspectContainer(id)).state = 'exited';
  }
  async removeContainer(id: string) {
    this.containers.delete(id);
  }
  async readLog() {
    return [];
  }
  async isHostPortFree() {
    return true;
  }
  async urlForHostPort(port: number) {
    // Nothing listens there: the monitor stays in "starting", which is all these tests need.
    return `http://127.0.0.1:${port}`;
  }
  // Not used by these tests: the double says so loudly if one ever calls them.
  readonly host = null;
  async info(): Promise<never> {
    throw new Error('MemoryEngine.info is not part of this double');
  }
  async inspectImage() {
    return null;
  }
  async pullImage(): Promise<never> {
    throw new Error('MemoryEngine.pullImage is not part of this double');
  }
  async followLog(): Promise<never> {
    throw new Error('MemoryEngine.followLog is not part of this double');
  }
  watchEvents() {
    return () => undefined;
  }
  async readContainerFile(): Promise<never> {
    throw new Error('MemoryEngine.readContainerFile is not part of this double');
  }
  async execInContainer(): Promise<never> {
    throw new Error('MemoryEngine.execInContainer is not part of this double');
  }
  async dispose() {}
}

/** Resolves once `ready()` holds (checked every few ms, at most 2 s). */
async function poll(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function setup(scope?: Record<string, string>) {
  const engine = new MemoryEngine();
  const engines = new EngineRegistry();
  engines.add(engine);
  const hub = new EventHub();
  const monitor = new SwarmMonitor({ events: hub, intervalMs: 60_000, isContainerRunning: async () => true });
  const containers = new SwarmContainers({ engines, monitor, events: hub, appVersion: 'test', ...(scope ? { scope } : {}) });
  const request = { engineId: 'local', image: 'x/y:1', port: 12000, networkMode: 'host' as const, gpus: false, shmSizeGb: 1 };
  return { engine, engines, monitor, containers, request };
}

describe('SwarmContainers', () => {
  it('refuses a second Start on the same port while the first is still creating', async () => {
    const { engine, containers, request, monitor } = setup();
    let release!: () => void;
    engine.createDelay = new Promise((resolve) => (release = resolve));
    const first = containers.start(request);
    await expect(containers.start(request)).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT', message: expect.stringContaining('already being started') });
    release();
    await expect(first).resolves.toMatchObject({ state: 'running', port: 12000 });
    expect(engine.containers.size).toBe(1);
    // Once the first is running, the running-container check takes over.
    await expect(containers.start(request)).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT', message: expect.stringContaining('already runs') });
    monitor.dispose();
  });

  it('a rediscovery (an SSH server came up) during a Start leaves that port alone: no "ended" record, no released tunnel', async () => {
    const { engine, containers, request, monitor } = setup();
    const released: number[] = [];
    Object.assign(engine, { releaseHostPort: async (port: number) => void released.push(port) });
    let letStart!: () => void;
    const started = new Promise<void>((resolve) => (letStart = resolve));
    const startContainer = engine.startContainer.bind(engine);
    engine.startContainer = async (id: string) => {
      await started;
      await startContainer(id);
    };
    const start = containers.start(request);
    // The container exists (created, not yet started) when the engine's containers are listed again.
    await poll(() => engine.containers.size === 1);
    await containers.resumeWatching('local');
    expect(released).toEqual([]);
    expect(monitor.statuses()).toEqual([]);
    letStart();
    const container = await start;
    expect(monitor.statuses().map((s) => s.containerId)).toEqual([container.id]);
    expect(released).toEqual([]);
    monitor.dispose();
  });

  it('keeps watching a server whose stop failed, and stops watching once a stop succeeds', async () => {
    const { engine, containers, request, monitor } = setup();
    const started = await containers.start(request);
    expect(monitor.isWatching('local', started.id)).toBe(true);
    engine.failStop = true;
    await expect(containers.stop('local', started.id)).rejects.toMatchObject({ code: 'ENGINE_UNREACHABLE' });
    expect(monitor.isWatching('local', started.id)).toBe(true);
    engine.failStop = false;
    await expect(containers.stop('local', started.id)).resolves.toMatchObject({ state: 'exited' });
    expect(monitor.isWatching('local', started.id)).toBe(false);
    monitor.dispose();
  });
});

/** TEST DOUBLE of an engine whose servers wait in a queue (a Slurm cluster): started = queued until `run`. */
class QueueEngine extends MemoryEngine {
  readonly queuesJobs = true;
  /** How many URL requests fail before one succeeds (a job writes its endpoint a moment after it runs). */
  urlFails = 0;
  override async startContainer(id: string) {
    (await this.inspectContainer(id)).statusText = 'queued: Resources (position 1)';
  }
  run(id: string) {
    Object.assign(this.containers.get(id)!, { state: 'running', statusText: 'Up 1 second' });
  }
  override async urlForHostPort(port: number) {
    if (this.urlFails > 0) {
      this.urlFails -= 1;
      throw new AppError('SWARM_UNREACHABLE', 'no endpoint file yet');
    }
    return super.urlForHostPort(port);
  }
}

function setupQueue() {
  const engine = new QueueEngine();
  const engines = new EngineRegistry();
  engines.add(engine);
  const hub = new EventHub();
  const monitor = new SwarmMonitor({ events: hub, intervalMs: 60_000, isContainerRunning: async () => true });
  const containers = new SwarmContainers({ engines, monitor, events: hub, appVersion: 'test', urlRetryMs: 1, urlWaitMs: 5000 });
  const request = { engineId: 'local', image: 'x/y:1', port: 12000, networkMode: 'host' as const, gpus: false, shmSizeGb: 1 };
  return { engine, monitor, containers, request };
}

describe('SwarmContainers with servers that wait in a queue', () => {
  it('start returns the server queued and unwatched; a second start on its port is refused; it is watched once it runs and has a URL', async () => {
    const { engine, containers, request, monitor } = setupQueue();
    const queued = await containers.start(request);
    expect(queued).toMatchObject({ state: 'created', statusText: 'queued: Resources (position 1)' });
    expect(monitor.isWatching('local', queued.id)).toBe(false);
    await expect(containers.start(request)).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT', message: expect.stringContaining('waits in the queue for port 12000') });
    expect(engine.containers.size).toBe(1);
    expect(await containers.adoptStarted('local', queued.id), 'still queued: nothing to adopt').toBe(false);

    engine.run(queued.id);
    engine.urlFails = 3;
    expect(await containers.adoptStarted('local', queued.id)).toBe(true);
    expect(monitor.isWatching('local', queued.id)).toBe(true);
    expect(await containers.adoptStarted('local', queued.id), 'already watched').toBe(false);
    monitor.dispose();
  });

  it('after a restart, queued servers are skipped and one that cannot be reached does not keep the others unwatched', async () => {
    const { engine, containers, request, monitor } = setupQueue();
    const a = await containers.start(request);
    const b = await containers.start({ ...request, port: 12001 });
    const c = await containers.start({ ...request, port: 12002 });
    engine.run(b.id);
    engine.run(c.id);
    // The first URL asked for fails once: that server is adopted in the background, the other watched at once.
    engine.urlFails = 1;
    await containers.resumeWatching();
    expect(monitor.isWatching('local', a.id)).toBe(false);
    expect(monitor.statuses().some((s) => s.containerId === a.id), 'a queued server has no ended status either').toBe(false);
    await expect.poll(() => monitor.isWatching('local', b.id) && monitor.isWatching('local', c.id)).toBe(true);
    containers.dispose();
    monitor.dispose();
  });
});

describe('SwarmContainers on an engine that words its own fixes', () => {
  it('with a scope (a test run of its own on a shared dockerd), lists, finds again and adopts only the servers that carry its labels', async () => {
    const { engine, engines, containers, request, monitor } = setup({ 'io.agentswarm.app-version': 'test' });
    const ours = await containers.start(request);
    const theirs = await containers.start({ ...request, port: 12001 });
    engine.containers.get(theirs.id)!.labels = { ...engine.containers.get(theirs.id)!.labels, 'io.agentswarm.app-version': 'other' };
    expect((await containers.list('local')).map((c) => c.id)).toEqual([ours.id]);
    monitor.forget('local', ours.id);
    monitor.forget('local', theirs.id);
    await containers.resumeWatching('local');
    expect(monitor.isWatching('local', ours.id)).toBe(true);
    expect(monitor.isWatching('local', theirs.id)).toBe(false);
    await expect(containers.adoptStarted('local', theirs.id)).resolves.toBe(false);
    expect(monitor.isWatching('local', theirs.id)).toBe(false);
    // Without a scope, every server the app labelled is ours, whatever its version.
    const unscoped = new SwarmContainers({ engines, monitor, events: new EventHub(), appVersion: 'test' });
    expect((await unscoped.list('local')).map((c) => c.id).sort()).toEqual([ours.id, theirs.id].sort());
    monitor.dispose();
  });

  it("names the engine's own fix for a missing image, never docker pull", async () => {
    const { engine, containers, request, monitor } = setup();
    engine.images.clear();
    const failure = await containers.start(request).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'IMAGE_NOT_FOUND', message: expect.stringContaining('memory load x/y:1') });
    expect((failure as AppError).message).not.toMatch(/docker/i);
    expect(engine.containers.size).toBe(0);
    monitor.dispose();
  });
});

describe('the container Docker is asked to create', () => {
  it('publishes the swarm port on 127.0.0.1 only by default, with Init and labels', async () => {
    const bodies: Docker.ContainerCreateOptions[] = [];
    // TEST DOUBLE for dockerode's createContainer only: the publish mode needs a bridge network,
    // which the test bed's dockerd deliberately lacks (network rule), so its body is checked here.
    const fakeDocker = {
      createContainer: async (options: Docker.ContainerCreateOptions) => {
        bodies.push(options);
        return { id: 'f'.repeat(64) };
      },
    } as unknown as Docker;
    const engine = new DockerApiEngine({
      summary: { id: 'local', kind: 'local-docker', label: 'Local Docker', endpoint: 'unix:///x' },
      wording: LOCAL_DOCKER_WORDING,
      docker: fakeDocker,
      isHostPortFree: async () => true,
      urlForHostPort: async (port) => `http://127.0.0.1:${port}`,
      host: null,
    });
    const spec = buildSwarmSpec({ engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main', port: 10086, networkMode: 'publish', gpus: true, shmSizeGb: 32 }, '1.2.3');
    await engine.createContainer(spec);
    const body = bodies[0];
    expect(body?.Cmd).toEqual(['ajet-swarm', 'start', '--swarm-port', '10086']);
    expect(body?.ExposedPorts).toEqual({ '10086/tcp': {} });
    expect(body?.HostConfig?.PortBindings).toEqual({ '10086/tcp': [{ HostIp: '127.0.0.1', HostPort: '10086' }] });
    expect(body?.HostConfig?.NetworkMode).toBe('bridge');
    expect(body?.HostConfig?.Init).toBe(true);
    expect(body?.HostConfig?.ShmSize).toBe(32 * 1024 ** 3);
    expect(body?.HostConfig?.DeviceRequests).toEqual([{ Driver: '', Count: -1, Capabilities: [['gpu']] }]);
    expect(body?.Labels).toMatchObject({ 'io.agentswarm.managed': 'true', 'io.agentswarm.role': 'swarm-server', 'io.agentswarm.port': '10086', 'io.agentswarm.network': 'publish', 'io.agentswarm.app-version': '1.2.3' });
    expect(body?.name).toMatch(/^agentswarm-swarm-10086-[0-9a-f]{6}$/);
  });
});

describe('Local Docker with a DOCKER_HOST it cannot use', () => {
  it('still registers, reports why, and does not echo the whole value', async () => {
    const engine = createLocalDockerEngine('ssh://alice@gpu-box.example');
    const health = await engine.health();
    expect(health.reachable).toBe(false);
    expect(health.error?.code).toBe('ENGINE_UNREACHABLE');
    expect(health.error?.message).toContain('"ssh://"');
    expect(JSON.stringify(health) + engine.summary.endpoint).not.toContain('alice');
    await expect(engine.listContainers({})).rejects.toMatchObject({ code: 'ENGINE_UNREACHABLE' });
  });

  it('reaches the swarm port on the Docker host named by a tcp:// DOCKER_HOST', async () => {
    // Only a URL is computed here; nothing is contacted.
    await expect(createLocalDockerEngine('tcp://docker-host.example:2375').urlForHostPort(10086)).resolves.toBe('http://docker-host.example:10086');
    await expect(createLocalDockerEngine('tcp://localhost:2375').urlForHostPort(10086)).resolves.toBe('http://127.0.0.1:10086');
  });
});

describe('demuxLogBuffer', () => {
  it("splits Docker's multiplexed stdout/stderr frames and passes plain text through", () => {
    const frame = (stream: number, text: string) => {
      const body = Buffer.from(text);
      const header = Buffer.alloc(8);
      header[0] = stream;
      header.writeUInt32BE(body.length, 4);
      return Buffer.concat([header, body]);
    };
    expect(demuxLogBuffer(Buffer.concat([frame(1, 'out line\n'), frame(2, 'err line\n')]))).toBe('out line\nerr line\n');
    expect(demuxLogBuffer(Buffer.from('tty output\n'))).toBe('tty output\n');
  });
});
