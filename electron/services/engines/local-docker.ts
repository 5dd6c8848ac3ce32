import net from 'node:net';
import Docker from 'dockerode';
import { DockerApiEngine } from './docker-api-engine';

export const LOCAL_ENGINE_ID = 'local';

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

export function createLocalDockerEngine(dockerHost?: string): DockerApiEngine {
  const endpoint = resolveLocalDockerHost(dockerHost);
  return new DockerApiEngine({
    summary: { id: LOCAL_ENGINE_ID, kind: 'local-docker', label: 'Local Docker', endpoint },
    docker: new Docker(dockerOptionsFor(endpoint)),
    isHostPortFree: isLoopbackPortFree,
    urlForHostPort: (port) => Promise.resolve(`http://127.0.0.1:${port}`),
  });
}
