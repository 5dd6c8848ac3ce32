import { AppError } from '../../shared/errors';
import type { DoctorModule } from '../doctor/register';
import type { DomainModule, ServiceContext } from '../domain';
import type { SwarmModule } from '../swarm/register';

// PLACEHOLDER (issue 13, profiles helper replaces it).
const notYet = async (): Promise<never> => {
  throw new AppError('INTERNAL', 'Swarm profiles are not built yet.');
};

/** `profiles:*`: swarm server profiles, one container (or native process) per profile. */
export function registerProfiles(context: ServiceContext, deps: { swarm: SwarmModule; doctor: DoctorModule }): DomainModule<'profiles'> {
  void context;
  void deps;
  return {
    handlers: {
      'profiles:list': async () => [],
      'profiles:add': notYet,
      'profiles:update': notYet,
      'profiles:remove': notYet,
      'profiles:command': notYet,
      'profiles:start': notYet,
      'profiles:stop': notYet,
      'profiles:restart': notYet,
    },
  };
}
