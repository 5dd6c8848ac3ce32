// Each row of the Podman facts' "Different from Docker" table, through the Podman engine against the test bed's
// REAL rootful Podman 4.3: the same typed errors the Docker engine gives, and never a silently GPU-less container.
// Needs `bash test/testbed/testbed.sh up` (with Podman).
import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AppError } from '../../electron/shared/errors';
import type { ContainerEngine, ContainerSpec } from '../../electron/services/engines/container-engine';
import { createLocalDockerEngine } from '../../electron/services/engines/local-docker';
import { createLocalPodmanEngine } from '../../electron/services/engines/podman';
import { podmanCause } from '../../electron/services/engines/podman-errors';
import { loadTestbedWithPodman } from '../testbed/testbed';
import { freePort } from '../support/helpers';
import { podmanBedService } from '../support/podman-bed';
import { removeTestContainers, TEST_CONTAINER_LABELS } from '../support/test-app';

const tb = loadTestbedWithPodman();
const rootful = podmanBedService('rootful', tb);
const socket = `unix://${tb.podman.rootful.socket}`;
const CASE = 'agentswarm.test.case';
const engine = createLocalPodmanEngine(socket);
// Set up as Docker, answered by Podman: must end up with Podman's errors and GPU mapping all the same.
const labelledDocker = createLocalDockerEngine(socket);

/** The fake swarm with `labels` (always TEST_CONTAINER_LABELS, so the cleanup finds it) and this case's label. */
function spec(labels: Record<string, string>, name: string, port: number, overrides: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    name,
    image: tb.podman.image,
    cmd: ['ajet-swarm', 'start', '--swarm-port', String(port)],
    env: {},
    labels: { ...labels, [CASE]: 'podman-errors' },
    network: { mode: 'host' },
    init: true,
    gpus: { mode: 'none' },
    shm: { mode: 'size', bytes: 64 * 1024 * 1024 },
    binds: [],
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a rejection');
}

afterEach(async () => {
  await removeTestContainers();
});

afterAll(async () => {
  await engine.dispose();
  await labelledDocker.dispose();
});

describe('Podman answers that differ from Docker, as the same typed errors', () => {
  it('a name conflict (Podman: 500, Docker: 409) is CONTAINER_CONFLICT', async () => {
    const port = await freePort();
    await engine.createContainer(spec(TEST_CONTAINER_LABELS, `agentswarm-podman-conflict-${port}`, port));
    const error = await rejection(engine.createContainer(spec(TEST_CONTAINER_LABELS, `agentswarm-podman-conflict-${port}`, port)));
    expect(error).toMatchObject({ code: 'CONTAINER_CONFLICT', message: expect.stringMatching(/^Podman refused: .*is already in use/) });
    // Through the libpod create (the GPU path) too: same name, same code.
    const viaLibpod = await rejection(engine.createContainer(spec(TEST_CONTAINER_LABELS, `agentswarm-podman-conflict-${port}`, port, { gpus: { mode: 'all' } })));
    expect(viaLibpod.code).toBe('CONTAINER_CONFLICT');
  });

  it('a missing image ("image not known", compat 404 and libpod 500) is IMAGE_NOT_FOUND with podman pull', async () => {
    const image = '127.0.0.1:5000/agentswarm-test/not-there:1';
    for (const gpus of [{ mode: 'none' }, { mode: 'all' }] as const) {
      const error = await rejection(engine.createContainer(spec(TEST_CONTAINER_LABELS, 'agentswarm-podman-noimage', 1, { image, gpus })));
      expect(error).toMatchObject({ code: 'IMAGE_NOT_FOUND', message: expect.stringContaining(`podman pull ${image}`) });
    }
    expect(await engine.imageExists(image)).toBe(false);
    expect(await engine.inspectImage(image)).toBeNull();
  });

  it('a removed container ("no container with name or ID … found") is CONTAINER_NOT_FOUND for every call', async () => {
    const port = await freePort();
    const id = await engine.createContainer(spec(TEST_CONTAINER_LABELS, `agentswarm-podman-removed-${port}`, port));
    await engine.removeContainer(id);
    // One call at a time: made all at once, a call rejecting while an earlier one is awaited has no
    // handler yet (an unhandled rejection).
    const calls = [
      () => engine.inspectContainer(id),
      () => engine.startContainer(id),
      () => engine.stopContainer(id, 1),
      () => engine.removeContainer(id),
      () => engine.readLog(id, { tail: 10 }),
    ];
    for (const call of calls) {
      expect(await rejection(call())).toMatchObject({ code: 'CONTAINER_NOT_FOUND', message: expect.stringContaining('no container with name or ID') });
    }
  });

  it('reads the {cause, message, response} body dockerode keeps in error.json', async () => {
    const raw = await rootful.docker
      .getContainer('agentswarm-podman-never-made')
      .inspect()
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(raw).toMatchObject({ statusCode: 404, json: { cause: 'no such container', message: expect.stringContaining('no container with name or ID'), response: 404 } });
    expect(podmanCause(raw)).toBe('no such container');
  });

  it('a port taken on the host is PORT_IN_USE naming the port (500 cannot listen on the TCP port)', async () => {
    const port = await freePort();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const id = await engine.createContainer(spec(TEST_CONTAINER_LABELS, `agentswarm-podman-port-${port}`, 10086, { network: { mode: 'publish', ports: [{ containerPort: 10086, hostIp: '127.0.0.1', hostPort: port }] } }));
      const error = await rejection(engine.startContainer(id, { port }));
      expect(error).toMatchObject({ code: 'PORT_IN_USE', message: expect.stringContaining(`Port ${port}`) });
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe('a GPU request on Podman', () => {
  it('is never a silently GPU-less container: created through libpod as CDI devices, its start fails with the CDI fix', async () => {
    for (const [which, subject] of [['Podman engine', engine], ['engine set up as Docker', labelledDocker]] as [string, ContainerEngine][]) {
      await subject.health();
      const port = await freePort();
      const id = await subject.createContainer(spec(TEST_CONTAINER_LABELS, `agentswarm-podman-gpu-${port}`, port, { gpus: { mode: 'all' } }));
      // The compat API would have dropped the request (see below); libpod kept it as a CDI device, which Podman
      // cannot resolve here (no CDI spec on this machine): the start fails, saying so.
      const error = await rejection(subject.startContainer(id, { port }));
      expect(error.code, which).toBe('CONTAINER_START_FAILED');
      expect(error.message, which).toContain('sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml');
      expect(error.message, which).toContain('unresolvable CDI devices nvidia.com/gpu=all');
      expect((await subject.inspectContainer(id)).state, which).not.toBe('running');
    }
  });

  it('names each requested GPU by index', async () => {
    const port = await freePort();
    const id = await engine.createContainer(spec(TEST_CONTAINER_LABELS, `agentswarm-podman-gpu-ids-${port}`, port, { gpus: { mode: 'ids', ids: ['0', '1'] } }));
    const error = await rejection(engine.startContainer(id, { port }));
    expect(error.message).toMatch(/unresolvable CDI devices nvidia\.com\/gpu=0/);
  });

  it('shows why the compat API cannot be used: its DeviceRequests are dropped without an error', async () => {
    const created = await rootful.docker.createContainer({
      name: `agentswarm-podman-compat-gpu-${await freePort()}`,
      Image: tb.podman.image,
      Cmd: ['ajet-swarm', 'start'],
      Labels: { ...TEST_CONTAINER_LABELS, [CASE]: 'podman-errors' },
      HostConfig: { DeviceRequests: [{ Driver: '', Count: -1, Capabilities: [['gpu']] }] },
    });
    expect((await created.inspect()).HostConfig.DeviceRequests ?? null).toBeNull();
  });
});
