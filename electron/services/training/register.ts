import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import type { SwarmModule } from '../swarm/register';

// PLACEHOLDER (issue 13, training helper replaces it).
export function registerTraining(context: ServiceContext, deps: { swarm: SwarmModule }): DomainModule<'training'> {
  void context;
  void deps;
  const notYet = async (): Promise<never> => {
    throw new AppError('INTERNAL', 'The training monitor is not built yet.');
  };
  return { handlers: { 'training:view': notYet, 'training:series': notYet, 'training:views': async () => [] } };
}
