import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';

/** PLACEHOLDER (integrator, issue 15): `dryrun:*`. The dryrun-app helper replaces it (dry-run-service.ts). */
export function registerDryRun(_context: ServiceContext): DomainModule<'dryrun'> {
  const notYet = async (): Promise<never> => {
    throw new AppError('DRY_RUN_STATE', 'The dry run is not built yet.');
  };
  return {
    handlers: {
      'dryrun:view': notYet,
      'dryrun:start': notYet,
      'dryrun:stop': notYet,
      'dryrun:traces': notYet,
      'dryrun:trace': notYet,
      'dryrun:export-traces': notYet,
    },
  };
}
