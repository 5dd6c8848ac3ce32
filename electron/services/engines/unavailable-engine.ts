import { AppError } from '../../shared/errors';
import type { EngineHealth, EngineSummary } from '../../shared/schemas';
import type { ContainerEngine, ContainerExecResult, ContainerSummary, EngineInfo, ImageInfo } from './container-engine';
import type { EngineWording } from './engine-wording';

/**
 * Stands in for an engine that cannot even be configured (e.g. a DOCKER_HOST scheme we do not
 * support), so the app still starts and the Servers page explains the problem instead of the
 * whole app exiting at boot.
 */
export class UnavailableEngine implements ContainerEngine {
  constructor(
    readonly summary: EngineSummary,
    readonly wording: EngineWording,
    private readonly reason: string,
  ) {}

  private fail(): AppError {
    return new AppError('ENGINE_UNREACHABLE', this.reason);
  }

  async health(): Promise<EngineHealth> {
    return { id: this.summary.id, reachable: false, version: null, apiVersion: null, error: { code: 'ENGINE_UNREACHABLE', message: this.reason } };
  }

  async listContainers(): Promise<ContainerSummary[]> {
    throw this.fail();
  }
  async inspectContainer(): Promise<ContainerSummary> {
    throw this.fail();
  }
  async imageExists(): Promise<boolean> {
    throw this.fail();
  }
  async createContainer(): Promise<string> {
    throw this.fail();
  }
  async startContainer(): Promise<void> {
    throw this.fail();
  }
  async stopContainer(): Promise<void> {
    throw this.fail();
  }
  async removeContainer(): Promise<void> {
    throw this.fail();
  }
  async readLog(): Promise<string[]> {
    throw this.fail();
  }
  async isHostPortFree(): Promise<boolean> {
    throw this.fail();
  }
  async urlForHostPort(): Promise<string> {
    throw this.fail();
  }
  readonly host = null;
  async info(): Promise<EngineInfo> {
    throw this.fail();
  }
  async inspectImage(): Promise<ImageInfo | null> {
    throw this.fail();
  }
  async pullImage(): Promise<void> {
    throw this.fail();
  }
  async followLog(): Promise<void> {
    throw this.fail();
  }
  watchEvents(): () => void {
    return () => undefined;
  }
  async readContainerFile(): Promise<string | null> {
    throw this.fail();
  }
  async execInContainer(): Promise<ContainerExecResult> {
    throw this.fail();
  }
  async dispose(): Promise<void> {}
}
