import { isAppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import { describeExit } from './describe-exit';
import { SwarmContainers } from './swarm-containers';
import { SwarmMonitor } from './swarm-monitor';

/** `swarm:*`: swarm-server containers and their status monitor. At start, resumes watching ours. */
export function registerSwarm(context: ServiceContext): DomainModule<'swarm'> {
  const { engines, events } = context;
  const monitor = new SwarmMonitor({
    events,
    ...(context.monitorIntervalMs ? { intervalMs: context.monitorIntervalMs } : {}),
    isContainerRunning: async (target) => {
      try {
        return (await engines.get(target.engineId).inspectContainer(target.containerId)).state === 'running';
      } catch (error) {
        // Removed behind our back (docker rm -f): gone, not "unreachable" forever.
        if (isAppError(error) && error.code === 'CONTAINER_NOT_FOUND') return false;
        throw error;
      }
    },
    describeExit: (target) => describeExit(engines, target.engineId, target.containerId),
    onContainerGone: (target) => events.emit('swarm:containers-changed', { engineId: target.engineId }),
  });
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
