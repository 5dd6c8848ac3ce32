import { AppError } from '../../shared/errors';
import type { EngineHealth, EngineSummary } from '../../shared/schemas';
import { DRY_RUN_CONTAINER_ID, DRY_RUN_ENGINE_ID } from '../../shared/schemas-dryrun';
import {
  carriesLabels,
  type ContainerEngine,
  type ContainerEvent,
  type ContainerExecResult,
  type ContainerSummary,
  type EngineInfo,
  type FollowLogOptions,
  type ImageInfo,
  type LogReadOptions,
} from '../engines/container-engine';
import type { EngineWording } from '../engines/engine-wording';
import { isLoopbackPortFree } from '../engines/local-docker';

/** What the engine shows of the dry run; implemented by DryRunService. */
export interface DryRunRunSource {
  /** The dry run as a container (running, or exited after a stop); null before the first start (or after Remove). */
  container(): ContainerSummary | null;
  /** Stops a running dry run (the row's Stop); a stopped one stays as it is. */
  stop(): Promise<void>;
  /** Stops it if it runs and forgets it (the row's Remove): no container is left. */
  forget(): Promise<void>;
  readLog(options: LogReadOptions): string[];
  followLog(options: FollowLogOptions): Promise<void>;
  /** `die` when a run ends, `destroy` when it is forgotten; returns the unsubscribe. */
  onEvent(listener: (event: ContainerEvent) => void): () => void;
}

export const DRY_RUN_ENGINE_SUMMARY: EngineSummary = {
  id: DRY_RUN_ENGINE_ID,
  kind: 'dry-run',
  label: 'This computer (dry run)',
  endpoint: 'in-app swarm server on 127.0.0.1',
};

const START_FROM_CARD =
  'The dry run is started from its card on the Servers page ("This computer (dry run, no GPU)"): it needs the debug LLM, which a container start does not name.';

const wording: EngineWording = {
  product: 'the dry run',
  pullImage: () => 'The dry run runs no image: start it from its card on the Servers page.',
  unreachable: () => 'The dry run runs inside the app: restart the app if it does not answer.',
  permissionDenied: () => 'The dry run runs inside the app and needs no permission.',
  noGpuRuntime: () => 'The dry run uses no GPU: nothing is trained.',
};

/**
 * The dry run as a container engine (engine `dry-run`, one container `dry-run` while it runs or
 * after it stopped), so the swarm monitor, the training dashboard and the logs domain follow it
 * exactly as they follow a real swarm server: same polls, same events, same exit reasons. Starting
 * goes through the dry-run card (it needs the debug LLM); stop and remove work from anywhere.
 */
export class DryRunEngine implements ContainerEngine {
  readonly summary = DRY_RUN_ENGINE_SUMMARY;
  readonly wording = wording;
  /** No shell: the doctor's host checks and native mode do not apply to an in-app server. */
  readonly host = null;

  constructor(
    private readonly source: DryRunRunSource,
    private readonly appVersion: string,
  ) {}

  async health(): Promise<EngineHealth> {
    return { id: this.summary.id, reachable: true, version: this.appVersion, apiVersion: null, error: null };
  }

  async listContainers(labels: Record<string, string>): Promise<ContainerSummary[]> {
    const container = this.source.container();
    return container && carriesLabels(container.labels, labels) ? [container] : [];
  }

  async inspectContainer(id: string): Promise<ContainerSummary> {
    const container = this.source.container();
    if (!container || id !== DRY_RUN_CONTAINER_ID) throw this.notFound(id);
    return container;
  }

  async imageExists(): Promise<boolean> {
    return true;
  }

  async createContainer(): Promise<string> {
    throw new AppError('DRY_RUN_STATE', START_FROM_CARD);
  }

  async startContainer(): Promise<void> {
    throw new AppError('DRY_RUN_STATE', START_FROM_CARD);
  }

  async stopContainer(id: string): Promise<void> {
    await this.inspectContainer(id);
    await this.source.stop();
  }

  async removeContainer(id: string): Promise<void> {
    await this.inspectContainer(id);
    await this.source.forget();
  }

  async readLog(id: string, options: LogReadOptions): Promise<string[]> {
    await this.inspectContainer(id);
    return this.source.readLog(options);
  }

  async info(): Promise<EngineInfo> {
    return {
      operatingSystem: 'in-app dry run',
      osType: process.platform,
      serverVersion: this.appVersion,
      rootDir: '',
      runtimes: [],
      defaultRuntime: '',
      cdiDevices: [],
      rootless: true,
    };
  }

  async inspectImage(): Promise<ImageInfo | null> {
    return null;
  }

  async pullImage(): Promise<void> {
    throw new AppError('DRY_RUN_STATE', 'The dry run runs no image, so there is nothing to pull.');
  }

  async followLog(id: string, options: FollowLogOptions): Promise<void> {
    await this.inspectContainer(id);
    return this.source.followLog(options);
  }

  watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void): () => void {
    return this.source.onEvent((event) => {
      if (carriesLabels(event.labels, labels)) onEvent(event);
    });
  }

  /** No files: there is no /workspace/log/swarm_server.log; the log view shows the dry run's own output. */
  async readContainerFile(): Promise<string | null> {
    return null;
  }

  /** No container, no shell: the dry run is a server inside the app (and never asks for GPUs to check). */
  async execInContainer(id: string): Promise<ContainerExecResult> {
    await this.inspectContainer(id);
    throw new AppError('DRY_RUN_STATE', 'The dry run runs inside the app, not in a container: there is nothing to run a command in.');
  }

  isHostPortFree(port: number): Promise<boolean> {
    return isLoopbackPortFree(port);
  }

  async urlForHostPort(port: number): Promise<string> {
    return `http://127.0.0.1:${port}`;
  }

  async dispose(): Promise<void> {
    // The service owns the run and stops it on the app's dispose.
  }

  private notFound(id: string): AppError {
    return new AppError('CONTAINER_NOT_FOUND', `The dry run has no container ${id}: start the dry run from its card on the Servers page.`);
  }
}
