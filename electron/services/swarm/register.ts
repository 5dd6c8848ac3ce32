import type { DomainModule, ServiceContext } from '../domain';
import { createSwarmMonitor } from './create-monitor';
import { SwarmContainers } from './swarm-containers';

/** `swarm:*`: swarm-server containers and their status monitor. At start, resumes watching ours. */
export function registerSwarm(context: ServiceContext): DomainModule<'swarm'> {
  const { engines, events } = context;
  const monitor = createSwarmMonitor(engines, events, { intervalMs: context.monitorIntervalMs });
  const containers = new SwarmContainers({ engines, monitor, events, appVersion: context.version });

  return {
    handlers: {
      'swarm:list': async ({ engineId }) => containers.list(engineId),
      'swarm:start': async (request) => containers.start(request),
      'swarm:stop': async ({ engineId, containerId }) => containers.stop(engineId, containerId),
      'swarm:remove': async ({ engineId, containerId }) => containers.remove(engineId, containerId),
      'swarm:statuses': async () => monitor.statuses(),
    },
    start: () => containers.resumeWatching(),
    dispose: () => monitor.dispose(),
  };
}
