import { isAppError } from '../../shared/errors';
import type { EngineRegistry } from '../engines/engine-registry';
import type { EventSink } from '../events';
import { describeExit } from './exit-reason';
import { SwarmMonitor, type SwarmMonitorOptions } from './swarm-monitor';

/** The swarm monitor wired to the engines: container state, exit reasons and logs come from them. */
export function createSwarmMonitor(
  engines: EngineRegistry,
  events: EventSink,
  tuning: Pick<SwarmMonitorOptions, 'intervalMs' | 'firstRetryMs' | 'bootWarnAfterMs' | 'bootLogEveryMs'> = {},
): SwarmMonitor {
  return new SwarmMonitor({
    events,
    ...Object.fromEntries(Object.entries(tuning).filter(([, value]) => value !== undefined)),
    isContainerRunning: async (target) => {
      try {
        return (await engines.get(target.engineId).inspectContainer(target.containerId)).state === 'running';
      } catch (error) {
        // Removed behind our back (docker rm -f): gone, not "unreachable" forever.
        if (isAppError(error) && error.code === 'CONTAINER_NOT_FOUND') return false;
        throw error;
      }
    },
    describeExit: (target, requested) => describeExit(engines.get(target.engineId), target.containerId, requested),
    readLog: (target, options) => engines.get(target.engineId).readLog(target.containerId, options),
    onContainerGone: (target) => events.emit('swarm:containers-changed', { engineId: target.engineId }),
  });
}
