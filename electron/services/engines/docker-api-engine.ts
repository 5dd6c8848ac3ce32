import type Docker from 'dockerode';
import type { AppError } from '../../shared/errors';
import type { ContainerState, EngineHealth, EngineSummary } from '../../shared/schemas';
import {
  containerStatusText,
  type ContainerEngine,
  type ContainerEvent,
  type ContainerSpec,
  type ContainerSummary,
  type EngineHost,
  type EngineInfo,
  type FollowLogOptions,
  type ImageInfo,
  type LogReadOptions,
  type PullEvent,
} from './container-engine';
import { engineInfoOf, hostConfigOf } from './docker-spec';
import { execInDockerContainer } from './docker-exec';
import type { ContainerExecResult } from './container-engine';
import { followDockerLog, readDockerContainerFile, watchDockerEvents } from './docker-logs';
import { pullDockerImage } from './docker-pull';
import { mapDockerError } from './docker-errors';
import type { EngineWording } from './engine-wording';

const KNOWN_STATES = new Set<ContainerState>(['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead']);

function toState(value: string | undefined): ContainerState {
  return value && KNOWN_STATES.has(value as ContainerState) ? (value as ContainerState) : 'unknown';
}

/** Docker writes "0001-01-01T00:00:00Z" for a time that never happened. */
function dockerTime(value: string | undefined): string | null {
  if (!value || value.startsWith('0001-')) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** The inspect fields we use, mapped to the engine-neutral summary with a status text of now. */
export function summaryFromInspect(info: Docker.ContainerInspectInfo): ContainerSummary {
  const state = toState(info.State.Status);
  const startedAt = dockerTime(info.State.StartedAt);
  const finishedAt = dockerTime(info.State.FinishedAt);
  // A created-but-never-started container has ExitCode 0 that means nothing.
  const exitCode = info.State.Running || startedAt === null ? null : info.State.ExitCode;
  const summary: ContainerSummary = {
    id: info.Id,
    name: info.Name.replace(/^\//, ''),
    image: info.Config.Image,
    state,
    statusText: '',
    labels: info.Config.Labels ?? {},
    createdAt: dockerTime(info.Created) ?? info.Created,
    startedAt,
    finishedAt,
    exitCode,
    oomKilled: info.State.OOMKilled === true,
  };
  summary.statusText = containerStatusText(summary);
  return summary;
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
  /** The fixes its errors name: `docker pull` for Docker, `podman pull` for Podman, and so on. */
  wording: EngineWording;
  /** Checks a port on the engine's host; local engines probe loopback, remote ones ask over SSH. */
  isHostPortFree: (port: number) => Promise<boolean>;
  urlForHostPort: (port: number) => Promise<string>;
  releaseHostPort?: (port: number) => Promise<void>;
  onDispose?: () => Promise<void>;
  /** Where host commands run (nvidia-smi, df, native ajet-swarm); null where the app cannot run any. */
  host: EngineHost | null;
}

/**
 * A ContainerEngine over the Docker Engine API (dockerode). Local Docker, Docker over SSH and
 * Podman's Docker-compatible socket all reuse it; only the transport and the host probes differ.
 */
export class DockerApiEngine implements ContainerEngine {
  readonly summary: EngineSummary;
  readonly wording: EngineWording;
  readonly host: EngineHost | null;
  private readonly docker: Docker;

  constructor(private readonly options: DockerApiEngineOptions) {
    this.summary = options.summary;
    this.wording = options.wording;
    this.docker = options.docker;
    this.host = options.host;
  }

  private fail(error: unknown, extra: { image?: string; port?: number } = {}): AppError {
    return mapDockerError(error, { endpoint: this.summary.endpoint, wording: this.wording, ...extra });
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
    let list: Docker.ContainerInfo[];
    try {
      list = await this.docker.listContainers({ all: true, filters: { label } });
    } catch (error) {
      throw this.fail(error);
    }
    // The list has no start/finish times or exit codes, only a frozen "Up 3 seconds": inspect each
    // (our containers are few) so every answer words the state the same way, from timestamps.
    const inspected = await Promise.all(
      list.map((c) =>
        this.docker
          .getContainer(c.Id)
          .inspect()
          .then(summaryFromInspect)
          .catch((error: unknown) => {
            // Removed between list and inspect: it is gone, leave it out.
            if ((error as { statusCode?: number }).statusCode === 404) return null;
            throw this.fail(error);
          }),
      ),
    );
    return inspected.filter((c): c is ContainerSummary => c !== null);
  }

  async inspectContainer(id: string): Promise<ContainerSummary> {
    try {
      return summaryFromInspect(await this.docker.getContainer(id).inspect());
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
        HostConfig: hostConfigOf(spec, bindings),
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

  async readLog(id: string, options: LogReadOptions): Promise<string[]> {
    const { sinceMs } = options;
    // Docker's `since` has whole seconds: ask from the start of that second with timestamps, and
    // drop the lines written before `sinceMs` here.
    const since = sinceMs === undefined ? {} : { since: Math.max(0, Math.floor(sinceMs / 1000)), timestamps: true };
    let text: string;
    try {
      const buffer = (await this.docker
        .getContainer(id)
        .logs({ stdout: true, stderr: true, tail: options.tail, follow: false, ...since })) as unknown as Buffer;
      text = demuxLogBuffer(buffer);
    } catch (error) {
      throw this.fail(error);
    }
    const lines: string[] = [];
    for (const raw of text.split('\n')) {
      let line = raw.trimEnd();
      if (sinceMs !== undefined) {
        const space = line.indexOf(' ');
        const stamp = Date.parse(space > 0 ? line.slice(0, space) : line);
        if (!Number.isNaN(stamp) && stamp < sinceMs) continue;
        line = space > 0 ? line.slice(space + 1) : '';
      }
      if (line !== '') lines.push(line);
    }
    return lines.slice(-options.tail);
  }

  async info(): Promise<EngineInfo> {
    try {
      return engineInfoOf((await this.docker.info()) as Record<string, unknown>);
    } catch (error) {
      throw this.fail(error);
    }
  }

  async inspectImage(image: string): Promise<ImageInfo | null> {
    try {
      const info = await this.docker.getImage(image).inspect();
      return { id: info.Id, repoDigests: info.RepoDigests ?? [], sizeBytes: info.Size };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return null;
      throw this.fail(error, { image });
    }
  }

  pullImage(image: string, onEvent: (event: PullEvent) => void, signal: AbortSignal): Promise<void> {
    return pullDockerImage(this.docker, image, onEvent, signal, (error) => this.fail(error, { image }), this.wording);
  }

  followLog(id: string, options: FollowLogOptions): Promise<void> {
    return followDockerLog(this.docker, id, options, (error) => this.fail(error));
  }

  watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void): () => void {
    return watchDockerEvents(this.docker, labels, onEvent);
  }

  readContainerFile(id: string, path: string, maxBytes: number): Promise<string | null> {
    return readDockerContainerFile(this.docker, id, path, maxBytes, (error) => this.fail(error));
  }

  isHostPortFree(port: number): Promise<boolean> {
    return this.options.isHostPortFree(port);
  }

  urlForHostPort(port: number): Promise<string> {
    return this.options.urlForHostPort(port);
  }

  async releaseHostPort(port: number): Promise<void> {
    await this.options.releaseHostPort?.(port);
  }

  async dispose(): Promise<void> {
    await this.options.onDispose?.();
  }

  execInContainer(id: string, cmd: string[], options: { timeoutMs: number }): Promise<ContainerExecResult> {
    return execInDockerContainer(this.docker, id, cmd, options, (error) => this.fail(error));
  }
}
