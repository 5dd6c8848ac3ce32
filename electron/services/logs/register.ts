import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import type { SwarmModule } from '../swarm/register';

// PLACEHOLDER (issue 13, logs helper replaces it).
export function registerLogs(context: ServiceContext, deps: { swarm: SwarmModule }): DomainModule<'logs'> {
  void context;
  void deps;
  const notYet = async (): Promise<never> => {
    throw new AppError('INTERNAL', 'Stored logs are not built yet.');
  };
  return { handlers: { 'logs:read': notYet, 'logs:export': notYet, 'logs:server-log': notYet, 'logs:heads': async () => [] } };
}
