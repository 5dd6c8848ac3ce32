// The Podman engine against the test bed's REAL rootful Podman 4.3 service (a private socket, as root):
// product detection, a container made through libpod equal to one made through the compat API, and
// Podman's events in Docker's words. Needs `bash test/testbed/testbed.sh up` (with Podman).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ContainerEngine, ContainerEvent, ContainerSpec } from '../../electron/services/engines/container-engine';
import { createLocalDockerEngine } from '../../electron/services/engines/local-docker';
import { createLocalPodmanEngine } from '../../electron/services/engines/podman';
import { createLibpodContainer } from '../../electron/services/engines/podman-libpod';
import { loadTestbedWithPodman } from '../testbed/testbed';
import { freePort, poll } from '../support/helpers';
import { podmanBedService } from '../support/podman-bed';
import { removeTestContainers, TEST_CONTAINER_LABELS } from '../support/test-app';

const tb = loadTestbedWithPodman();
const rootful = podmanBedService('rootful', tb);
const socket = `unix://${tb.podman.rootful.socket}`;
const CASE = 'agentswarm.test.case';
const engines: ContainerEngine[] = [];
const dir = mkdtempSync(join(tmpdir(), 'agentswarm-podman-engine-'));

function podman(): ContainerEngine {
  const engine = createLocalPodmanEngine(socket);
  engines.push(engine);
  return engine;
}

/** The fake swarm with `labels` (always TEST_CONTAINER_LABELS, so the cleanup finds it) and this case's label. */
function fakeSwarm(labels: Record<string, string>, name: string, port: number, testCase: string): ContainerSpec {
  return {
    name,
    image: tb.podman.image,
    cmd: ['ajet-swarm', 'start', '--swarm-port', String(port)],
    env: { AGENTSWARM_TEST_ENV: 'podman' },
    labels: { ...labels, [CASE]: testCase },
    network: { mode: 'host' },
    init: true,
    gpus: { mode: 'none' },
    shm: { mode: 'size', bytes: 64 * 1024 * 1024 },
    binds: [{ hostPath: dir, containerPath: '/data', readOnly: true }],
  };
}

afterEach(async () => {
  await removeTestContainers();
});

afterAll(async () => {
  await Promise.all(engines.map((e) => e.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

describe('which product answers', () => {
  it('reports Podman, rootful, with its version, for the Podman engine', async () => {
    const engine = podman();
    expect(engine.summary).toEqual({ id: 'local-podman', kind: 'podman', label: 'Local Podman', endpoint: socket });
    const health = await engine.health();
    expect(health).toEqual({ id: 'local-podman', reachable: true, version: tb.podman.version, apiVersion: '1.41', product: 'podman', rootless: false, gpus: { runtime: false, devices: null }, error: null });
    // Known for this connection: the next check is a ping, not Podman's slow /version, and says the same.
    expect(await engine.health()).toEqual(health);
    expect(engine.wording.product).toBe('Podman');
    expect((await engine.info()).rootless).toBe(false);
  });

  it('recognises Podman behind a socket set up as Docker, and speaks Podman from then on', async () => {
    const asDocker = createLocalDockerEngine(socket);
    engines.push(asDocker);
    expect(asDocker.summary.kind).toBe('local-docker');
    expect(asDocker.wording.product).toBe('Docker');
    expect(await asDocker.health()).toMatchObject({ reachable: true, product: 'podman', rootless: false, version: tb.podman.version });
    expect(asDocker.wording.product).toBe('Podman');
    await expect(asDocker.createContainer({ ...fakeSwarm(TEST_CONTAINER_LABELS, 'agentswarm-podman-nope', 1, 'podman-detect'), image: '127.0.0.1:5000/agentswarm-test/not-there:1' })).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
      message: expect.stringContaining('podman pull 127.0.0.1:5000/agentswarm-test/not-there:1'),
    });
  });

  it('still reports Docker for the test bed\'s dockerd', async () => {
    const docker = createLocalDockerEngine(`unix://${tb.dockerSocket}`);
    engines.push(docker);
    expect(await docker.health()).toMatchObject({ reachable: true, product: 'docker', rootless: false });
  });
});

describe('a container made through libpod (the GPU path)', () => {
  it('is the same as one made through the compat API in labels, init, network, shm, env, binds and restart policy, and runs', async () => {
    const engine = podman();
    const [portA, portB] = [await freePort(), await freePort()];
    const compatId = await engine.createContainer(fakeSwarm(TEST_CONTAINER_LABELS, `agentswarm-podman-compat-${portA}`, portA, 'podman-libpod'));
    const libpodId = await createLibpodContainer(rootful.docker, fakeSwarm(TEST_CONTAINER_LABELS, `agentswarm-podman-libpod-${portB}`, portB, 'podman-libpod'));
    const compat = await rootful.docker.getContainer(compatId).inspect();
    const libpod = await rootful.docker.getContainer(libpodId).inspect();
    const essentials = (info: Docker.ContainerInspectInfo) => ({
      labels: info.Config.Labels,
      init: info.HostConfig.Init,
      network: info.HostConfig.NetworkMode,
      shm: info.HostConfig.ShmSize,
      restart: info.HostConfig.RestartPolicy?.Name,
      env: info.Config.Env.filter((e) => e.startsWith('AGENTSWARM_TEST_ENV=')),
      mounts: info.Mounts.map((m) => ({ destination: m.Destination, source: m.Source, rw: m.RW })),
      image: info.Config.Image,
    });
    expect(essentials(libpod)).toEqual(essentials(compat));
    expect(essentials(libpod)).toMatchObject({ init: true, network: 'host', shm: 64 * 1024 * 1024, env: ['AGENTSWARM_TEST_ENV=podman'], mounts: [{ destination: '/data', rw: false }] });
    expect(libpod.Config.Cmd).toEqual(['ajet-swarm', 'start', '--swarm-port', String(portB)]);

    // The engine lists, starts, reads and stops it like any other.
    const listed = await engine.listContainers({ [CASE]: 'podman-libpod' });
    expect(listed.map((c) => c.id).sort()).toEqual([compatId, libpodId].sort());
    await engine.startContainer(libpodId, { port: portB });
    const lines = await poll('the boot banner', 20_000, async () => {
      const log = await engine.readLog(libpodId, { tail: 100 });
      return log.some((l) => l.includes(`http://127.0.0.1:${portB}`)) ? log : undefined;
    });
    expect(lines.join('\n')).toContain('Interchange server is running');
    await engine.stopContainer(libpodId, 5);
    const stopped = await engine.inspectContainer(libpodId);
    // Init forwards SIGTERM: the server exits by itself, long before a kill.
    expect(stopped).toMatchObject({ state: 'exited', exitCode: expect.any(Number) });
    expect(stopped.exitCode).not.toBe(137);
  });
});

describe('events', () => {
  it('arrive in Docker\'s words: start, die, stop (cleanup), destroy (remove)', async () => {
    const engine = podman();
    const port = await freePort();
    const seen: ContainerEvent[] = [];
    const unwatch = engine.watchEvents({ [CASE]: 'podman-events' }, (event) => seen.push(event));
    try {
      // The stream is open once an event comes through it: remove throwaway containers until one's `destroy` does.
      const probes = new Set<string>();
      await poll('the event stream to open', 20_000, async () => {
        const probe = await rootful.docker.createContainer({ Image: tb.podman.image, Cmd: ['true'], Labels: { ...TEST_CONTAINER_LABELS, [CASE]: 'podman-events' } });
        probes.add(probe.id);
        await probe.remove({ force: true });
        return seen.some((e) => probes.has(e.containerId) && e.action === 'destroy') ? true : undefined;
      }, 200);
      const id = await engine.createContainer(fakeSwarm(TEST_CONTAINER_LABELS, `agentswarm-podman-events-${port}`, port, 'podman-events'));
      await engine.startContainer(id, { port });
      await poll('the start event', 15_000, async () => (seen.some((e) => e.containerId === id && e.action === 'start') ? true : undefined));
      await engine.stopContainer(id, 5);
      await engine.removeContainer(id);
      await poll('the destroy event', 15_000, async () => (seen.some((e) => e.containerId === id && e.action === 'destroy') ? true : undefined));
      const actions = seen.filter((e) => e.containerId === id).map((e) => e.action);
      expect(actions[0]).toBe('start');
      expect(actions).toContain('die');
      expect(actions).toContain('stop');
      // Podman's second `cleanup` may even come after `remove`: a late `stop` that listeners ignore for a gone container.
      expect(actions.filter((a) => a !== 'stop').at(-1)).toBe('destroy');
      expect(actions.indexOf('die')).toBeLessThan(actions.indexOf('destroy'));
      const die = seen.find((e) => e.containerId === id && e.action === 'die');
      expect(die?.exitCode).toEqual(expect.any(Number));
      expect(die?.labels[CASE]).toBe('podman-events');
    } finally {
      unwatch();
    }
  });
});
