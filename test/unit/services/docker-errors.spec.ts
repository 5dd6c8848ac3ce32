import { describe, expect, it } from 'vitest';
import { dockerMessage, mapDockerError } from '../../../electron/services/engines/docker-errors';
import { dockerOptionsFor, isLoopbackPortFree, resolveLocalDockerHost } from '../../../electron/services/engines/local-docker';
import net from 'node:net';

const endpoint = 'unix:///var/run/docker.sock';

// Error objects shaped exactly as dockerode/docker-modem produce them (seen against the real dockerd).
describe('mapDockerError', () => {
  it('explains a missing daemon and a permission problem with the fix', () => {
    const missing = mapDockerError(Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT' }), { endpoint });
    expect(missing.code).toBe('ENGINE_UNREACHABLE');
    expect(missing.message).toContain(endpoint);
    expect(missing.message).toMatch(/DOCKER_HOST/);
    const denied = mapDockerError(Object.assign(new Error('connect EACCES /var/run/docker.sock'), { code: 'EACCES' }), { endpoint });
    expect(denied.code).toBe('ENGINE_PERMISSION_DENIED');
    expect(denied.message).toContain('usermod -aG docker');
  });

  it('maps Docker API status codes', () => {
    const noImage = { statusCode: 404, json: { message: 'No such image: x/y:1' }, message: '(HTTP code 404) no such container - No such image: x/y:1' };
    expect(mapDockerError(noImage, { endpoint, image: 'x/y:1' })).toMatchObject({ code: 'IMAGE_NOT_FOUND', message: expect.stringContaining('docker pull x/y:1') });
    const noContainer = { statusCode: 404, json: { message: 'No such container: abc' } };
    expect(mapDockerError(noContainer, { endpoint }).code).toBe('CONTAINER_NOT_FOUND');
    expect(mapDockerError({ statusCode: 409, json: { message: 'Conflict. The container name is already in use' } }, { endpoint }).code).toBe('CONTAINER_CONFLICT');
    const port = { statusCode: 500, json: { message: 'driver failed programming external connectivity: Bind for 127.0.0.1:10086 failed: port is already allocated' } };
    expect(mapDockerError(port, { endpoint, port: 10086 })).toMatchObject({ code: 'PORT_IN_USE', message: expect.stringContaining('Port 10086') });
    const gpu = { statusCode: 500, json: { message: 'could not select device driver "" with capabilities: [[gpu]]' } };
    expect(mapDockerError(gpu, { endpoint })).toMatchObject({ code: 'CONTAINER_START_FAILED', message: expect.stringContaining('NVIDIA') });
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
