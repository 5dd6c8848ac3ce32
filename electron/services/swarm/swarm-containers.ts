import { AppError, isAppError } from '../../shared/errors';
import { Port, type SwarmContainer, type SwarmStartRequest } from '../../shared/schemas';
import { carriesLabels, LABEL_MANAGED, LABEL_PORT, LABEL_ROLE, type ContainerEngine, type ContainerSpec, type ContainerSummary } from '../engines/container-engine';
import type { EngineRegistry } from '../engines/engine-registry';
import { imageNotFound, portInUse } from '../engines/engine-wording';
import type { EventSink } from '../events';
import type { Logger } from '../util/logger';
import { verifyGpus, type GpuCheckOutcome } from './gpu-verify';
import { gpuSpecOf, isQueued, waitForUrl, type GpuSpec } from './queued-start';
import { statusKey, type SwarmMonitor } from './swarm-monitor';
import { releaseSwarmPort } from './release-port';
import { buildSwarmSpec, SWARM_LABELS, SWARM_ROLE, toSwarmContainer } from './swarm-spec';
import { hostPortHolder } from '../engines/host-port-holder';

export { buildSwarmSpec, PLAIN_LOG_ENV, SWARM_ROLE, swarmCommand, toSwarmContainer } from './swarm-spec';

const STOP_TIMEOUT_SECONDS = 20;
/** A container removed right after start never ran training: no need to give it long to stop. */
const DISCARD_STOP_SECONDS = 2;

export interface SwarmContainersOptions {
  engines: EngineRegistry;
  monitor: SwarmMonitor;
  events: EventSink;
  appVersion: string;
  /** Where the post-start GPU check says what it saw and how long it took. */
  logger?: Logger;
  /** A server adopted after its queue wait: how often and how long its URL is asked for (a Slurm job writes its endpoint a moment after it runs). */
  urlRetryMs?: number;
  urlWaitMs?: number;
  /** Labels our swarm containers must also carry to be listed (AppServicesOptions.containerScope; tests). */
  scope?: Record<string, string>;
}

const URL_RETRY_MS = 2000;
const URL_WAIT_MS = 120_000;
/**
 * A queued server found at resume is looked at once more after this: it may have started between the
 * listing and the first poll of its engine's events (the poll's baseline), which then has no `start` for it.
 */
const RESUME_RECHECK_MS = 15_000;

/** Start, stop, remove and list the swarm-server containers the app manages, on any engine. */
type StoppingListener = (engineId: string, containerId: string, stopping: boolean) => void;

export class SwarmContainers {
  private readonly starting = new Set<string>();
  private readonly listeners = new Set<(engineId: string) => void>();
  private readonly stoppingListeners = new Set<StoppingListener>();
  /** Containers (statusKey) inside startSpec right now: their `start` event is startSpec's to handle. */
  private readonly inStart = new Set<string>();
  /** `start` events that came while startSpec held the container: adopted once startSpec returned it queued. */
  private readonly missedStarts = new Set<string>();
  private readonly adopting = new Set<string>();
  /** The GPU request of each server started queued, for the check when it runs (lost on an app restart). */
  private readonly queuedSpecs = new Map<string, GpuSpec>();
  private readonly rechecks = new Set<ReturnType<typeof setTimeout>>();

  constructor(private readonly options: SwarmContainersOptions) {}

  async list(engineId: string): Promise<SwarmContainer[]> {
    return (await this.listOurs(engineId)).map((c) => toSwarmContainer(engineId, c));
  }

  /** Our swarm containers on `engineId` that also carry `labels`, with all their labels (profile, config hash). */
  async listOurs(engineId: string, labels: Record<string, string> = {}): Promise<ContainerSummary[]> {
    return this.options.engines.get(engineId).listContainers({ ...labels, ...this.options.scope, ...SWARM_LABELS });
  }

  /** Called after this service started, stopped or removed a container on an engine (what `swarm:containers-changed` says). */
  onChanged(listener: (engineId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called when the app's Stop of a server begins (true) and returns (false): the server is "stopping" meanwhile. */
  onStopping(listener: StoppingListener): () => void {
    this.stoppingListeners.add(listener);
    return () => this.stoppingListeners.delete(listener);
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
    // A queued job takes the port once it runs: a second server for it would be a second job in the queue.
    const queued = ours.find((c) => c.port === port && isQueued(c));
    if (queued) {
      throw new AppError('CONTAINER_CONFLICT', `A swarm server (${queued.name}, job ${queued.id}) waits in the queue for port ${port} (${queued.statusText}). Cancel it first, or choose another port.`);
    }
    if (!imageThere) throw imageNotFound(spec.image, engine.wording);
    if (!portFree) throw portInUse(port, undefined, await hostPortHolder(engine, port));

    const id = await engine.createContainer(spec);
    const key = statusKey(engineId, id);
    this.inStart.add(key);
    let adoptLater = false;
    try {
      const { container, deferred } = await this.startCreated(engine, engineId, id, spec, port);
      adoptLater = deferred;
      return container;
    } finally {
      this.inStart.delete(key);
      // It started running while startSpec held it (its `start` event was skipped), or it runs without a URL yet.
      if (this.missedStarts.delete(key) || adoptLater) void this.adoptStarted(engineId, id, { gpusChecked: !this.queuedSpecs.has(key) }).catch(() => undefined);
    }
  }

  /** `deferred`: not watched yet (queued, or running without a URL yet): adopted when it serves. */
  private async startCreated(engine: ContainerEngine, engineId: string, id: string, spec: ContainerSpec, port: number): Promise<{ container: SwarmContainer; deferred: boolean }> {
    try {
      await engine.startContainer(id, { port });
    } catch (error) {
      await this.discard(engine, engineId, id, false);
      throw error;
    }
    const started = await engine.inspectContainer(id);
    if (isQueued(started)) {
      // Waits for its turn (a Slurm job): the GPU check, URL and monitor come when it runs (adoptStarted).
      this.queuedSpecs.set(statusKey(engineId, id), gpuSpecOf(spec));
      this.options.logger?.info?.('swarm server queued: adopted when it runs', { engineId, containerId: id, status: started.statusText });
      this.changed(engineId);
      return { container: toSwarmContainer(engineId, started), deferred: false };
    }
    // Before the monitor watches it: a GPU-less server is removed here, never reported as a crash.
    // The port lock is still held, so no second Start sees the container that is about to go.
    const gpus = await this.checkGpus(engine, engineId, id, spec);
    if (gpus.status === 'failed') {
      await this.discard(engine, engineId, id, true);
      throw gpus.error;
    }
    if (engine.queuesJobs && started.state === 'exited') {
      // A job that ended at once (a bad activate line, a missing image): kept, so the queue card shows its output; said here.
      this.changed(engineId);
      const tail = await engine.readLog(id, { tail: 6 }).catch(() => []);
      throw new AppError('CONTAINER_START_FAILED', `${engine.wording.product} job ${id} ended at once (${started.statusText}).${tail.length ? ` Its output ends with: ${tail.join(' | ')}` : ''} Fix the profile's ${engine.wording.product} options, then start again.`);
    }
    let url: string;
    try {
      url = await engine.urlForHostPort(port);
    } catch (error) {
      // A Slurm job on its node writes its endpoint a moment after it runs: watched once it has (adoptStarted).
      if (!engine.queuesJobs || started.state !== 'running') throw error;
      this.changed(engineId);
      return { container: toSwarmContainer(engineId, started), deferred: true };
    }
    // Watch before anything else: the first status is what the user waits for.
    this.options.monitor.watch({ engineId, containerId: id, url });
    this.changed(engineId);
    return { container: toSwarmContainer(engineId, await engine.inspectContainer(id)), deferred: false };
  }

  /** The post-start GPU check, logged; `spec` null when its request is not known (queued before an app restart, started by hand). */
  private async checkGpus(engine: ContainerEngine, engineId: string, id: string, spec: GpuSpec | null): Promise<GpuCheckOutcome> {
    const log = this.options.logger;
    if (spec === null) {
      const reason = 'its GPU request is not known here (it was queued before the app restarted, or started outside the app)';
      log?.warn('GPU check after start skipped', { engineId, containerId: id, reason });
      return { status: 'skipped', reason };
    }
    const gpus = await verifyGpus(engine, id, spec);
    const unchecked = engine.gpusNotChecked?.(spec) ?? null;
    if (gpus.status === 'failed') log?.warn('swarm server started without its GPUs: removed', { engineId, containerId: id, ms: gpus.ms });
    else if (gpus.status === 'passed') log?.info?.('GPU check after start passed', { engineId, containerId: id, detail: gpus.detail, ms: gpus.ms });
    else if (spec.gpus.mode !== 'none' || spec.batch?.gpus || unchecked) log?.warn('GPU check after start skipped', { engineId, containerId: id, reason: unchecked ?? gpus.reason });
    return gpus;
  }

  /**
   * A server that started running after startSpec returned (a queued Slurm job reached a node, or a job
   * that ran without its endpoint): the GPU check (unless done at start), its URL (asked every ~2 s for up
   * to ~2 min: a Slurm job writes its endpoint a moment after it runs), then the monitor. A server already
   * watched, being adopted, or inside startSpec is left alone. Resolves true when it is watched now; a
   * server without its GPUs is stopped and removed, as at start (the log says why).
   */
  async adoptStarted(engineId: string, containerId: string, options: { gpusChecked?: boolean } = {}): Promise<boolean> {
    const key = statusKey(engineId, containerId);
    if (this.inStart.has(key)) {
      this.missedStarts.add(key);
      return false;
    }
    if (this.adopting.has(key) || this.options.monitor.isWatching(engineId, containerId)) return false;
    this.adopting.add(key);
    try {
      return await this.adopt(engineId, containerId, key, options.gpusChecked === true);
    } catch (error) {
      // Removed meanwhile (a start that failed and was cleaned up, a Remove): nothing to adopt.
      if (isAppError(error) && error.code === 'CONTAINER_NOT_FOUND') return false;
      this.options.logger?.warn('could not adopt a swarm server that started', { engineId, containerId, message: String((error as Error)?.message ?? error) });
      return false;
    } finally {
      this.adopting.delete(key);
    }
  }

  private async adopt(engineId: string, containerId: string, key: string, gpusChecked: boolean): Promise<boolean> {
    const engine = this.options.engines.get(engineId);
    const container = await this.requireManaged(engine, containerId);
    const port = Number(container.labels[LABEL_PORT]);
    if (container.state !== 'running' || !Port.safeParse(port).success || !carriesLabels(container.labels, this.options.scope ?? {})) return false;
    if (!gpusChecked) {
      const spec = this.queuedSpecs.get(key) ?? null;
      this.queuedSpecs.delete(key);
      const gpus = await this.checkGpus(engine, engineId, containerId, spec);
      if (gpus.status === 'failed') {
        this.options.logger?.warn('a queued swarm server ran without its GPUs: stopped and removed', { engineId, containerId, message: gpus.error.message });
        await this.discard(engine, engineId, containerId, true);
        return false;
      }
    }
    const running = async () => (await engine.inspectContainer(containerId)).state === 'running';
    const got = await waitForUrl({ url: () => engine.urlForHostPort(port), running, everyMs: this.options.urlRetryMs ?? URL_RETRY_MS, forMs: this.options.urlWaitMs ?? URL_WAIT_MS });
    if (got.url === null) {
      this.options.logger?.warn('a swarm server that started is not watched', { engineId, containerId, reason: got.why });
      this.changed(engineId);
      return false;
    }
    this.options.monitor.watch({ engineId, containerId, url: got.url });
    this.changed(engineId);
    return true;
  }

  async stop(engineId: string, containerId: string): Promise<SwarmContainer> {
    const engine = this.options.engines.get(engineId);
    const container = await this.requireManaged(engine, containerId);
    // Unwatch only once the engine confirmed the stop: a failed stop leaves a running, watched server.
    this.options.monitor.expectStop(engineId, container.id);
    for (const tell of this.stoppingListeners) tell(engineId, container.id, true);
    try {
      await engine.stopContainer(container.id, STOP_TIMEOUT_SECONDS);
    } catch (error) {
      this.options.monitor.stopFailed(engineId, container.id);
      throw error;
    } finally {
      for (const tell of this.stoppingListeners) tell(engineId, container.id, false);
    }
    this.queuedSpecs.delete(statusKey(engineId, container.id));
    await this.options.monitor.unwatch(engineId, container.id);
    await releaseSwarmPort(engine, container);
    this.changed(engineId);
    return toSwarmContainer(engineId, await engine.inspectContainer(container.id));
  }

  async remove(engineId: string, containerId: string): Promise<{ removed: true }> {
    const engine = this.options.engines.get(engineId);
    const container = await this.requireManaged(engine, containerId);
    this.options.monitor.forget(engineId, container.id);
    await engine.removeContainer(container.id);
    this.queuedSpecs.delete(statusKey(engineId, container.id));
    await releaseSwarmPort(engine, container);
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
            try {
              await this.resumeOne(engine, container, running.has(container.port));
            } catch (error) {
              // One container the engine cannot describe must not keep the others unwatched.
              this.options.logger?.warn('could not watch a swarm server again', { engineId: container.engineId, containerId: container.id, message: String((error as Error)?.message ?? error) });
            }
          }),
        );
      }),
    );
  }

  private async resumeOne(engine: ContainerEngine, container: SwarmContainer, portServed: boolean): Promise<void> {
    const { engineId, id: containerId } = container;
    // A Start holds this port right now (the container may be listed between create and start): that Start
    // watches it; recording it as ended here would release the tunnel the Start is opening (seen in e2e).
    if (this.starting.has(`${engineId}:${container.port}`)) return;
    // Waiting for its turn: nothing to reach or to record yet; its `start` event adopts it (register.ts).
    if (isQueued(container)) {
      const timer = setTimeout(() => {
        this.rechecks.delete(timer);
        void this.adoptStarted(engineId, containerId);
      }, RESUME_RECHECK_MS);
      timer.unref?.();
      this.rechecks.add(timer);
      return;
    }
    if (container.state === 'running') {
      const url = await engine.urlForHostPort(container.port).catch(() => null);
      // Started while the app was away and has not written its endpoint yet: asked again until it has.
      if (url === null) return void this.adoptStarted(engineId, containerId, { gpusChecked: true });
      return this.options.monitor.watch({ engineId, containerId, url });
    }
    // An ended Slurm job has no URL any more (its port label is all that is left): the status keeps the local address.
    const url = await engine.urlForHostPort(container.port).catch(() => `http://127.0.0.1:${container.port}`);
    await this.options.monitor.recordEnded({ engineId, containerId, url });
    // Nothing serves an ended container's port: its URL is history, not a tunnel to keep.
    if (!portServed) await engine.releaseHostPort?.(container.port).catch(() => undefined);
  }

  /** The app quits: no adoption starts after this. */
  dispose(): void {
    for (const timer of this.rechecks) clearTimeout(timer);
    this.rechecks.clear();
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
