import { randomBytes } from 'node:crypto';
import { GIB, SWARM_DEFAULT_PORT } from '../../shared/defaults';
import { AppError } from '../../shared/errors';
import { Port, type SwarmContainer, type SwarmStartRequest } from '../../shared/schemas';
import {
  LABEL_APP_VERSION,
  LABEL_MANAGED,
  LABEL_NETWORK,
  LABEL_PORT,
  LABEL_PROFILE,
  LABEL_ROLE,
  type ContainerEngine,
  type ContainerSpec,
  type ContainerSummary,
} from '../engines/container-engine';
import type { EngineRegistry } from '../engines/engine-registry';
import { imageNotFound, portInUse } from '../engines/engine-wording';
import type { EventSink } from '../events';
import type { Logger } from '../util/logger';
import { verifyGpus } from './gpu-verify';
import type { SwarmMonitor } from './swarm-monitor';

export const SWARM_ROLE = 'swarm-server';
const SWARM_LABELS = { [LABEL_MANAGED]: 'true', [LABEL_ROLE]: SWARM_ROLE };
const STOP_TIMEOUT_SECONDS = 20;
/** A container removed right after start never ran training: no need to give it long to stop. */
const DISCARD_STOP_SECONDS = 2;

/**
 * The command the swarm image runs. Same as AgentJet's documented `ajet-swarm start`, without the
 * log redirect, so `docker logs` shows the server's output. Detached, no overwatch TUI.
 */
/** Plain logs: the server uses loguru/rich colours otherwise, which are noise in a log view. */
export const PLAIN_LOG_ENV: Readonly<Record<string, string>> = { NO_COLOR: '1', LOGURU_COLORIZE: 'NO' };

export function swarmCommand(port: number): string[] {
  return ['ajet-swarm', 'start', '--swarm-port', String(port)];
}

export function buildSwarmSpec(request: SwarmStartRequest, appVersion: string): ContainerSpec {
  const suffix = randomBytes(3).toString('hex');
  return {
    name: `agentswarm-swarm-${request.port}-${suffix}`,
    image: request.image,
    cmd: swarmCommand(request.port),
    env: { ...PLAIN_LOG_ENV },
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
    gpus: request.gpus ? { mode: 'all' } : { mode: 'none' },
    shm: { mode: 'size', bytes: request.shmSizeGb * GIB },
    binds: [],
  };
}

export function toSwarmContainer(engineId: string, c: ContainerSummary): SwarmContainer {
  const port = Number(c.labels[LABEL_PORT] ?? SWARM_DEFAULT_PORT);
  return {
    id: c.id,
    name: c.name,
    engineId,
    image: c.image,
    state: c.state,
    statusText: c.statusText,
    port: Port.safeParse(port).success ? port : SWARM_DEFAULT_PORT,
    networkMode: c.labels[LABEL_NETWORK] === 'host' ? 'host' : 'publish',
    createdAt: c.createdAt,
    startedAt: c.startedAt,
    finishedAt: c.finishedAt,
    exitCode: c.exitCode,
    ...(c.labels[LABEL_PROFILE] ? { profileId: c.labels[LABEL_PROFILE] } : {}),
  };
}

export interface SwarmContainersOptions {
  engines: EngineRegistry;
  monitor: SwarmMonitor;
  events: EventSink;
  appVersion: string;
  /** Where the post-start GPU check says what it saw and how long it took. */
  logger?: Logger;
}

/** Start, stop, remove and list the swarm-server containers the app manages, on any engine. */
export class SwarmContainers {
  private readonly starting = new Set<string>();
  private readonly listeners = new Set<(engineId: string) => void>();

  constructor(private readonly options: SwarmContainersOptions) {}

  async list(engineId: string): Promise<SwarmContainer[]> {
    return (await this.listOurs(engineId)).map((c) => toSwarmContainer(engineId, c));
  }

  /** Our swarm containers on `engineId` that also carry `labels`, with all their labels (profile, config hash). */
  async listOurs(engineId: string, labels: Record<string, string> = {}): Promise<ContainerSummary[]> {
    return this.options.engines.get(engineId).listContainers({ ...labels, ...SWARM_LABELS });
  }

  /** Called after this service started, stopped or removed a container on an engine (what `swarm:containers-changed` says). */
  onChanged(listener: (engineId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The quick-start form: a spec from the request, then `startSpec`. */
  async start(request: SwarmStartRequest): Promise<SwarmContainer> {
    return this.startSpec(request.engineId, buildSwarmSpec(request, this.options.appVersion));
  }

  /**
   * Creates and starts a given spec (a profile's, or the quick-start form's) on `engineId`, with the
   * port lock, the checks before create, no half-created container left behind, and the monitor
   * watching it. The port is the spec's `io.agentswarm.port` label.
   */
  async startSpec(engineId: string, spec: ContainerSpec): Promise<SwarmContainer> {
    const port = Number(spec.labels[LABEL_PORT]);
    if (!Port.safeParse(port).success) throw new AppError('INTERNAL', `The container spec ${spec.name} names no valid port label.`);
    // Two Starts for one port (two windows, Electron and the browser host) would both pass the
    // checks below before either container exists; hold the port until this one is done.
    const key = `${engineId}:${port}`;
    if (this.starting.has(key)) {
      throw new AppError('CONTAINER_CONFLICT', `A swarm server is already being started on port ${port}. Wait for it to finish.`);
    }
    this.starting.add(key);
    try {
      return await this.startUnlocked(engineId, spec, port);
    } finally {
      this.starting.delete(key);
    }
  }

  private async startUnlocked(engineId: string, spec: ContainerSpec, port: number): Promise<SwarmContainer> {
    const engine = this.options.engines.get(engineId);
    const native = spec.runtime === 'native';
    // The checks are independent: ask them at once, so Start costs one round trip before create.
    // An unreachable engine fails the list with ENGINE_UNREACHABLE / ENGINE_PERMISSION_DENIED.
    // Native mode runs no image: nothing to look for.
    const [ours, imageThere, portFree] = await Promise.all([
      this.list(engineId),
      native ? Promise.resolve(true) : engine.imageExists(spec.image),
      engine.isHostPortFree(port),
    ]);
    const running = ours.find((c) => c.port === port && c.state === 'running');
    if (running) {
      throw new AppError(
        'CONTAINER_CONFLICT',
        `A swarm server (${running.name}) already runs on port ${port}. Stop it first, or choose another port.`,
      );
    }
    if (!imageThere) throw imageNotFound(spec.image, engine.wording);
    if (!portFree) throw portInUse(port);

    const id = await engine.createContainer(spec);
    try {
      await engine.startContainer(id, { port });
    } catch (error) {
      await this.discard(engine, engineId, id, false);
      throw error;
    }
    // Before the monitor watches it: a GPU-less server is removed here, never reported as a crash.
    // The port lock is still held, so no second Start sees the container that is about to go.
    const gpus = await verifyGpus(engine, id, spec);
    if (gpus.status === 'failed') {
      this.options.logger?.warn('swarm server started without its GPUs: removed', { engineId, containerId: id, ms: gpus.ms });
      await this.discard(engine, engineId, id, true);
      throw gpus.error;
    }
    if (gpus.status === 'passed') this.options.logger?.info?.('GPU check after start passed', { engineId, containerId: id, detail: gpus.detail, ms: gpus.ms });
    else if (spec.gpus.mode !== 'none') this.options.logger?.warn('GPU check after start skipped', { engineId, containerId: id, reason: gpus.reason });
    // Watch before anything else: the first status is what the user waits for.
    const url = await engine.urlForHostPort(port);
    this.options.monitor.watch({ engineId, containerId: id, url });
    this.changed(engineId);
    return toSwarmContainer(engineId, await engine.inspectContainer(id));
  }

  async stop(engineId: string, containerId: string): Promise<SwarmContainer> {
    const engine = this.options.engines.get(engineId);
    const container = await this.requireManaged(engine, containerId);
    // Unwatch only once the engine confirmed the stop: a failed stop leaves a running, watched server.
    await engine.stopContainer(container.id, STOP_TIMEOUT_SECONDS);
    await this.options.monitor.unwatch(engineId, container.id);
    await this.releasePort(engine, container);
    this.changed(engineId);
    return toSwarmContainer(engineId, await engine.inspectContainer(container.id));
  }

  async remove(engineId: string, containerId: string): Promise<{ removed: true }> {
    const engine = this.options.engines.get(engineId);
    const container = await this.requireManaged(engine, containerId);
    this.options.monitor.forget(engineId, container.id);
    await engine.removeContainer(container.id);
    await this.releasePort(engine, container);
    this.changed(engineId);
    return { removed: true };
  }

  /**
   * After an app restart: find our swarm containers on every engine, watch the running ones again
   * and record why the others ended (inspect + log), so the rows still say it. With `engineId`, only
   * that engine's (an SSH server that came up again).
   */
  async resumeWatching(engineId?: string): Promise<void> {
    const engines = this.options.engines.all().filter((e) => engineId === undefined || e.summary.id === engineId);
    await Promise.all(
      engines.map(async (engine) => {
        const containers = await this.list(engine.summary.id).catch(() => []);
        const running = new Set(containers.filter((c) => c.state === 'running').map((c) => c.port));
        await Promise.all(
          containers.map(async (container) => {
            const target = { engineId: container.engineId, containerId: container.id, url: await engine.urlForHostPort(container.port) };
            if (container.state === 'running') return this.options.monitor.watch(target);
            await this.options.monitor.recordEnded(target);
            // Nothing serves an ended container's port: its URL is history, not a tunnel to keep.
            if (!running.has(container.port)) await engine.releaseHostPort?.(container.port).catch(() => undefined);
          }),
        );
      }),
    );
  }

  /**
   * The server on this port is gone: let the engine close what it opened to reach it (a remote
   * engine's tunnel), unless another of our containers still runs on that port. Never fails the
   * stop or remove that called it: the container is already gone.
   */
  private async releasePort(engine: ContainerEngine, container: ContainerSummary): Promise<void> {
    if (!engine.releaseHostPort) return;
    const port = Number(container.labels[LABEL_PORT]);
    if (!Number.isInteger(port)) return;
    try {
      const others = await engine.listContainers({ ...SWARM_LABELS, [LABEL_PORT]: String(port) });
      if (others.some((c) => c.id !== container.id && c.state === 'running')) return;
      await engine.releaseHostPort(port);
    } catch {
      // Keeping an idle tunnel open is harmless; failing a stop that succeeded is not.
    }
  }

  /**
   * Never leave a half-created (or GPU-less) container behind: it would block the name and confuse
   * the list. `stopFirst`: it ran, so it gets a short stop before the forced remove.
   */
  private async discard(engine: ContainerEngine, engineId: string, id: string, stopFirst: boolean): Promise<void> {
    if (stopFirst) await engine.stopContainer(id, DISCARD_STOP_SECONDS).catch(() => undefined);
    await engine.removeContainer(id).catch(() => undefined);
    // An app-wide rediscovery (an engine reconnected) may have picked it up meanwhile: nothing is left to report.
    if (this.options.monitor.statuses().some((s) => s.engineId === engineId && s.containerId === id)) this.options.monitor.forget(engineId, id);
    this.changed(engineId);
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
    for (const listener of this.listeners) {
      try {
        listener(engineId);
      } catch {
        // A listener's bug must not fail the start or stop that already happened.
      }
    }
  }
}
