import { describe, expect, it } from 'vitest';
import type Docker from 'dockerode';
import { DockerApiEngine } from '../../../../electron/services/engines/docker-api-engine';
import { detectedDialect } from '../../../../electron/services/engines/engine-dialect';
import { LOCAL_DOCKER_WORDING } from '../../../../electron/services/engines/local-docker';
import { localPodmanWording } from '../../../../electron/services/engines/podman-wording';

const PODMAN_VERSION = { Version: '4.3.1', ApiVersion: '1.41', Components: [{ Name: 'Podman Engine', Version: '4.3.1' }] };
const DOCKER_VERSION = { Version: '20.10.24+dfsg1', ApiVersion: '1.41', Components: [{ Name: 'Engine', Version: '20.10.24+dfsg1' }] };

/**
 * TEST DOUBLE for the dockerode calls the dialect seam makes (version, ping, info, libpod info via
 * modem.dial, createContainer), so the seam's caching and re-detection can be counted; the real
 * answers are tested against real Podman and Docker in test/integration/podman-*.spec.ts.
 */
function fakeDocker(answer: { product: 'podman' | 'docker' }) {
  const calls: string[] = [];
  let down = false;
  const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const docker = {
    version: async () => {
      calls.push('version');
      if (down) throw refused();
      return answer.product === 'podman' ? PODMAN_VERSION : DOCKER_VERSION;
    },
    ping: async () => {
      calls.push('ping');
      if (down) throw refused();
      return 'OK';
    },
    info: async () => {
      calls.push('info');
      return { SecurityOptions: ['name=seccomp,profile=default'] };
    },
    modem: {
      dial: (options: { path: string }, callback: (error: unknown, data: unknown) => void) => {
        calls.push(`dial ${options.path}`);
        callback(null, { host: { security: { rootless: true } } });
      },
    },
    createContainer: async () => {
      calls.push('create');
      // Podman's answer to a name already taken: a 500, where Docker says 409.
      throw Object.assign(new Error('(HTTP code 500) server error - the container name "x" is already in use by abc'), {
        statusCode: 500,
        json: { cause: 'that name is already in use', message: 'creating container storage: the container name "x" is already in use by abc. You have to remove that container to be able to reuse that name: that name is already in use', response: 500 },
      });
    },
  };
  return { docker: docker as unknown as Docker, calls, setDown: (value: boolean) => (down = value) };
}

function engineOn(docker: Docker) {
  return new DockerApiEngine({
    summary: { id: 'local', kind: 'local-docker', label: 'Local Docker', endpoint: 'unix:///x.sock' },
    docker,
    wording: LOCAL_DOCKER_WORDING,
    dialect: detectedDialect('docker', { docker: () => LOCAL_DOCKER_WORDING, podman: (rootless) => localPodmanWording(rootless) }),
    isHostPortFree: async () => true,
    urlForHostPort: async (port) => `http://127.0.0.1:${port}`,
    host: null,
  });
}

describe('the dialect seam of DockerApiEngine', () => {
  it('detects the product once per connection, then answers health with a ping', async () => {
    const { docker, calls } = fakeDocker({ product: 'podman' });
    const engine = engineOn(docker);
    expect(engine.wording.product).toBe('Docker');
    const first = await engine.health();
    expect(first).toMatchObject({ reachable: true, product: 'podman', rootless: true, version: '4.3.1' });
    // The last `info`: GPUs for containers (issue 32), read once per connection like the version.
    expect(calls).toEqual(['version', 'dial /v4.0.0/libpod/info', 'info']);
    expect(await engine.health()).toEqual(first);
    expect(calls.slice(3)).toEqual(['ping']);
    expect(engine.wording.product).toBe('Podman');
  });

  it('learns the product before wording an HTTP error, so a Podman conflict (500) is CONTAINER_CONFLICT', async () => {
    const { docker, calls } = fakeDocker({ product: 'podman' });
    const engine = engineOn(docker);
    await expect(engine.createContainer({ name: 'x', image: 'i', cmd: [], env: {}, labels: {}, network: { mode: 'host' }, init: true, gpus: { mode: 'none' }, shm: { mode: 'ipc-host' }, binds: [] })).rejects.toMatchObject({
      code: 'CONTAINER_CONFLICT',
      message: expect.stringMatching(/^Podman refused/),
    });
    expect(calls[0]).toBe('version');
  });

  it('asks again after the engine stopped answering, and after forgetDialect (a reconnect)', async () => {
    const { docker, calls, setDown } = fakeDocker({ product: 'docker' });
    const engine = engineOn(docker);
    expect(await engine.health()).toMatchObject({ product: 'docker', rootless: false });
    setDown(true);
    expect(await engine.health()).toMatchObject({ reachable: false, error: { code: 'ENGINE_UNREACHABLE' } });
    setDown(false);
    calls.length = 0;
    expect(await engine.health()).toMatchObject({ reachable: true, product: 'docker' });
    // The dialect's `info`, then the GPUs' (issue 32).
    expect(calls).toEqual(['version', 'info', 'info']);
    engine.forgetDialect();
    calls.length = 0;
    await engine.health();
    expect(calls).toEqual(['version', 'info', 'info']);
  });
});
