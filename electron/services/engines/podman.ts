import { statSync } from 'node:fs';
import Docker from 'dockerode';
import { PODMAN_ROOTFUL_SOCKET } from '../../shared/schemas-servers';
import { DockerApiEngine } from './docker-api-engine';
import { detectedDialect } from './engine-dialect';
import { localHostForPlatform } from './engine-host';
import type { ContainerEngine } from './container-engine';
import { dockerOptionsFor, isLoopbackPortFree, LOCAL_DOCKER_WORDING, resolveLocalDockerHost } from './local-docker';
import { localPodmanWording } from './podman-wording';
import { UnavailableEngine } from './unavailable-engine';
import { isLoopbackAddress } from '../util/loopback';

export const LOCAL_PODMAN_ENGINE_ID = 'local-podman';

/** The rootless socket of the user running the app, under their runtime folder. */
export function userPodmanSocket(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.XDG_RUNTIME_DIR ? `${env.XDG_RUNTIME_DIR.replace(/\/+$/, '')}/podman/podman.sock` : null;
}

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

/**
 * Where a local Podman engine lives, or null when there is none to register: an explicit value
 * (app option, `AGENTSWARM_PODMAN_HOST`), else Podman's own `CONTAINER_HOST` when it is a unix
 * socket, else the user's rootless socket, else the rootful one, each only if it exists. A
 * socket that appears later is picked up at the next start.
 */
export function resolveLocalPodmanHost(
  explicit?: string,
  env: NodeJS.ProcessEnv = process.env,
  socketExists: (path: string) => boolean = isSocket,
): string | null {
  if (explicit) return explicit;
  if (env.AGENTSWARM_PODMAN_HOST) return env.AGENTSWARM_PODMAN_HOST;
  // CONTAINER_HOST may also be ssh://…, which Podman's CLI understands and the app reaches as a server instead.
  if (env.CONTAINER_HOST?.startsWith('unix://')) return env.CONTAINER_HOST;
  for (const path of [userPodmanSocket(env), PODMAN_ROOTFUL_SOCKET]) {
    if (path && socketExists(path)) return `unix://${path}`;
  }
  return null;
}

/**
 * The local Podman socket to register as its own engine, unless it is the one Local Docker already
 * uses (DOCKER_HOST pointed at Podman's socket): one engine per socket, or containers show twice.
 * `podmanHost` null: no local Podman engine at all.
 */
export function localPodmanHostBesides(dockerHost: string | undefined, podmanHost: string | null | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  if (podmanHost === null) return null;
  const found = resolveLocalPodmanHost(podmanHost, env);
  return found && found !== resolveLocalDockerHost(dockerHost, env) ? found : null;
}

/** Rootless by its path until the engine says (`/run/podman/podman.sock` is the rootful one). */
export function rootlessBySocketPath(endpoint: string): boolean | null {
  if (!endpoint.startsWith('unix://')) return null;
  const path = endpoint.slice('unix://'.length);
  if (path === PODMAN_ROOTFUL_SOCKET) return false;
  return /^\/run\/user\/\d+\//.test(path) ? true : null;
}

/**
 * Podman on this computer: the DockerApiEngine on Podman's Docker-compatible socket, with Podman's
 * dialect (errors, `remove`/`cleanup` events, GPUs through CDI) and wording. If the socket turns
 * out to serve Docker, the engine says so and speaks Docker.
 */
export function createLocalPodmanEngine(podmanHost: string): ContainerEngine {
  const summary = { id: LOCAL_PODMAN_ENGINE_ID, kind: 'podman' as const, label: 'Local Podman', endpoint: podmanHost };
  const byPath = rootlessBySocketPath(podmanHost);
  let options: Docker.DockerOptions;
  try {
    options = dockerOptionsFor(podmanHost);
  } catch {
    const scheme = /^([a-z0-9+.-]+):\/\//i.exec(podmanHost)?.[1] ?? 'unknown';
    return new UnavailableEngine(
      { ...summary, endpoint: `${scheme}://…` },
      localPodmanWording(byPath),
      `The Podman socket "${scheme}://…" cannot be used by the Local Podman engine. Set AGENTSWARM_PODMAN_HOST (or CONTAINER_HOST) to ` +
        'unix:///path/to/podman.sock, or add a remote Podman server over SSH.',
    );
  }
  const remoteTcp = options.host !== undefined && !isLoopbackAddress(options.host);
  return new DockerApiEngine({
    summary,
    docker: new Docker(options),
    wording: localPodmanWording(byPath),
    dialect: detectedDialect('podman', {
      docker: () => LOCAL_DOCKER_WORDING,
      podman: (rootless) => localPodmanWording(rootless ?? byPath),
    }),
    isHostPortFree: remoteTcp ? () => Promise.resolve(true) : isLoopbackPortFree,
    urlForHostPort: (port) => Promise.resolve(`http://${remoteTcp ? options.host : '127.0.0.1'}:${port}`),
    host: remoteTcp ? null : localHostForPlatform(),
  });
}

