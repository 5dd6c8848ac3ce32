import { describe, expect, it } from 'vitest';
import { productOfVersion, rootlessFromDockerInfo, rootlessFromLibpodInfo } from '../../../../electron/services/engines/engine-product';
import { resolveLocalPodmanHost, rootlessBySocketPath } from '../../../../electron/services/engines/podman';

// Bodies of GET /version exactly as answered by Podman 4.3.1 and Docker 20.10.24 (Debian 12), trimmed of long fields.
const PODMAN_VERSION = {
  Platform: { Name: 'linux/amd64/debian-12' },
  Components: [
    { Name: 'Podman Engine', Version: '4.3.1', Details: { APIVersion: '4.3.1', MinAPIVersion: '4.0.0', Os: 'linux' } },
    { Name: 'Conmon', Version: 'conmon version 2.1.6, commit: unknown', Details: { Package: 'conmon_2.1.6+ds1-1_amd64' } },
    { Name: 'OCI Runtime (runc)', Version: 'runc version 1.1.5+ds1', Details: { Package: 'runc_1.1.5+ds1-1+deb12u1_amd64' } },
  ],
  Version: '4.3.1',
  ApiVersion: '1.41',
  MinAPIVersion: '1.24',
  Os: 'linux',
};
const DOCKER_VERSION = {
  Platform: { Name: '' },
  Components: [
    { Name: 'Engine', Version: '20.10.24+dfsg1', Details: { ApiVersion: '1.41', MinAPIVersion: '1.12', Os: 'linux' } },
    { Name: 'containerd', Version: '1.6.20~ds1', Details: { GitCommit: '1.6.20~ds1-1+deb12u3' } },
    { Name: 'runc', Version: '1.1.5+ds1', Details: { GitCommit: '1.1.5+ds1-1+deb12u1' } },
    { Name: 'docker-init', Version: '0.19.0', Details: { GitCommit: '' } },
  ],
  Version: '20.10.24+dfsg1',
  ApiVersion: '1.41',
  MinAPIVersion: '1.12',
};

describe('which product answers', () => {
  it('recognises Podman by its "Podman Engine" component, Docker by "Engine"', () => {
    expect(productOfVersion(PODMAN_VERSION)).toBe('podman');
    expect(productOfVersion(DOCKER_VERSION)).toBe('docker');
  });

  it('recognises Podman by its Server: Libpod header when the body has no components', () => {
    expect(productOfVersion({ Version: '4.3.1' }, 'Libpod/4.3.1')).toBe('podman');
    expect(productOfVersion({ Version: '20.10.24' }, 'Docker/20.10.24+dfsg1 (linux)')).toBe('docker');
    expect(productOfVersion({ Components: null })).toBe('docker');
  });

  it('reads rootless from Docker info security options and from Podman libpod info', () => {
    expect(rootlessFromDockerInfo({ SecurityOptions: ['name=seccomp,profile=default'] })).toBe(false);
    expect(rootlessFromDockerInfo({ SecurityOptions: ['name=seccomp,profile=default', 'name=rootless', 'name=cgroupns'] })).toBe(true);
    expect(rootlessFromDockerInfo({})).toBeNull();
    // Podman's libpod /info host.security as answered by the rootful service.
    expect(rootlessFromLibpodInfo({ host: { security: { apparmorEnabled: false, rootless: false, seccompEnabled: true } } })).toBe(false);
    expect(rootlessFromLibpodInfo({ host: { security: { rootless: true } } })).toBe(true);
    expect(rootlessFromLibpodInfo(null)).toBeNull();
  });
});

describe('where a local Podman lives', () => {
  const exists = (paths: string[]) => (path: string) => paths.includes(path);

  it('takes the explicit value, then AGENTSWARM_PODMAN_HOST, then a unix CONTAINER_HOST', () => {
    expect(resolveLocalPodmanHost('unix:///x.sock', { AGENTSWARM_PODMAN_HOST: 'unix:///y.sock' }, exists([]))).toBe('unix:///x.sock');
    expect(resolveLocalPodmanHost(undefined, { AGENTSWARM_PODMAN_HOST: 'unix:///y.sock', CONTAINER_HOST: 'unix:///z.sock' }, exists([]))).toBe('unix:///y.sock');
    expect(resolveLocalPodmanHost(undefined, { CONTAINER_HOST: 'unix:///z.sock' }, exists([]))).toBe('unix:///z.sock');
    // An ssh:// CONTAINER_HOST is a remote server: the app adds those as servers, not as the local engine.
    expect(resolveLocalPodmanHost(undefined, { CONTAINER_HOST: 'ssh://u@h/run/podman/podman.sock' }, exists([]))).toBeNull();
  });

  it('finds the user socket before the rootful one, only when it exists, and none when neither does', () => {
    const env = { XDG_RUNTIME_DIR: '/run/user/1000' };
    expect(resolveLocalPodmanHost(undefined, env, exists(['/run/user/1000/podman/podman.sock', '/run/podman/podman.sock']))).toBe('unix:///run/user/1000/podman/podman.sock');
    expect(resolveLocalPodmanHost(undefined, env, exists(['/run/podman/podman.sock']))).toBe('unix:///run/podman/podman.sock');
    expect(resolveLocalPodmanHost(undefined, {}, exists([]))).toBeNull();
  });

  it('guesses rootless from the socket path until the engine says', () => {
    expect(rootlessBySocketPath('unix:///run/podman/podman.sock')).toBe(false);
    expect(rootlessBySocketPath('unix:///run/user/1000/podman/podman.sock')).toBe(true);
    expect(rootlessBySocketPath('unix:///tmp/x/podman.sock')).toBeNull();
    expect(rootlessBySocketPath('tcp://127.0.0.1:8080')).toBeNull();
  });
});
