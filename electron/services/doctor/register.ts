import type { DoctorReport } from '../../shared/schemas-profiles';
import type { DomainModule, ServiceContext } from '../domain';
import { DoctorService } from './doctor-service';

export interface DoctorModule extends DomainModule<'doctor'> {
  /** Runs every check of the profile on its engine, keeps the report and emits `doctor:report`. */
  run(profileId: string): Promise<DoctorReport>;
}

/** `doctor:*`: the preflight doctor of a swarm profile on its engine (the profiles service runs it before Start). */
export function registerDoctor(context: ServiceContext): DoctorModule {
  const doctor = new DoctorService({ engines: context.engines, profiles: context.profiles, events: context.events, logger: context.logger });
  const run = (profileId: string) => doctor.run(profileId);
  return {
    run,
    handlers: {
      'doctor:run': async ({ profileId }) => run(profileId),
      'doctor:reports': async () => doctor.list(),
    },
    dispose: () => doctor.dispose(),
  };
}
