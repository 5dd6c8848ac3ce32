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
import type { SlurmLimitWarningsOptions } from '../slurm/limit-warnings';
import { serverKey } from '../../shared/server-state';
import { AlertBook } from './alert-book';
import { AlertBookFile } from './alert-book-file';
import { AutoStopper } from './auto-stop';
import { FleetAlerts } from './fleet-alerts';

/** The lease auto-stop holds on a server's batch reading while its stop is near (as a page showing its dashboard would). */
const AUTO_STOP_LEASE = 'fleet-auto-stop';

export interface AlertsModule extends DomainModule<'alerts'> {
  readonly alerts: FleetAlerts;
  /** The Slurm time-limit warnings (slurm/limit-warnings.ts), told as the book's `slurm-time-limit` alerts. */
  readonly timeLimit: NonNullable<SlurmLimitWarningsOptions['alerts']>;
}

/**
 * `alerts:*`: the fleet's alerts (issue 33), from the server states, the GPU samples (and the disks read with
 * them), the training monitor's public API (its handlers) and the Slurm time-limit warnings; each told once per
 * episode, listed for the page, kept in fleet-alert-book.json across restarts, and its thresholds kept in
 * fleet-alerts.json in the data folder. Auto-stop (per profile) acts on the GPUs-idle episodes.
 */
export function registerAlerts(
  context: ServiceContext,
  deps: {
    store: ServerStateStore;
    gpus: GpusModule;
    observed: ObservableSink;
    training: () => Pick<Handlers, 'training:views' | 'training:series' | 'training:interest'>;
    /** Auto-stop's Stop: the user's own (`swarm:stop`; a Slurm job is cancelled). */
    stop: (engineId: string, containerId: string) => Promise<unknown>;
  },
): AlertsModule {
  const file = join(context.dataDir, 'fleet-alerts.json');
  let thresholds = AlertThresholds.parse({});
  const warn = (message: string, fields: Record<string, unknown>) => context.logger.warn(message, fields);
  const book = new AlertBook({
    notifier: context.notifier,
    logger: context.logger,
    changed: (list) => context.events.emit('alerts:changed', list),
    file: new AlertBookFile(join(context.dataDir, 'fleet-alert-book.json'), warn),
  });
  const profileOf = (state: { container: { profileId?: string | null | undefined } }) => {
    const profileId = state.container.profileId;
    return profileId ? context.profiles.list().find((p) => p.id === profileId) : undefined;
  };
  const nameOf = (state: { container: { profileId?: string | null | undefined; name: string } }) => {
    const profile = profileOf(state);
    return profile ? `"${profile.label}"` : state.container.name;
  };
  // Built before the evaluation it wakes; `alerts` exists by the time any timer fires.
  const autoStop = new AutoStopper({
    book,
    settingOf: (state) => profileOf(state)?.autoStop ?? null,
    stop: async (engineId, containerId) => void (await deps.stop(engineId, containerId)),
    watchBatch: (engineId, containerId, shown) => {
      const interest = deps.training()['training:interest'];
      void interest({ pageId: AUTO_STOP_LEASE, engineId, containerId, shown }).catch(() => undefined);
    },
    wake: () => void alerts.evaluate(),
    logger: context.logger,
  });
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
    autoStop,
  });
  const stops = [deps.store.onChange(() => void alerts.evaluate()), deps.observed.on('gpus:sampled', () => void alerts.evaluate())];
  const serverOf = (engineId: string, jobId: string) => {
    const state = deps.store.all().find((s) => s.key === serverKey(engineId, jobId));
    return { engineId, containerId: jobId, name: state ? nameOf(state) : `Slurm job ${jobId}` };
  };
  return {
    alerts,
    timeLimit: {
      warned: (view, { title, body, say }) => book.update('slurm-time-limit', serverOf(view.engineId, view.id), { active: true, detail: body, say, notice: { kind: 'slurm-time-limit', title, body } }),
      gone: (engineId, jobId) => book.update('slurm-time-limit', serverOf(engineId, jobId), { active: false, detail: '' }),
    },
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
        context.events.emit('alerts:thresholds-changed', thresholds);
        return thresholds;
      },
    },
    start: async () => {
      thresholds = await readFile(file, 'utf8')
        .then((text) => AlertThresholds.parse(JSON.parse(text)))
        .catch(() => AlertThresholds.parse({}));
      await book.load();
      alerts.start();
    },
    dispose: async () => {
      for (const stop of stops) stop();
      alerts.dispose();
      await book.flush();
    },
  };
}
