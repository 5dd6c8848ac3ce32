import net from 'node:net';
import Docker from 'dockerode';
import type { ContainerEngine } from './container-engine';
import { DockerApiEngine } from './docker-api-engine';
import { detectedDialect } from './engine-dialect';
import type { EngineWording } from './engine-wording';
import { localHostForPlatform } from './engine-host';
import { UnavailableEngine } from './unavailable-engine';
import { isLoopbackAddress } from '../util/loopback';
import { withNativeProcesses } from '../native/native-engine';
import { localPodmanWording } from './podman-wording';

export const LOCAL_ENGINE_ID = 'local';

/** The fixes a user of Docker on this machine can act on: the docker CLI, its group, DOCKER_HOST. */
export const LOCAL_DOCKER_WORDING: EngineWording = {
  product: 'Docker',
  pullImage: (image) => `Pull it first (docker pull ${image}).`,
  unreachable: () => 'Is the Docker daemon running? Start it, or point DOCKER_HOST at a running engine.',
  permissionDenied: () => 'Add your user to the "docker" group (sudo usermod -aG docker $USER) and log in again.',
  noGpuRuntime: () =>
    'Docker on this engine cannot give GPUs to containers (no NVIDIA Container Toolkit). Install it on the GPU machine, or untick "GPUs" to start without them.',
};

/** Where the local engine lives: DOCKER_HOST if set, else the platform's default socket. */
export function resolveLocalDockerHost(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return explicit;
  if (env.DOCKER_HOST) return env.DOCKER_HOST;
  return process.platform === 'win32' ? 'npipe:////./pipe/docker_engine' : 'unix:///var/run/docker.sock';
}

export function dockerOptionsFor(dockerHost: string): Docker.DockerOptions {
  if (dockerHost.startsWith('unix://')) return { socketPath: dockerHost.slice('unix://'.length) };
  if (dockerHost.startsWith('npipe://')) return { socketPath: dockerHost.slice('npipe://'.length) };
  const tcp = /^tcp:\/\/([^:/]+):(\d+)\/?$/.exec(dockerHost);
  if (tcp?.[1] && tcp[2]) return { host: tcp[1], port: Number(tcp[2]), protocol: 'http' };
  throw new Error(`Unsupported DOCKER_HOST "${dockerHost}": use unix:///path/to/docker.sock or tcp://host:port`);
}

/** True when nothing accepts connections on 127.0.0.1:port and we could bind it ourselves. */
export function isLoopbackPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

export function createLocalDockerEngine(dockerHost?: string): ContainerEngine {
  const endpoint = resolveLocalDockerHost(dockerHost);
  let options: Docker.DockerOptions;
  try {
    options = dockerOptionsFor(endpoint);
  } catch {
    // Show only the scheme: the rest of DOCKER_HOST may name users or hosts the user did not
    // mean to put on screen.
    const scheme = /^([a-z0-9+.-]+):\/\//i.exec(endpoint)?.[1] ?? 'unknown';
    return new UnavailableEngine(
      { id: LOCAL_ENGINE_ID, kind: 'local-docker', label: 'Local Docker', endpoint: `${scheme}://…` },
      LOCAL_DOCKER_WORDING,
      `DOCKER_HOST uses "${scheme}://", which the Local Docker engine cannot use. Set DOCKER_HOST to ` +
        'unix:///path/to/docker.sock or tcp://host:port, or unset it (remote servers over SSH get their own engine).',
    );
  }
  // With DOCKER_HOST=tcp://otherhost the containers, and so the swarm port, live on that host.
  const remoteHost = options.host && !isLoopbackAddress(options.host) ? options.host : null;
  // Native swarm servers (ajet-swarm without Docker) on this computer live on the same engine.
  const docker = new DockerApiEngine({
    summary: { id: LOCAL_ENGINE_ID, kind: 'local-docker', label: 'Local Docker', endpoint },
    docker: new Docker(options),
    wording: LOCAL_DOCKER_WORDING,
    // DOCKER_HOST may point at Podman's socket (podman-docker sets it up so): then it is Podman.
    dialect: detectedDialect('docker', { docker: () => LOCAL_DOCKER_WORDING, podman: (rootless) => localPodmanWording(rootless) }),
    // A port on another host cannot be probed from here; Docker reports publish conflicts itself.
    isHostPortFree: remoteHost ? () => Promise.resolve(true) : isLoopbackPortFree,
    urlForHostPort: (port) => Promise.resolve(`http://${remoteHost ?? '127.0.0.1'}:${port}`),
    // DOCKER_HOST=tcp://otherhost: its host is not this computer, and the app has no shell there.
    host: remoteHost ? null : localHostForPlatform(),
  });
  return withNativeProcesses(docker);
}
