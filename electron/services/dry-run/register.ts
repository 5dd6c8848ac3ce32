import { DRY_RUN_ENGINE_ID } from '../../shared/schemas-dryrun';
import type { DomainModule, ServiceContext } from '../domain';
import { DryRunEngine } from './dry-run-engine';
import type { DryRunRunFactory } from './dry-run-parts';
import { realRunFactory } from './dry-run-run';
import { DryRunService } from './dry-run-service';

export interface DryRunModule extends DomainModule<'dryrun'> {
  readonly service: DryRunService;
}

/**
 * `dryrun:*`: the dry run on this computer (issue 15). Its engine `dry-run` joins the registry at
 * once; the swarm domain finds its one container when a run starts (`reconnected`: "look for this
 * engine's containers now"), so the monitor, logs and training dashboard follow it unchanged.
 */
export function registerDryRun(context: ServiceContext, deps: { startRun?: DryRunRunFactory; defaultPort?: number } = {}): DryRunModule {
  const service = new DryRunService({
    events: context.events,
    vault: context.vault,
    logger: context.logger,
    appVersion: context.version,
    downloadsDir: context.downloadsDir,
    startRun: deps.startRun ?? realRunFactory(),
    ...(deps.defaultPort !== undefined ? { defaultPort: deps.defaultPort } : {}),
  });
  context.engines.add(new DryRunEngine(service, context.version));
  context.vault.addUsageSource(() => service.usage());
  service.onEvent((event) => {
    if (event.action === 'start') context.engines.reconnected(DRY_RUN_ENGINE_ID);
  });
  return {
    service,
    handlers: {
      'dryrun:view': async () => service.view(),
      'dryrun:start': (request) => service.start(request),
      'dryrun:stop': () => service.stopRequested(),
      'dryrun:traces': async (query) => service.traces(query),
      'dryrun:trace': async ({ episodeUuid }) => service.trace(episodeUuid),
      'dryrun:export-traces': () => service.exportTraces(),
    },
    // The engine registry's dispose comes later (modules stop in reverse): stop the run first.
    dispose: () => service.dispose(),
  };
}
