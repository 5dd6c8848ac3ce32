import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../electron/shared/errors';
import type { PullEvent } from '../../../../electron/services/engines/container-engine';
import { pullDockerImage, pullErrorOf, registryOf } from '../../../../electron/services/engines/docker-pull';
import { LOCAL_DOCKER_WORDING } from '../../../../electron/services/engines/local-docker';
import { sshDockerWording } from '../../../../electron/services/engines/ssh-docker';

const AGENTJET = 'ghcr.io/modelscope/agentjet:main';

describe('registryOf', () => {
  it('reads the registry the way Docker does', () => {
    expect(registryOf(AGENTJET)).toBe('ghcr.io');
    expect(registryOf('127.0.0.1:5000/a/b:1')).toBe('127.0.0.1:5000');
    expect(registryOf('localhost/a:1')).toBe('localhost');
    expect(registryOf('modelscope/agentjet:main')).toBe('docker.io');
    expect(registryOf('ubuntu')).toBe('docker.io');
  });
});

describe('pullErrorOf (Docker texts → codes with the image, the registry and the fix)', () => {
  const cases: [string, string, string][] = [
    ['manifest for ghcr.io/modelscope/agentjet:nope not found: manifest unknown: manifest unknown', 'IMAGE_NOT_FOUND', 'not found on ghcr.io'],
    ['Head "https://ghcr.io/v2/x/manifests/1": unauthorized', 'IMAGE_PULL_DENIED', 'docker login ghcr.io'],
    ["pull access denied for nope/nope, repository does not exist or may require 'docker login': denied: requested access to the resource is denied", 'IMAGE_PULL_DENIED', 'docker login'],
    ['Get "https://registry-1.docker.io/v2/": authentication required', 'IMAGE_PULL_DENIED', 'without a registry login'],
    ['Get "http://127.0.0.1:5999/v2/": dial tcp 127.0.0.1:5999: connect: connection refused', 'IMAGE_PULL_FAILED', 'can reach'],
    ['Get "https://ghcr.io/v2/": net/http: TLS handshake timeout', 'IMAGE_PULL_FAILED', 'securely'],
    ['Get "https://r.example/v2/": x509: certificate signed by unknown authority', 'IMAGE_PULL_FAILED', 'certificate'],
    ['unexpected EOF', 'IMAGE_PULL_FAILED', 'can reach'],
    ['failed to register layer: Error processing tar file(exit status 1): write /opt/x: no space left on device', 'IMAGE_PULL_FAILED', 'disk'],
  ];
  it.each(cases)('%s → %s', (text, code, fix) => {
    const error = pullErrorOf(text, AGENTJET, LOCAL_DOCKER_WORDING);
    expect(error.code).toBe(code);
    expect(error.message).toContain(AGENTJET);
    expect(error.message).toContain(fix);
  });

  it('names the AgentJet mirrors for the AgentJet image only', () => {
    expect(pullErrorOf('manifest unknown', AGENTJET, LOCAL_DOCKER_WORDING).message).toContain('ghcr.modelscope.cn/modelscope/agentjet:main or docker.1ms.run/modelscope/agentjet:main');
    expect(pullErrorOf('manifest unknown', 'ubuntu:24.04', LOCAL_DOCKER_WORDING).message).not.toContain('mirror');
  });

  it('shows only the first line of a long Docker text', () => {
    const error = pullErrorOf('unexpected EOF\ngoroutine 1 [running]:\nmain.main()', 'x/y:1', LOCAL_DOCKER_WORDING);
    expect(error.message).not.toContain('goroutine');
  });

  it('an SSH engine words the same texts the same way (the login runs where the engine runs)', () => {
    const error = pullErrorOf('denied: access forbidden', AGENTJET, sshDockerWording('gpu-1', 'alice'));
    expect(error.code).toBe('IMAGE_PULL_DENIED');
    expect(error.message).toContain('where the engine runs (docker login ghcr.io, then docker pull ghcr.io/modelscope/agentjet:main)');
  });
});

/** TEST DOUBLE: dockerode's `pull` answering with a stream we write Docker's messages into, to test the parser and cancel. */
function fakeDocker(response: PassThrough | Error): { docker: Docker; requests: unknown[] } {
  const requests: unknown[] = [];
  const docker = {
    pull: (image: string, options: unknown) => {
      requests.push({ image, options });
      return response instanceof Error ? Promise.reject(response) : Promise.resolve(response);
    },
  } as unknown as Docker;
  return { docker, requests };
}

const failHere = (error: unknown) => new AppError('ENGINE_UNREACHABLE', `engine: ${(error as Error).message}`);

describe('pullDockerImage', () => {
  it('passes each message on, also when JSON lines are split across chunks', async () => {
    const stream = new PassThrough();
    const { docker } = fakeDocker(stream);
    const events: PullEvent[] = [];
    const done = pullDockerImage(docker, 'x/y:1', (e) => events.push(e), new AbortController().signal, failHere, LOCAL_DOCKER_WORDING);
    await Promise.resolve();
    stream.write('{"status":"Pulling from x/y","id":"1"}\n{"status":"Downlo');
    stream.write('ading","progressDetail":{"current":5,"total":10},"progress":"[=>  ]","id":"abc"}\n');
    stream.end('{"status":"Status: Downloaded newer image for x/y:1"}');
    await done;
    expect(events).toEqual([
      { status: 'Pulling from x/y', id: '1' },
      { status: 'Downloading', id: 'abc', progressDetail: { current: 5, total: 10 } },
      { status: 'Status: Downloaded newer image for x/y:1' },
    ]);
  });

  it('an error message in the body rejects with its mapped code', async () => {
    const stream = new PassThrough();
    const { docker } = fakeDocker(stream);
    const done = pullDockerImage(docker, '127.0.0.1:5000/a:1', () => undefined, new AbortController().signal, failHere, LOCAL_DOCKER_WORDING);
    await Promise.resolve();
    stream.write('{"status":"Pulling fs layer","id":"abc"}\n');
    stream.write('{"errorDetail":{"message":"unauthorized: authentication required"},"error":"unauthorized: authentication required"}\n');
    await expect(done).rejects.toMatchObject({ code: 'IMAGE_PULL_DENIED' });
  });

  it('an HTTP error is mapped by its text; a socket error is the engine\'s', async () => {
    const http = Object.assign(new Error('(HTTP code 404) unexpected - manifest for a:1 not found: manifest unknown: manifest unknown '), { statusCode: 404 });
    await expect(pullDockerImage(fakeDocker(http).docker, 'a:1', () => undefined, new AbortController().signal, failHere, LOCAL_DOCKER_WORDING)).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
    });
    const socket = Object.assign(new Error('connect ECONNREFUSED /var/run/docker.sock'), { code: 'ECONNREFUSED' });
    await expect(pullDockerImage(fakeDocker(socket).docker, 'a:1', () => undefined, new AbortController().signal, failHere, LOCAL_DOCKER_WORDING)).rejects.toMatchObject({
      code: 'ENGINE_UNREACHABLE',
    });
  });

  it('cancel closes the response and rejects with an AbortError', async () => {
    const stream = new PassThrough();
    const { docker, requests } = fakeDocker(stream);
    const controller = new AbortController();
    const done = pullDockerImage(docker, 'a:1', () => undefined, controller.signal, failHere, LOCAL_DOCKER_WORDING);
    await Promise.resolve();
    stream.write('{"status":"Downloading","progressDetail":{"current":1,"total":9},"id":"abc"}\n');
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(stream.destroyed).toBe(true);
    // The request itself carries the signal, so a cancel before the answer aborts it too.
    expect(requests).toEqual([{ image: 'a:1', options: { abortSignal: controller.signal } }]);
  });

  it('a response that closes without its end is a failed pull, not a finished one', async () => {
    const stream = new PassThrough();
    const done = pullDockerImage(fakeDocker(stream).docker, 'a:1', () => undefined, new AbortController().signal, failHere, LOCAL_DOCKER_WORDING);
    await Promise.resolve();
    stream.destroy();
    await expect(done).rejects.toMatchObject({ code: 'IMAGE_PULL_FAILED' });
  });
});
