import { describe, expect, it } from 'vitest';
import { dockerMessage, mapDockerError } from '../../../electron/services/engines/docker-errors';
import type { EngineWording } from '../../../electron/services/engines/engine-wording';
import {
  dockerOptionsFor,
  isLoopbackPortFree,
  LOCAL_DOCKER_WORDING,
  resolveLocalDockerHost,
} from '../../../electron/services/engines/local-docker';
import net from 'node:net';

const endpoint = 'unix:///var/run/docker.sock';
const wording = LOCAL_DOCKER_WORDING;

// Error objects shaped exactly as dockerode/docker-modem produce them (seen against the real dockerd).
describe('mapDockerError', () => {
  it('explains a missing daemon and a permission problem with the fix', () => {
    const missing = mapDockerError(Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT' }), { endpoint, wording });
    expect(missing.code).toBe('ENGINE_UNREACHABLE');
    expect(missing.message).toContain(endpoint);
    expect(missing.message).toMatch(/DOCKER_HOST/);
    const denied = mapDockerError(Object.assign(new Error('connect EACCES /var/run/docker.sock'), { code: 'EACCES' }), { endpoint, wording });
    expect(denied.code).toBe('ENGINE_PERMISSION_DENIED');
    expect(denied.message).toContain('usermod -aG docker');
  });

  it('maps Docker API status codes', () => {
    const noImage = { statusCode: 404, json: { message: 'No such image: x/y:1' }, message: '(HTTP code 404) no such container - No such image: x/y:1' };
    expect(mapDockerError(noImage, { endpoint, wording, image: 'x/y:1' })).toMatchObject({ code: 'IMAGE_NOT_FOUND', message: expect.stringContaining('docker pull x/y:1') });
    const noContainer = { statusCode: 404, json: { message: 'No such container: abc' } };
    expect(mapDockerError(noContainer, { endpoint, wording }).code).toBe('CONTAINER_NOT_FOUND');
    expect(mapDockerError({ statusCode: 409, json: { message: 'Conflict. The container name is already in use' } }, { endpoint, wording }).code).toBe('CONTAINER_CONFLICT');
    const port = { statusCode: 500, json: { message: 'driver failed programming external connectivity: Bind for 127.0.0.1:10086 failed: port is already allocated' } };
    expect(mapDockerError(port, { endpoint, wording, port: 10086 })).toMatchObject({ code: 'PORT_IN_USE', message: expect.stringContaining('Port 10086') });
    const gpu = { statusCode: 500, json: { message: 'could not select device driver "" with capabilities: [[gpu]]' } };
    expect(mapDockerError(gpu, { endpoint, wording })).toMatchObject({ code: 'CONTAINER_START_FAILED', message: expect.stringContaining('NVIDIA') });
  });

  it('words every fix with the engine\'s own wording, never Docker\'s, for another engine on the Docker API', () => {
    // A Podman socket speaks the Docker API; its errors must name podman's fixes, not docker's.
    const podman: EngineWording = {
      product: 'Podman',
      pullImage: (image) => `Pull it first (podman pull ${image}).`,
      unreachable: () => 'Is the Podman socket running (systemctl --user start podman.socket)?',
      permissionDenied: () => 'Use the rootless socket of your own user.',
      noGpuRuntime: () => 'Podman here has no CDI spec for the GPUs (nvidia-ctk cdi generate).',
    };
    const context = { endpoint: 'unix:///run/user/1000/podman/podman.sock', wording: podman };
    const errors = [
      mapDockerError(Object.assign(new Error('connect ENOENT'), { code: 'ENOENT' }), context),
      mapDockerError(Object.assign(new Error('connect EACCES'), { code: 'EACCES' }), context),
      mapDockerError({ statusCode: 404, json: { message: 'No such image: x/y:1' } }, { ...context, image: 'x/y:1' }),
      mapDockerError({ statusCode: 409, json: { message: 'name in use' } }, context),
      mapDockerError({ statusCode: 500, json: { message: 'could not select device driver "" with capabilities: [[gpu]]' } }, context),
      mapDockerError({ statusCode: 500, json: { message: 'boom' } }, context),
    ];
    expect(errors.map((e) => e.code)).toEqual([
      'ENGINE_UNREACHABLE',
      'ENGINE_PERMISSION_DENIED',
      'IMAGE_NOT_FOUND',
      'CONTAINER_CONFLICT',
      'CONTAINER_START_FAILED',
      'CONTAINER_START_FAILED',
    ]);
    expect(errors[0]!.message).toMatch(/^Cannot reach Podman at .*podman.socket/);
    expect(errors[2]!.message).toContain('podman pull x/y:1');
    expect(errors[4]!.message).toContain('nvidia-ctk cdi generate');
    for (const error of errors) expect(error.message).not.toMatch(/docker/i);
  });

  it("strips dockerode's HTTP prefix from Docker's message", () => {
    expect(dockerMessage({ message: '(HTTP code 500) server error - boom' })).toBe('boom');
  });
});

describe('local Docker endpoint', () => {
  it('honours DOCKER_HOST and understands unix and tcp forms', () => {
    expect(resolveLocalDockerHost(undefined, { DOCKER_HOST: 'tcp://127.0.0.1:2375' })).toBe('tcp://127.0.0.1:2375');
    expect(dockerOptionsFor('unix:///run/user/1000/docker.sock')).toEqual({ socketPath: '/run/user/1000/docker.sock' });
    expect(dockerOptionsFor('tcp://127.0.0.1:2375')).toEqual({ host: '127.0.0.1', port: 2375, protocol: 'http' });
    expect(() => dockerOptionsFor('ftp://x')).toThrow(/Unsupported DOCKER_HOST/);
  });

  it('sees whether a loopback port is taken', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as net.AddressInfo).port;
    await expect(isLoopbackPortFree(port)).resolves.toBe(false);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(isLoopbackPortFree(port)).resolves.toBe(true);
  });
});
