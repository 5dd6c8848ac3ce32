import type Docker from 'dockerode';
import type { AppError } from '../../shared/errors';
import type { ContainerState, EngineHealth, EngineSummary } from '../../shared/schemas';
import type { ContainerEngine, ContainerSpec, ContainerSummary } from './container-engine';
import { mapDockerError } from './docker-errors';

const KNOWN_STATES = new Set<ContainerState>(['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead']);

function toState(value: string | undefined): ContainerState {
  return value && KNOWN_STATES.has(value as ContainerState) ? (value as ContainerState) : 'unknown';
}

/**
 * Docker multiplexes stdout and stderr of a non-TTY container into frames with an 8-byte header
 * (stream type, 3 zero bytes, big-endian length). A buffer without such headers is returned as is.
 */
export function demuxLogBuffer(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    if ((stream !== 0 && stream !== 1 && stream !== 2) || buffer[offset + 1] !== 0 || buffer[offset + 2] !== 0 || buffer[offset + 3] !== 0) {
      return buffer.toString('utf8');
    }
    const size = buffer.readUInt32BE(offset + 4);
    parts.push(buffer.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

export interface DockerApiEngineOptions {
  summary: EngineSummary;
  docker: Docker;
  /** Checks a port on the engine's host; local engines probe loopback, remote ones ask over SSH. */
  isHostPortFree: (port: number) => Promise<boolean>;
  urlForHostPort: (port: number) => Promise<string>;
  onDispose?: () => Promise<void>;
}

/**
 * A ContainerEngine over the Docker Engine API (dockerode). Local Docker, Docker over SSH and
 * Podman's Docker-compatible socket all reuse it; only the transport and the host probes differ.
 */
export class DockerApiEngine implements ContainerEngine {
  readonly summary: EngineSummary;
  private readonly docker: Docker;

  constructor(private readonly options: DockerApiEngineOptions) {
    this.summary = options.summary;
    this.docker = options.docker;
  }

  private fail(error: unknown, extra: { image?: string; port?: number } = {}): AppError {
    return mapDockerError(error, { endpoint: this.summary.endpoint, ...extra });
  }

  async health(): Promise<EngineHealth> {
    try {
      const version = await this.docker.version();
      return { id: this.summary.id, reachable: true, version: version.Version, apiVersion: version.ApiVersion, error: null };
    } catch (error) {
      const mapped = this.fail(error);
      return {
        id: this.summary.id,
        reachable: false,
        version: null,
        apiVersion: null,
        error: { code: mapped.code, message: mapped.message },
      };
    }
  }

  async listContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    const label = Object.entries(labels).map(([key, value]) => `${key}=${value}`);
    try {
      const list = await this.docker.listContainers({ all: true, filters: { label } });
      return list.map((c) => ({
        id: c.Id,
        name: (c.Names[0] ?? c.Id.slice(0, 12)).replace(/^\//, ''),
        image: c.Image,
        state: toState(c.State),
        statusText: c.Status,
        labels: c.Labels ?? {},
        createdAt: new Date(c.Created * 1000).toISOString(),
        exitCode: null,
      }));
    } catch (error) {
      throw this.fail(error);
    }
  }

  async inspectContainer(id: string): Promise<ContainerSummary> {
    try {
      const info = await this.docker.getContainer(id).inspect();
      return {
        id: info.Id,
        name: info.Name.replace(/^\//, ''),
        image: info.Config.Image,
        state: toState(info.State.Status),
        statusText: info.State.Status,
        labels: info.Config.Labels ?? {},
        createdAt: info.Created,
        exitCode: info.State.Running ? null : info.State.ExitCode,
      };
    } catch (error) {
      throw this.fail(error);
    }
  }

  async imageExists(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return false;
      throw this.fail(error, { image });
    }
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    const exposed: Record<string, object> = {};
    const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
    if (spec.network.mode === 'publish') {
      for (const p of spec.network.ports) {
        exposed[`${p.containerPort}/tcp`] = {};
        bindings[`${p.containerPort}/tcp`] = [{ HostIp: p.hostIp, HostPort: String(p.hostPort) }];
      }
    }
    try {
      const container = await this.docker.createContainer({
        name: spec.name,
        Image: spec.image,
        Cmd: spec.cmd,
        Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
        Labels: spec.labels,
        ExposedPorts: exposed,
        HostConfig: {
          Init: spec.init,
          NetworkMode: spec.network.mode === 'host' ? 'host' : 'bridge',
          PortBindings: bindings,
          ShmSize: spec.shmSizeBytes,
          DeviceRequests: spec.gpus ? [{ Driver: '', Count: -1, Capabilities: [['gpu']] }] : [],
          // No automatic restart: a crashed server comes back OFFLINE with its training state
          // gone, and a restart loop would hide the crash. An exited container (with its exit
          // code and logs) is the honest signal.
          RestartPolicy: { Name: 'no' },
        },
      });
      return container.id;
    } catch (error) {
      throw this.fail(error, { image: spec.image });
    }
  }

  async startContainer(id: string, hint: { port?: number } = {}): Promise<void> {
    try {
      await this.docker.getContainer(id).start();
    } catch (error) {
      throw this.fail(error, hint);
    }
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    try {
      await this.docker.getContainer(id).stop({ t: timeoutSeconds });
    } catch (error) {
      // 304: already stopped, which is what the caller wanted.
      if ((error as { statusCode?: number }).statusCode === 304) return;
      throw this.fail(error);
    }
  }

  async removeContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      throw this.fail(error);
    }
  }

  async logTail(id: string, lines: number): Promise<string[]> {
    try {
      const buffer = (await this.docker.getContainer(id).logs({ stdout: true, stderr: true, tail: lines, follow: false })) as unknown as Buffer;
      return demuxLogBuffer(buffer)
        .split('\n')
        .map((line) => line.trimEnd())
        .filter((line) => line !== '')
        .slice(-lines);
    } catch (error) {
      throw this.fail(error);
    }
  }

  isHostPortFree(port: number): Promise<boolean> {
    return this.options.isHostPortFree(port);
  }

  urlForHostPort(port: number): Promise<string> {
    return this.options.urlForHostPort(port);
  }

  async dispose(): Promise<void> {
    await this.options.onDispose?.();
  }
}
