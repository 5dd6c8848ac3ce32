import { describe, expect, it } from 'vitest';
import { mapPodmanError, podmanCause } from '../../../../electron/services/engines/podman-errors';
import { localPodmanWording, sshPodmanWording } from '../../../../electron/services/engines/podman-wording';

/** An error shaped exactly as dockerode/docker-modem builds it from Podman's answer (seen against Podman 4.3.1). */
function podmanError(statusCode: number, reason: string, body: { cause: string; message: string }) {
  return Object.assign(new Error(`(HTTP code ${statusCode}) ${reason} - ${body.message} `), { statusCode, reason, json: { ...body, response: statusCode } });
}

const endpoint = 'unix:///run/podman/podman.sock';
const wording = localPodmanWording(false);
const context = { endpoint, wording };

describe('mapPodmanError: each Podman answer that differs from Docker', () => {
  it('a name conflict (500, not 409) is CONTAINER_CONFLICT', () => {
    const error = podmanError(500, 'server error', {
      cause: 'that name is already in use',
      message:
        'container create: creating container storage: the container name "probe-x" is already in use by 5fb0855b9c49ca637a7e27689d9e4d6cb47c279b72b61f92f20c136d875d7e1f. You have to remove that container to be able to reuse that name: that name is already in use',
    });
    const mapped = mapPodmanError(error, context);
    expect(mapped.code).toBe('CONTAINER_CONFLICT');
    expect(mapped.message).toMatch(/^Podman refused: .*"probe-x" is already in use/);
  });

  it('a missing image (compat 404 and libpod 500 "image not known") is IMAGE_NOT_FOUND with podman pull', () => {
    const compat = podmanError(404, 'no such container', { cause: 'image not known', message: 'no such image: docker.io/nope/nope:1: image not known' });
    expect(mapPodmanError(compat, { ...context, image: 'nope/nope:1' })).toMatchObject({ code: 'IMAGE_NOT_FOUND', message: expect.stringContaining('podman pull nope/nope:1') });
    const libpod = podmanError(500, 'server error', { cause: 'image not known', message: 'nope/nope:1: image not known' });
    expect(mapPodmanError(libpod, context)).toMatchObject({ code: 'IMAGE_NOT_FOUND', message: expect.stringContaining('podman pull nope/nope:1') });
  });

  it('a removed container is CONTAINER_NOT_FOUND', () => {
    const error = podmanError(404, 'no such container', {
      cause: 'no such container',
      message: 'no container with name or ID "4e03881639a8" found: no such container',
    });
    expect(mapPodmanError(error, context)).toMatchObject({ code: 'CONTAINER_NOT_FOUND', message: expect.stringContaining('no container with name or ID') });
  });

  it('reads the {cause, message, response} body, and the cause when the message is not there', () => {
    const body = { cause: 'that name is already in use', message: '' };
    const error = Object.assign(new Error('(HTTP code 500) server error - '), { statusCode: 500, json: { ...body, response: 500 } });
    expect(podmanCause(error)).toBe('that name is already in use');
    expect(mapPodmanError(error, context).code).toBe('CONTAINER_CONFLICT');
    expect(podmanCause({ json: 'not json' })).toBe('');
  });

  it('a port conflict (500 cannot listen) is PORT_IN_USE naming the port', () => {
    const error = podmanError(500, 'server error', {
      cause: 'address already in use',
      message: 'cannot listen on the TCP port: listen tcp4 127.0.0.1:10086: bind: address already in use',
    });
    expect(mapPodmanError(error, context)).toMatchObject({ code: 'PORT_IN_USE', message: expect.stringContaining('Port 10086') });
  });

  it('a GPU request without a CDI spec says how to generate one', () => {
    const start = podmanError(500, 'server error', { cause: 'unresolvable CDI devices nvidia.com/gpu=all', message: 'setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all' });
    const mapped = mapPodmanError(start, context);
    expect(mapped.code).toBe('CONTAINER_START_FAILED');
    expect(mapped.message).toContain('sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml');
    const compatDevices = podmanError(500, 'server error', { cause: 'no such file or directory', message: 'container create: stat nvidia.com/gpu=all: no such file or directory' });
    expect(mapPodmanError(compatDevices, context).message).toContain('CDI');
  });

  it('a missing init binary says to install catatonit or set init_path', () => {
    const error = podmanError(500, 'server error', {
      cause: 'no such file or directory',
      message: 'container-init binary not found on the host: stat /usr/libexec/podman/catatonit: no such file or directory',
    });
    const mapped = mapPodmanError(error, context);
    expect(mapped.code).toBe('CONTAINER_START_FAILED');
    expect(mapped.message).toMatch(/install catatonit/i);
    expect(mapped.message).toContain('init_path');
  });

  it('a socket nobody serves is ENGINE_UNREACHABLE with the command that starts the service', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED /run/user/1001/podman/podman.sock'), { code: 'ECONNREFUSED' });
    const local = mapPodmanError(refused, { endpoint: 'unix:///run/user/1001/podman/podman.sock', wording: localPodmanWording(true) });
    expect(local.code).toBe('ENGINE_UNREACHABLE');
    expect(local.message).toContain('systemctl --user enable --now podman.socket');
    const ssh = mapPodmanError(refused, { endpoint: 'ssh://alice@gpu:22', wording: sshPodmanWording('gpu', 'alice', { rootless: true }) });
    expect(ssh.message).toContain('not running for alice on gpu');
    expect(ssh.message).toContain('loginctl enable-linger alice');
    expect(ssh.message).toContain('podman system service --time=0');
  });

  it('leaves Docker-shaped answers to the Docker mapping, in Podman\'s words', () => {
    const conflict409 = { statusCode: 409, json: { message: 'Conflict. The container name "/x" is already in use' } };
    expect(mapPodmanError(conflict409, context).code).toBe('CONTAINER_CONFLICT');
    const other = podmanError(500, 'server error', { cause: 'boom', message: 'something else broke' });
    expect(mapPodmanError(other, context)).toMatchObject({ code: 'CONTAINER_START_FAILED', message: 'Podman error: something else broke' });
  });
});
