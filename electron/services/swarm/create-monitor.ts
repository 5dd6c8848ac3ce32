import { isAppError } from '../../shared/errors';
import type { Visibility } from '../app/visibility';
import { LABEL_MANAGED, LABEL_ROLE, type ContainerEngine, type ContainerEvent } from '../engines/container-engine';
import type { EngineRegistry } from '../engines/engine-registry';
import type { EventSink } from '../events';
import { engineIdOfServer } from '../../shared/schemas-servers';
import { describeExit } from './exit-reason';
import { SWARM_ROLE } from './swarm-containers';
import { SwarmMonitor, type LinkVia, type SwarmMonitorOptions } from './swarm-monitor';

/** The swarm monitor wired to the engines: container state, exit reasons and logs come from them. */
export function createSwarmMonitor(
  engines: EngineRegistry,
  events: EventSink,
  tuning: Pick<SwarmMonitorOptions, 'intervalMs' | 'firstRetryMs' | 'bootWarnAfterMs' | 'bootLogEveryMs' | 'ownStops' | 'logger'> = {},
  /** Also told every event the monitor gets (one subscription per engine: a Slurm engine's is a poll over SSH). */
  alsoOnEvent?: (engineId: string, event: ContainerEvent) => void,
  /** Whether a window shows the app: slower polls while none does (default: always shown). */
  visibility?: Visibility,
): SwarmMonitor {
  return new SwarmMonitor({
    events,
    ...(visibility ? { visibility } : {}),
    viaOf: (target) => linkOf(engines, target.engineId),
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
    // async: an engine removed while a poll was in flight throws ENGINE_NOT_FOUND from engines.get, which must reach
    // the caller as a rejection (it catches those), not as a throw before any promise exists.
    describeExit: async (target, requested) => describeExit(engines.get(target.engineId), target.containerId, requested),
    readLog: async (target, options) => engines.get(target.engineId).readLog(target.containerId, options),
    onContainerGone: (target) => events.emit('swarm:containers-changed', { engineId: target.engineId }),
    subscribeEvents: (onEvent) =>
      subscribeSwarmEvents(engines, (engineId, event) => {
        onEvent(engineId, event);
        alsoOnEvent?.(engineId, event);
      }),
  });
}

/**
 * Through what a server's port is reached, from its engine: an SSH server's through its tunnel, a
 * Slurm job's through the login node (tunnel and hop), a local engine's (Docker, Podman, dry run) directly.
 */
export function linkOf(engines: EngineRegistry, engineId: string): LinkVia {
  if (!engines.has(engineId)) return 'direct';
  if (engines.get(engineId).summary.kind === 'slurm') return 'login-node';
  return engineId.startsWith(engineIdOfServer('')) ? 'ssh-tunnel' : 'direct';
}

/**
 * The container events of our swarm servers on every engine, also engines added later (an SSH
 * server); each engine's subscription ends with the engine. Returns the unsubscribe of all.
 */
export function subscribeSwarmEvents(engines: EngineRegistry, onEvent: (engineId: string, event: ContainerEvent) => void): () => void {
  const subscriptions = new Map<string, () => void>();
  const subscribe = (engine: ContainerEngine) => {
    const engineId = engine.summary.id;
    if (subscriptions.has(engineId)) return;
    subscriptions.set(engineId, engine.watchEvents({ [LABEL_MANAGED]: 'true', [LABEL_ROLE]: SWARM_ROLE }, (event) => onEvent(engineId, event)));
  };
  const unsubscribe = (engineId: string) => {
    subscriptions.get(engineId)?.();
    subscriptions.delete(engineId);
  };
  for (const engine of engines.all()) subscribe(engine);
  const stopListening = engines.onChange(({ kind, engineId }) => {
    if (kind === 'added' && engines.has(engineId)) subscribe(engines.get(engineId));
    else if (kind === 'removed') unsubscribe(engineId);
  });
  return () => {
    stopListening();
    for (const engineId of [...subscriptions.keys()]) unsubscribe(engineId);
  };
}
