import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import type { TrainingSeries } from '../../shared/schemas-profiles';
import type { DomainModule, ServiceContext } from '../domain';
import { LABEL_PROFILE } from '../engines/container-engine';
import type { SwarmModule } from '../swarm/register';
import type { WatchTarget } from '../swarm/swarm-monitor';
import { describeThrown } from '../util/logger';
import { PAGE_LEASE_MS } from '../../shared/schemas-watch';
import { PageLeases } from '../app/page-leases';
import { statusKey } from '../swarm/swarm-monitor';
import { SeriesStore } from './series-store';
import { TrainingMonitor } from './training-monitor';

export interface TrainingModule extends DomainModule<'training'> {
  readonly monitor: TrainingMonitor;
}

/**
 * `training:*`: the live training monitor of every server the swarm monitor watches, and each
 * run's time series under `<dataDir>/training/`. The pool route is polled at twice the swarm
 * monitor's interval (2 s in the app, as overwatch; tests shorten both), only while a page shows
 * that server's dashboard (`training:interest`, a lease each page renews).
 */
export function registerTraining(context: ServiceContext, deps: { swarm: SwarmModule }): TrainingModule {
  // Which servers' dashboards some page shows now: their pool route is asked only then.
  const interest = new PageLeases(PAGE_LEASE_MS);
  const store = new SeriesStore(join(context.dataDir, 'training'), (message, error) => context.logger.warn(message, describeThrown(error)));
  const monitor = new TrainingMonitor({
    events: context.events,
    notifier: context.notifier,
    store,
    logger: context.logger,
    intervalMs: context.monitorIntervalMs !== undefined ? Math.max(100, context.monitorIntervalMs * 2) : 2000,
    describe: (target) => describeServer(context, target),
    isShown: (engineId, containerId) => interest.has(statusKey(engineId, containerId)),
  });
  interest.onChange(() => monitor.interestChanged());

  const notWatched = (engineId: string, containerId: string): AppError =>
    new AppError('CONTAINER_NOT_FOUND', `The training monitor does not watch ${containerId.slice(0, 12)} on ${engineId}: start the server, or pick one that is running.`);

  return {
    monitor,
    handlers: {
      'training:view': async ({ engineId, containerId }) => {
        const view = monitor.view(engineId, containerId);
        if (!view) throw notWatched(engineId, containerId);
        return view;
      },
      'training:series': async ({ engineId, containerId }): Promise<TrainingSeries> =>
        (await monitor.series(engineId, containerId)) ?? { engineId, containerId, runId: null, points: [], timeline: [] },
      'training:views': async () => monitor.views(),
      'training:interest': async ({ pageId, engineId, containerId, shown }) => {
        interest.set(pageId, statusKey(engineId, containerId), shown);
        return { interested: interest.has(statusKey(engineId, containerId)) };
      },
    },
    // Subscribes before swarm starts (app-services orders it so): rediscovered servers arrive as `watch`.
    start: async () => monitor.follow(deps.swarm.monitor),
    dispose: () => {
      interest.dispose();
      return monitor.dispose();
    },
  };
}

/** `"X" on Local Docker` (its profile) or `swarm server 1a2b3c4d5e6f on Local Docker`: what a notification calls a server. */
async function describeServer(context: ServiceContext, target: WatchTarget): Promise<string> {
  const engine = context.engines.get(target.engineId);
  let profileLabel: string | null = null;
  try {
    const profileId = (await engine.inspectContainer(target.containerId)).labels[LABEL_PROFILE];
    if (profileId) profileLabel = context.profiles.list().find((p) => p.id === profileId)?.label ?? null;
  } catch {
    // Named by engine and port alone.
  }
  // Not the URL's port: on a remote engine that is the local end of a tunnel.
  return profileLabel ? `"${profileLabel}" on ${engine.summary.label}` : `swarm server ${target.containerId.slice(0, 12)} on ${engine.summary.label}`;
}
