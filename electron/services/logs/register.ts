import type { DomainModule, ServiceContext } from '../domain';
import type { SwarmModule } from '../swarm/register';
import { LogService } from './log-service';

/**
 * `logs:*`: the stored logs of every swarm server the monitor watches (followed live, resumed from
 * the stored cursor after a restart, read to the end once a server ended, deleted with it).
 */
export function registerLogs(context: ServiceContext, deps: { swarm: SwarmModule }): DomainModule<'logs'> & { readonly service: LogService } {
  const { monitor } = deps.swarm;
  const service = new LogService({
    engines: context.engines,
    events: context.events,
    logger: context.logger,
    dataDir: context.dataDir,
    downloadsDir: context.downloadsDir,
    isWatching: (engineId, containerId) => monitor.isWatching(engineId, containerId),
  });
  // Subscribed now, before the swarm domain starts: the servers it finds again at start are followed too.
  const unsubscribe = monitor.onTargets((event) => service.onTarget(event));
  return {
    service,
    handlers: {
      'logs:read': (request) => service.read(request),
      'logs:export': ({ engineId, containerId }) => service.export(engineId, containerId),
      'logs:server-log': ({ engineId, containerId, lines }) => service.serverLog(engineId, containerId, lines),
      'logs:heads': () => service.heads(),
    },
    start: async () => {
      for (const target of monitor.targets()) service.follow(target);
    },
    dispose: async () => {
      unsubscribe();
      await service.dispose();
    },
  };
}
