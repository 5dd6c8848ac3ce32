import { randomBytes } from 'node:crypto';
import { AppError } from '../../shared/errors';
import type { SwarmContainer, SwarmStartRequest } from '../../shared/schemas';
import {
  LABEL_APP_VERSION,
  LABEL_MANAGED,
  LABEL_NETWORK,
  LABEL_PORT,
  LABEL_ROLE,
  type ContainerEngine,
  type ContainerSpec,
  type ContainerSummary,
} from '../engines/container-engine';
import type { EngineRegistry } from '../engines/engine-registry';
import { imageNotFound, portInUse } from '../engines/docker-errors';
import type { EventSink } from '../events';
import type { SwarmMonitor } from './swarm-monitor';

export const SWARM_ROLE = 'swarm-server';
const SWARM_LABELS = { [LABEL_MANAGED]: 'true', [LABEL_ROLE]: SWARM_ROLE };
const GIB = 1024 ** 3;
const STOP_TIMEOUT_SECONDS = 20;

/**
 * The command the swarm image runs. Same as AgentJet's documented `ajet-swarm start`, without the
 * log redirect, so `docker logs` shows the server's output. Detached, no overwatch TUI.
 */
export function swarmCommand(port: number): string[] {
  return ['ajet-swarm', 'start', '--swarm-port', String(port)];
}

export function buildSwarmSpec(request: SwarmStartRequest, appVersion: string): ContainerSpec {
  const suffix = randomBytes(3).toString('hex');
  return {
    name: `agentswarm-swarm-${request.port}-${suffix}`,
    image: request.image,
    cmd: swarmCommand(request.port),
    // Plain logs: the server uses loguru/rich colours otherwise, which are noise in a log view.
    env: { NO_COLOR: '1', LOGURU_COLORIZE: 'NO' },
    labels: {
      ...SWARM_LABELS,
      [LABEL_PORT]: String(request.port),
      [LABEL_NETWORK]: request.networkMode,
      [LABEL_APP_VERSION]: appVersion,
    },
    network:
      request.networkMode === 'host'
        ? { mode: 'host' }
        : // Loopback only: the swarm API has no authentication (agentjet-swarm.md §1).
          { mode: 'publish', ports: [{ containerPort: request.port, hostIp: '127.0.0.1', hostPort: request.port }] },
    init: true,
    gpus: request.gpus,
    shmSizeBytes: request.shmSizeGb * GIB,
  };
}

export function toSwarmContainer(engineId: string, c: ContainerSummary): SwarmContainer {
  const port = Number(c.labels[LABEL_PORT] ?? '10086');
  return {
    id: c.id,
    name: c.name,
    engineId,
    image: c.image,
    state: c.state,
    statusText: c.statusText,
    port: Number.isInteger(port) && port >= 1024 && port <= 65535 ? port : 10086,
    networkMode: c.labels[LABEL_NETWORK] === 'host' ? 'host' : 'publish',
    createdAt: c.createdAt,
  };
}

export interface SwarmContainersOptions {
  engines: EngineRegistry;
  monitor: SwarmMonitor;
  events: EventSink;
  appVersion: string;
}

/** Start, stop, remove and list the swarm-server containers the app manages, on any engine. */
export class SwarmContainers {
  private readonly starting = new Set<string>();

  constructor(private readonly options: SwarmContainersOptions) {}

  async list(engineId: string): Promise<SwarmContainer[]> {
    const engine = this.options.engines.get(engineId);
    const containers = await engine.listContainers(SWARM_LABELS);
    return containers.map((c) => toSwarmContainer(engineId, c));
  }

  async start(request: SwarmStartRequest): Promise<SwarmContainer> {
    // Two Starts for one port (two windows, Electron and the browser host) would both pass the
    // checks below before either container exists; hold the port until this one is done.
    const key = `${request.engineId}:${request.port}`;
    if (this.starting.has(key)) {
      throw new AppError('CONTAINER_CONFLICT', `A swarm server is already being started on port ${request.port}. Wait for it to finish.`);
    }
    this.starting.add(key);
    try {
      return await this.startUnlocked(request);
    } finally {
      this.starting.delete(key);
    }
  }

  private async startUnlocked(request: SwarmStartRequest): Promise<SwarmContainer> {
    const engine = this.options.engines.get(request.engineId);
    const health = await engine.health();
    if (!health.reachable) {
      throw new AppError(
        health.error?.code === 'ENGINE_PERMISSION_DENIED' ? 'ENGINE_PERMISSION_DENIED' : 'ENGINE_UNREACHABLE',
        health.error?.message ?? `Cannot reach ${engine.summary.label}.`,
      );
    }
    const running = (await this.list(request.engineId)).find((c) => c.port === request.port && c.state === 'running');
    if (running) {
      throw new AppError(
        'CONTAINER_CONFLICT',
        `A swarm server (${running.name}) already runs on port ${request.port}. Stop it first, or choose another port.`,
      );
    }
    if (!(await engine.imageExists(request.image))) throw imageNotFound(request.image);
    if (!(await engine.isHostPortFree(request.port))) throw portInUse(request.port);

    const id = await engine.createContainer(buildSwarmSpec(request, this.options.appVersion));
    try {
      await engine.startContainer(id, { port: request.port });
    } catch (error) {
      // Never leave a half-created container behind: it would block the name and confuse the list.
      await engine.removeContainer(id).catch(() => undefined);
      this.changed(request.engineId);
      throw error;
    }
    const container = toSwarmContainer(request.engineId, await engine.inspectContainer(id));
    await this.watch(engine, container);
    this.changed(request.engineId);
    return container;
  }

  async stop(engineId: string, containerId: string): Promise<SwarmContainer> {
    const engine = this.options.engines.get(engineId);
    const container = await this.requireManaged(engine, containerId);
    // Unwatch only once Docker confirmed the stop: a failed stop leaves a running, watched server.
    await engine.stopContainer(container.id, STOP_TIMEOUT_SECONDS);
    this.options.monitor.unwatch(container.id);
    this.changed(engineId);
    return toSwarmContainer(engineId, await engine.inspectContainer(container.id));
  }

  async remove(engineId: string, containerId: string): Promise<{ removed: true }> {
    const engine = this.options.engines.get(engineId);
    const container = await this.requireManaged(engine, containerId);
    this.options.monitor.unwatch(container.id);
    await engine.removeContainer(container.id);
    this.changed(engineId);
    return { removed: true };
  }

  /** After an app restart: find our running swarm containers on every engine and watch them again. */
  async resumeWatching(): Promise<void> {
    for (const engine of this.options.engines.all()) {
      const containers = await this.list(engine.summary.id).catch(() => []);
      for (const container of containers) {
        if (container.state === 'running') await this.watch(engine, container);
      }
    }
  }

  private async watch(engine: ContainerEngine, container: SwarmContainer): Promise<void> {
    const url = await engine.urlForHostPort(container.port);
    this.options.monitor.watch({ engineId: container.engineId, containerId: container.id, url });
  }

  /** Refuses to touch containers that are not ours, even when the renderer names one. */
  private async requireManaged(engine: ContainerEngine, containerId: string): Promise<ContainerSummary> {
    const container = await engine.inspectContainer(containerId);
    if (container.labels[LABEL_MANAGED] !== 'true' || container.labels[LABEL_ROLE] !== SWARM_ROLE) {
      throw new AppError(
        'CONTAINER_NOT_FOUND',
        `Container ${container.name} was not started by AgentSwarm Desktop, so the app leaves it alone.`,
      );
    }
    return container;
  }

  private changed(engineId: string): void {
    this.options.events.emit('swarm:containers-changed', { engineId });
  }
}
