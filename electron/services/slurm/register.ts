import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import { SlurmEngine } from '../engines/slurm/slurm-engine';
import { SlurmLimitWarnings } from './limit-warnings';

export type SlurmModule = DomainModule<'slurm'>;

/**
 * `slurm:*`: what only a Slurm login node has: its queue of the app's jobs (the engines do the rest); and
 * the time-limit warnings of running jobs, told once each as a notification and in the app log.
 */
export function registerSlurm(context: ServiceContext): SlurmModule {
  const warnings = new SlurmLimitWarnings({
    sources: () => context.engines.all().flatMap((e) => (e instanceof SlurmEngine ? [{ engineId: e.summary.id, jobViews: () => e.jobViews() }] : [])),
    notifier: context.notifier,
    logger: context.logger,
  });
  return {
    start: () => {
      warnings.start();
      return Promise.resolve();
    },
    dispose: () => warnings.dispose(),
    handlers: {
      'slurm:jobs': async ({ engineId }) => {
        const engine = context.engines.get(engineId);
        if (!(engine instanceof SlurmEngine)) {
          throw new AppError('VALIDATION_FAILED', `${engine.summary.label} is not a Slurm login node: it has no job queue. Pick a server added as "Slurm (login node)".`);
        }
        return engine.jobViews();
      },
    },
  };
}
