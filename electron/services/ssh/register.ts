import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';

/**
 * `servers:*`: remote servers over SSH. PLACEHOLDER while issue 12's server sessions are being
 * built: every channel answers INTERNAL naming what is missing, so the contract compiles and no
 * caller mistakes it for a working feature.
 */
export function registerServers(_context: ServiceContext): DomainModule<'servers'> {
  const missing = async (): Promise<never> => {
    throw new AppError('INTERNAL', 'SSH servers are not available in this build yet.');
  };
  return {
    handlers: {
      'servers:list': async () => [],
      'servers:add': missing,
      'servers:update': missing,
      'servers:remove': missing,
      'servers:connect': missing,
      'servers:disconnect': missing,
      'servers:test': missing,
      'servers:trust-host-key': missing,
      'servers:replace-host-key': missing,
      'servers:answer-prompt': missing,
      'servers:ssh-config': missing,
    },
  };
}
