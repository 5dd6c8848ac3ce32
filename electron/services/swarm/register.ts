import type { DomainModule, ServiceContext } from '../domain';
import { createSwarmMonitor } from './create-monitor';
import { OwnStops } from './own-stops';
import { SwarmContainers } from './swarm-containers';
import type { SwarmMonitor } from './swarm-monitor';

export interface SwarmModule extends DomainModule<'swarm'> {
  /** The status monitor: other domains follow its targets (logs, training monitor). */
  readonly monitor: SwarmMonitor;
  readonly containers: SwarmContainers;
}

/** `swarm:*`: swarm-server containers and their status monitor. At start, resumes watching ours. */
export function registerSwarm(context: ServiceContext): SwarmModule {
  const { engines, events } = context;
  let containers: SwarmContainers | null = null;
  // A server that starts running while nobody watches it (a queued job reached a node): adopt it.
  // Only on a scheduler (queuesJobs): a Docker daemon's `start` events include containers reached through another engine
  // of the app (local Docker and an SSH server on the same daemon: the test bed's case), and adopting those
  // would watch one server twice, once past its tunnel (seen in e2e). Docker servers are found at rediscovery.
  const ownStops = new OwnStops(context.dataDir, context.logger);
  const monitor = createSwarmMonitor(engines, events, { intervalMs: context.monitorIntervalMs, ownStops, logger: context.logger }, (engineId, event) => {
    if (event.action !== 'start' || !containers || monitor.isWatching(engineId, event.containerId)) return;
    if (!engines.has(engineId) || engines.get(engineId).queuesJobs !== true) return;
    void containers.adoptStarted(engineId, event.containerId);
  }, context.visibility);
  containers = new SwarmContainers({ engines, monitor, events, appVersion: context.version, logger: context.logger, ...(context.containerScope ? { scope: context.containerScope } : {}) });
  // An engine that answers again (an SSH server up at start or after a reconnect): find its
  // containers and watch them through its tunnel again. A removed engine: stop watching its containers.
  engines.onChange(({ kind, engineId }) => {
    if (kind === 'reconnected') {
      void containers
        .resumeWatching(engineId)
        .catch((error: unknown) => context.logger.warn('could not find the containers of a reconnected engine again', { engineId, message: String((error as Error)?.message ?? error) }))
        .then(() => events.emit('swarm:containers-changed', { engineId }));
    } else if (kind === 'removed') {
      for (const s of monitor.statuses()) if (s.engineId === engineId) monitor.forget(engineId, s.containerId);
      events.emit('swarm:containers-changed', { engineId });
    }
  });

  return {
    monitor,
    containers,
    handlers: {
      'swarm:list': async ({ engineId }) => containers.list(engineId),
      'swarm:start': async (request) => containers.start(request),
      'swarm:stop': async ({ engineId, containerId }) => containers.stop(engineId, containerId),
      'swarm:remove': async ({ engineId, containerId }) => containers.remove(engineId, containerId),
      'swarm:statuses': async () => monitor.statuses(),
    },
    start: () => containers.resumeWatching(),
    dispose: () => {
      containers.dispose();
      monitor.dispose();
    },
  };
}
