import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import { SlurmEngine } from '../engines/slurm/slurm-engine';

export type SlurmModule = DomainModule<'slurm'>;

/** `slurm:*`: what only a Slurm login node has: its queue of the app's jobs (the engines do the rest). */
export function registerSlurm(context: ServiceContext): SlurmModule {
  return {
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
