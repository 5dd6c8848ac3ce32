import { AppError } from '../../shared/errors';
import type { DoctorReport } from '../../shared/schemas-profiles';
import type { DomainModule, ServiceContext } from '../domain';

export interface DoctorModule extends DomainModule<'doctor'> {
  /** Runs every check of the profile on its engine, keeps the report and emits `doctor:report`. */
  run(profileId: string): Promise<DoctorReport>;
}

// PLACEHOLDER (issue 13, doctor helper replaces it).
export function registerDoctor(context: ServiceContext): DoctorModule {
  void context;
  const run = async (profileId: string): Promise<never> => {
    throw new AppError('INTERNAL', `The preflight doctor is not built yet (profile ${profileId}).`);
  };
  return {
    run,
    handlers: {
      'doctor:run': async ({ profileId }) => run(profileId),
      'doctor:reports': async () => [],
    },
  };
}
