import { AppError } from '../../shared/errors';
import type { EngineHealth, EngineSummary } from '../../shared/schemas';
import {
  shellQuote,
  type ContainerEngine,
  type ContainerEvent,
  type ContainerExecResult,
  type ContainerSpec,
  type ContainerSummary,
  type EngineHost,
  type EngineInfo,
  type FollowLogOptions,
  type ImageInfo,
  type LogReadOptions,
  type PullEvent,
} from '../engines/container-engine';
import type { EngineWording } from '../engines/engine-wording';
import { NativeProcesses } from './native-processes';
import { isNativeId } from './native-records';

/**
 * One engine per host: its Docker containers, plus the native swarm servers (`ajet-swarm start`
 * without Docker) the app runs on the same host. Native ids start with `native-` and native specs
 * say `runtime: 'native'`; those go to NativeProcesses, everything else to the wrapped engine. The
 * swarm monitor, logs and tunnels (`urlForHostPort`) need no change: a native server is reached on
 * the host's port exactly like a container that publishes it.
 */
export class NativeAwareEngine implements ContainerEngine {
  /** Null when the engine has no host shell (Docker on Windows, a remote DOCKER_HOST): native mode refused. */
  readonly native: NativeProcesses | null;

  constructor(private readonly docker: ContainerEngine) {
    this.native = docker.host ? new NativeProcesses(docker.host) : null;
  }

  get summary(): EngineSummary {
    return this.docker.summary;
  }
  get wording(): EngineWording {
    return this.docker.wording;
  }
  get host(): EngineHost | null {
    return this.docker.host;
  }

  private nativeFor(id: string): NativeProcesses {
    // Callers are async methods: this throw becomes their rejection.
    if (!this.native) throw new AppError('CONTAINER_NOT_FOUND', `${this.summary.label} has no host shell, so it has no native swarm server ${id}.`);
    return this.native;
  }

  health(): Promise<EngineHealth> {
    return this.docker.health();
  }

  /**
   * Both kinds, each read on its own: Docker being down (or absent: a conda-only GPU box) must not
   * hide the native servers, and a failed host command must not hide the containers. The engine's
   * health already says when Docker is unreachable, so a list with only native servers is honest.
   * Only when neither answers does the list fail, with Docker's error (the one users know how to fix).
   */
  async listContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    if (!this.native) return this.docker.listContainers(labels);
    const [docker, native] = await Promise.allSettled([this.docker.listContainers(labels), this.native.list(labels)]);
    if (docker.status === 'rejected' && native.status === 'rejected') throw docker.reason;
    return [...(docker.status === 'fulfilled' ? docker.value : []), ...(native.status === 'fulfilled' ? native.value : [])];
  }

  async inspectContainer(id: string): Promise<ContainerSummary> {
    return isNativeId(id) ? this.nativeFor(id).inspect(id) : this.docker.inspectContainer(id);
  }

  imageExists(image: string): Promise<boolean> {
    return this.docker.imageExists(image);
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    if (spec.runtime !== 'native') return this.docker.createContainer(spec);
    if (!this.native) {
      throw new AppError(
        'CONTAINER_START_FAILED',
        `Native mode runs ajet-swarm on the engine's host, and the app cannot run commands on the host of ${this.summary.label} (Docker on Windows or a remote DOCKER_HOST). Use container mode, or add that machine as an SSH server.`,
      );
    }
    return this.native.create(spec);
  }

  async startContainer(id: string, hint?: { port?: number }): Promise<void> {
    return isNativeId(id) ? this.nativeFor(id).start(id) : this.docker.startContainer(id, hint);
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    return isNativeId(id) ? this.nativeFor(id).stop(id, timeoutSeconds) : this.docker.stopContainer(id, timeoutSeconds);
  }

  /** Like Docker's remove with force (what DockerApiEngine does): a running native server is killed first. */
  async removeContainer(id: string): Promise<void> {
    return isNativeId(id) ? this.nativeFor(id).remove(id, { force: true }) : this.docker.removeContainer(id);
  }

  async readLog(id: string, options: LogReadOptions): Promise<string[]> {
    return isNativeId(id) ? this.nativeFor(id).readLog(id, options) : this.docker.readLog(id, options);
  }

  info(): Promise<EngineInfo> {
    return this.docker.info();
  }

  inspectImage(image: string): Promise<ImageInfo | null> {
    return this.docker.inspectImage(image);
  }

  pullImage(image: string, onEvent: (event: PullEvent) => void, signal: AbortSignal): Promise<void> {
    return this.docker.pullImage(image, onEvent, signal);
  }

  async followLog(id: string, options: FollowLogOptions): Promise<void> {
    return isNativeId(id) ? this.nativeFor(id).followLog(id, options) : this.docker.followLog(id, options);
  }

  watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void): () => void {
    const stopDocker = this.docker.watchEvents(labels, onEvent);
    const stopNative = this.native?.watchEvents(labels, onEvent);
    return () => {
      stopDocker();
      stopNative?.();
    };
  }

  async readContainerFile(id: string, path: string, maxBytes: number): Promise<string | null> {
    return isNativeId(id) ? this.nativeFor(id).readFile(id, path, maxBytes) : this.docker.readContainerFile(id, path, maxBytes);
  }

  /**
   * A native server is a process on the host, not a container: its inside is the host, so the
   * command runs there (the GPU check's nvidia-smi then sees what the server sees). Past the
   * timeout the host's exec gives up; that is reported as code null, like a container's exec.
   */
  async execInContainer(id: string, cmd: string[], options: { timeoutMs: number }): Promise<ContainerExecResult> {
    if (!isNativeId(id)) return this.docker.execInContainer(id, cmd, options);
    const native = this.nativeFor(id);
    await native.inspect(id);
    const started = Date.now();
    try {
      return await native.host.exec(cmd.map(shellQuote).join(' '), { timeoutMs: options.timeoutMs });
    } catch (error) {
      if (Date.now() - started >= options.timeoutMs) return { code: null, stdout: '', stderr: '' };
      throw error;
    }
  }

  isHostPortFree(port: number): Promise<boolean> {
    return this.docker.isHostPortFree(port);
  }

  urlForHostPort(port: number): Promise<string> {
    return this.docker.urlForHostPort(port);
  }

  async releaseHostPort(port: number): Promise<void> {
    await this.docker.releaseHostPort?.(port);
  }

  dispose(): Promise<void> {
    return this.docker.dispose();
  }
}

/** The engine plus native swarm servers on its host (see NativeAwareEngine). */
export function withNativeProcesses(engine: ContainerEngine): NativeAwareEngine {
  return new NativeAwareEngine(engine);
}
