import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import { AlertThresholds } from '../../shared/schemas-fleet';
import type { DomainModule, ServiceContext } from '../domain';
import type { ObservableSink } from '../events';
import { serverDiskFolders } from '../gpus/disk-folders';
import type { GpusModule } from '../gpus/register';
import type { ServerStateStore } from '../server-state/server-state-store';
import type { Handlers } from '../ipc/handlers';
import { writeFileAtomic } from '../util/atomic-file';
import { AlertBook } from './alert-book';
import { FleetAlerts } from './fleet-alerts';

export interface AlertsModule extends DomainModule<'alerts'> {
  readonly alerts: FleetAlerts;
}

/**
 * `alerts:*`: the fleet's alerts (issue 33), from the server states, the GPU samples and the training monitor's
 * public API (its handlers); each told once per episode, listed for the page, and its thresholds kept in
 * fleet-alerts.json in the data folder.
 */
export function registerAlerts(
  context: ServiceContext,
  deps: { store: ServerStateStore; gpus: GpusModule; observed: ObservableSink; training: () => Pick<Handlers, 'training:views' | 'training:series'> },
): AlertsModule {
  const file = join(context.dataDir, 'fleet-alerts.json');
  let thresholds = AlertThresholds.parse({});
  const book = new AlertBook({ notifier: context.notifier, logger: context.logger, changed: (list) => context.events.emit('alerts:changed', list) });
  const nameOf = (state: { container: { profileId?: string | null | undefined; name: string } }) => {
    const profileId = state.container.profileId;
    const profile = profileId ? context.profiles.list().find((p) => p.id === profileId) : undefined;
    return profile ? `"${profile.label}"` : state.container.name;
  };
  const alerts = new FleetAlerts({
    states: () => deps.store.all(),
    samples: () => deps.gpus.sampler.samples(),
    views: () => deps.training()['training:views']({}),
    series: (engineId, containerId) => deps.training()['training:series']({ engineId, containerId }),
    thresholds: () => thresholds,
    book,
    nameOf,
    folders: (state) => serverDiskFolders(() => context.profiles.list(), state),
    logger: context.logger,
  });
  const stops = [deps.store.onChange(() => void alerts.evaluate()), deps.observed.on('gpus:sampled', () => void alerts.evaluate())];
  return {
    alerts,
    handlers: {
      'alerts:list': async () => book.list(),
      'alerts:acknowledge': async ({ id }) => {
        const alert = book.acknowledge(id);
        if (!alert) throw new AppError('VALIDATION_FAILED', `No alert ${id}: it may have been resolved long ago and dropped from the list.`);
        return alert;
      },
      'alerts:thresholds': async () => thresholds,
      'alerts:set-thresholds': async (patch) => {
        thresholds = AlertThresholds.parse({ ...thresholds, ...patch });
        await writeFileAtomic(file, JSON.stringify(thresholds, null, 2));
        void alerts.evaluate();
        return thresholds;
      },
    },
    start: async () => {
      thresholds = await readFile(file, 'utf8')
        .then((text) => AlertThresholds.parse(JSON.parse(text)))
        .catch(() => AlertThresholds.parse({}));
      alerts.start();
    },
    dispose: () => {
      for (const stop of stops) stop();
      alerts.dispose();
    },
  };
}
