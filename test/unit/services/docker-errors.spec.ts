import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { dockerMessage, mapDockerError, MAX_SHOWN_DOCKER_CHARS } from '../../../electron/services/engines/docker-errors';
import type { EngineWording } from '../../../electron/services/engines/engine-wording';
import { runHandler } from '../../../electron/services/ipc/run-handler';
import { AppLog } from '../../../electron/services/util/app-log';
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

  // What dockerd sends back when the OCI runtime panics (shape seen in the wild), shortened.
  const panic = [
    '',
    'failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: panic: runtime error: invalid memory address or nil pointer dereference',
    '',
    'goroutine 1 [running]:',
    'github.com/opencontainers/runc/libcontainer.(*linuxContainer).Start(0x0)',
    '\t/go/src/github.com/opencontainers/runc/libcontainer/container_linux.go:280 +0x3a',
    'main.main()',
    '\t/go/src/github.com/opencontainers/runc/main.go:145 +0x1f',
    'LAST-LINE-MARKER',
  ].join('\n');

  it('shows only the first meaningful line of a multi-line Docker error, capped, and keeps the rest as the cause', () => {
    const error = Object.assign(new Error(`(HTTP code 500) server error - ${panic}`), { statusCode: 500, json: { message: panic } });
    const mapped = mapDockerError(error, { endpoint, wording });
    expect(mapped.code).toBe('CONTAINER_START_FAILED');
    expect(mapped.message).toMatch(/^Docker error: failed to create task for container/);
    expect(mapped.message).toContain('(full text in the app log)');
    expect(mapped.message).not.toContain('goroutine');
    expect(mapped.message).not.toContain('\n');
    expect(mapped.message.length).toBeLessThanOrEqual('Docker error: '.length + MAX_SHOWN_DOCKER_CHARS + ' (full text in the app log)'.length);
    expect(mapped.cause).toBe(error);
  });

  it('caps one enormous line too, for conflict and not-found texts as well', () => {
    const huge = `Conflict. ${'z'.repeat(50_000)}`;
    const conflict = mapDockerError({ statusCode: 409, json: { message: huge } }, { endpoint, wording });
    expect(conflict.code).toBe('CONTAINER_CONFLICT');
    expect(conflict.message.length).toBeLessThan(400);
    expect((conflict.cause as Error).message).toContain(huge);
    const gone = mapDockerError({ statusCode: 404, json: { message: `No such container: abc\n${'q'.repeat(5000)}` } }, { endpoint, wording });
    expect(gone.message).toContain('No such container: abc');
    expect(gone.message).not.toContain('qqq');
  });

  it('a short one-line Docker error is shown whole, unchanged', () => {
    expect(mapDockerError({ statusCode: 500, json: { message: 'invalid reference format' } }, { endpoint, wording }).message).toBe('Docker error: invalid reference format');
  });

  it('writes the whole Docker text to the app log when a request fails with it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentswarm-docker-log-'));
    try {
      const log = new AppLog(dir);
      const error = Object.assign(new Error(`(HTTP code 500) server error - ${panic}`), { statusCode: 500, json: { message: panic } });
      const result = await runHandler(z.object({}), {}, () => { throw mapDockerError(error, { endpoint, wording }); }, log, 'swarm:start');
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain('goroutine');
      const text = await readFile(join(dir, 'app.log'), 'utf8');
      expect(text).toContain('goroutine 1 [running]');
      expect(text).toContain('LAST-LINE-MARKER');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
