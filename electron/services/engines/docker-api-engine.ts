import type Docker from 'dockerode';
import type { AppError } from '../../shared/errors';
import type { EngineHealth, EngineSummary } from '../../shared/schemas';
import {
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
import { engineGpusOf, engineInfoOf } from './docker-spec';
import { execInDockerContainer } from './docker-exec';
import type { ContainerExecResult } from './container-engine';
import { followDockerLog, readDockerContainerFile, watchDockerEvents } from './docker-logs';
import { pullDockerImage } from './docker-pull';
import { dockerDialect, fixedDialect, type DialectChoice, type EngineDialect } from './engine-dialect';
import { productOfVersion, type VersionBody } from './engine-product';
import type { EngineWording } from './engine-wording';

import { demuxLogBuffer, summaryFromInspect } from './docker-inspect';

export { demuxLogBuffer, summaryFromInspect };

export interface DockerApiEngineOptions {
  summary: EngineSummary;
  docker: Docker;
  /** The fixes its errors name: `docker pull` for Docker, `podman pull` for Podman, and so on. */
  wording: EngineWording;
  /**
   * Docker or Podman, learnt from the engine's answer (errors, events, GPU requests and wording
   * follow it). Default: always Docker with `wording`.
   */
  dialect?: DialectChoice;
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
  readonly host: EngineHost | null;
  private readonly docker: Docker;
  private readonly choice: DialectChoice;
  /** What the engine said it is; null until it answered, and again after a lost connection. */
  private known: EngineDialect | null = null;
  private detecting: Promise<EngineDialect> | null = null;
  /** Bumped by forgetDialect(): a detection that started before must not set `known`. */
  private dialectGeneration = 0;
  /** The engine's version, read with the dialect: Podman's /version costs 0.3–1 s at every call. */
  private seenVersion: { version: string; apiVersion: string } | null = null;
  /** GPUs for containers, read with the version (one `docker info` per connection). */
  private seenGpus: EngineHealth['gpus'] = null;

  constructor(private readonly options: DockerApiEngineOptions) {
    this.summary = options.summary;
    this.docker = options.docker;
    this.host = options.host;
    this.choice = options.dialect ?? fixedDialect(dockerDialect(options.wording));
  }

  /** The fixes of the product that answered (Podman's for a "Docker" server that is Podman). */
  get wording(): EngineWording {
    return (this.known ?? this.choice.assumed).wording;
  }

  /**
   * Asks the engine again what it is at the next call: the connection was replaced (an SSH
   * reconnect may reach another socket, or a reinstalled server another product).
   */
  forgetDialect(): void {
    this.dialectGeneration += 1;
    this.known = null;
    this.detecting = null;
    this.seenVersion = null;
    this.seenGpus = null;
  }

  /** The engine's dialect, detected once per connection (Podman's first /version takes ~350 ms). */
  private dialect(version?: VersionBody): Promise<EngineDialect> {
    if (this.known) return Promise.resolve(this.known);
    if (this.detecting) return this.detecting;
    const generation = this.dialectGeneration;
    const detecting = this.choice.detect(this.docker, version).then(
      (dialect) => {
        if (generation === this.dialectGeneration) {
          this.known = dialect;
          this.detecting = null;
        }
        return dialect;
      },
      (error: unknown) => {
        if (generation === this.dialectGeneration) this.detecting = null;
        throw error;
      },
    );
    this.detecting = detecting;
    return detecting;
  }

  /** For callbacks that must answer at once: the dialect known so far. */
  private fail(error: unknown, extra: { image?: string; port?: number } = {}): AppError {
    const mapped = (this.known ?? this.choice.assumed).mapError(error, { endpoint: this.summary.endpoint, ...extra });
    // No answer from the engine: the next call asks again what answers there (after a reconnect).
    if (mapped.code === 'ENGINE_UNREACHABLE') this.forgetDialect();
    return mapped;
  }

  /**
   * The error in the words of the product that answered: an HTTP error is an answer, so the
   * dialect is learnt first (a Podman conflict is a 500, which Docker's reading would not see).
   */
  private async failed(error: unknown, extra: { image?: string; port?: number } = {}): Promise<AppError> {
    if (!this.known && typeof (error as { statusCode?: unknown } | null)?.statusCode === 'number') {
      await this.dialect().catch(() => undefined);
    }
    return this.fail(error, extra);
  }

  async health(): Promise<EngineHealth> {
    try {
      const known = this.known;
      const seen = this.seenVersion;
      if (known && seen) {
        // Known on this connection: a ping (under a millisecond) says it still answers. A lost
        // connection fails it, forgets what was known, and the next health check reads it all again.
        await this.docker.ping();
        return { id: this.summary.id, reachable: true, ...seen, product: known.product, rootless: known.rootless, gpus: this.seenGpus, error: null };
      }
      const generation = this.dialectGeneration;
      const version = (await this.docker.version()) as Docker.DockerVersion & VersionBody;
      const dialect = await this.dialect(version).catch(() => null);
      // A first-run form follows what the engine has (no GPU runtime: "Use all GPUs" not ticked); not knowing is no failure.
      const gpus = await this.info().then(engineGpusOf, () => null);
      if (generation === this.dialectGeneration && dialect) {
        this.seenVersion = { version: version.Version, apiVersion: version.ApiVersion };
        this.seenGpus = gpus;
      }
      return {
        id: this.summary.id,
        reachable: true,
        version: version.Version,
        apiVersion: version.ApiVersion,
        product: dialect?.product ?? productOfVersion(version),
        rootless: dialect?.rootless ?? null,
        gpus,
        error: null,
      };
    } catch (error) {
      const mapped = await this.failed(error);
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
      throw await this.failed(error);
    }
    // The list has no start/finish times or exit codes, only a frozen "Up 3 seconds": inspect each
    // (our containers are few) so every answer words the state the same way, from timestamps.
    const inspected = await Promise.all(
      list.map((c) =>
        this.docker
          .getContainer(c.Id)
          .inspect()
          .then(summaryFromInspect)
          .catch(async (error: unknown) => {
            // Removed between list and inspect: it is gone, leave it out.
            if ((error as { statusCode?: number }).statusCode === 404) return null;
            throw await this.failed(error);
          }),
      ),
    );
    return inspected.filter((c): c is ContainerSummary => c !== null);
  }

  async inspectContainer(id: string): Promise<ContainerSummary> {
    try {
      return summaryFromInspect(await this.docker.getContainer(id).inspect());
    } catch (error) {
      throw await this.failed(error);
    }
  }

  async imageExists(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return false;
      throw await this.failed(error, { image });
    }
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    try {
      // The product decides how GPUs are asked for (Docker: DeviceRequests; Podman: CDI via libpod).
      const dialect = await this.dialect();
      return await dialect.createContainer(this.docker, spec);
    } catch (error) {
      throw await this.failed(error, { image: spec.image });
    }
  }

  async startContainer(id: string, hint: { port?: number } = {}): Promise<void> {
    try {
      await this.docker.getContainer(id).start();
    } catch (error) {
      throw await this.failed(error, hint);
    }
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    try {
      await this.docker.getContainer(id).stop({ t: timeoutSeconds });
    } catch (error) {
      // 304: already stopped, which is what the caller wanted.
      if ((error as { statusCode?: number }).statusCode === 304) return;
      throw await this.failed(error);
    }
  }

  async removeContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      throw await this.failed(error);
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
      throw await this.failed(error);
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
      const info = engineInfoOf((await this.docker.info()) as Record<string, unknown>);
      // Podman's compat /info may not list "rootless" among its security options; its libpod info does.
      const rootless = (await this.dialect().catch(() => null))?.rootless;
      return typeof rootless === 'boolean' ? { ...info, rootless } : info;
    } catch (error) {
      throw await this.failed(error);
    }
  }

  async inspectImage(image: string): Promise<ImageInfo | null> {
    try {
      const info = await this.docker.getImage(image).inspect();
      return { id: info.Id, repoDigests: info.RepoDigests ?? [], sizeBytes: info.Size };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return null;
      throw await this.failed(error, { image });
    }
  }

  async pullImage(image: string, onEvent: (event: PullEvent) => void, signal: AbortSignal): Promise<void> {
    // Learnt first, so the pull's errors name the right CLI (`podman pull` on a "Docker" that is Podman).
    await this.dialect().catch(() => undefined);
    return pullDockerImage(this.docker, image, onEvent, signal, (error) => this.fail(error, { image }), this.wording);
  }

  followLog(id: string, options: FollowLogOptions): Promise<void> {
    return followDockerLog(this.docker, id, options, (error) => this.fail(error));
  }

  watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void): () => void {
    // Asked at every (re)connect of the stream, so a Podman behind the socket is heard in its own words.
    return watchDockerEvents(this.docker, labels, onEvent, () =>
      this.dialect().then(
        (dialect) => dialect.events,
        () => this.choice.assumed.events,
      ),
    );
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
