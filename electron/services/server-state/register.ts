import type { DomainModule, ServiceContext } from '../domain';
import type { ObservableSink } from '../events';
import type { SwarmModule } from '../swarm/register';
import { EndTeller } from './end-teller';
import { ServerStateStore } from './server-state-store';

export interface ServerStateModule extends DomainModule<'fleet'> {
  readonly store: ServerStateStore;
}

/**
 * `server-state:*`: one state per swarm server, from the engines' listings and the monitor's
 * statuses; every end the user did not ask for is told once (notification and app log).
 */
export function registerServerState(context: ServiceContext, deps: { swarm: SwarmModule; observed: ObservableSink }): ServerStateModule {
  const { engines, events, logger } = context;
  const { swarm, observed } = deps;
  const store = new ServerStateStore({
    engines: () => engines.all().map((engine) => ({ id: engine.summary.id, kind: engine.summary.kind })),
    list: (engineId) => swarm.containers.list(engineId),
    statuses: () => swarm.monitor.statuses(),
    changed: (state) => events.emit('fleet:state-changed', state),
    removed: (removed) => events.emit('fleet:state-removed', removed),
    logger,
  });
  const teller = new EndTeller({
    notifier: context.notifier,
    logger,
    dataDir: context.dataDir,
    nameOf: (state) => {
      const profileId = state.container.profileId;
      const profile = profileId ? context.profiles.list().find((p) => p.id === profileId) : undefined;
      return profile ? `"${profile.label}"` : state.container.name;
    },
  });
  const stops = [
    observed.on('swarm:status', (status) => store.statusChanged(status)),
    observed.on('swarm:containers-changed', ({ engineId }) => store.scheduleRefresh(engineId)),
    swarm.containers.onStopping((engineId, containerId, stopping) => store.setStopping(engineId, containerId, stopping)),
    engines.onChange(({ kind, engineId }) => (kind === 'removed' ? store.engineRemoved(engineId) : store.scheduleRefresh(engineId))),
    store.onChange((state) => void teller.observe(state)),
  ];
  return {
    store,
    handlers: {
      'fleet:states': async () => store.all(),
    },
    start: () => store.start(),
    dispose: () => {
      for (const stop of stops) stop();
      store.dispose();
    },
  };
}
