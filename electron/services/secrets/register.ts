import { AppError } from '../../shared/errors';
import type { DomainHandlers, DomainModule, ServiceContext } from '../domain';

/**
 * PLACEHOLDER (integrator, issue 14): `vault:*` and `secrets:*`. The vault-core helper replaces
 * this with the real vault (secret-vault.ts) built on `context.keychain` and the data folder.
 */
export function registerVault(_context: ServiceContext): DomainModule<'vault'> & { readonly secretHandlers: DomainHandlers<'secrets'> } {
  const notYet = async (): Promise<never> => {
    throw new AppError('VAULT_NOT_SET_UP', 'The credentials vault is not built yet.');
  };
  return {
    handlers: {
      'vault:state': notYet,
      'vault:setup': notYet,
      'vault:unlock': notYet,
      'vault:lock': notYet,
      'vault:password-store': notYet,
    },
    secretHandlers: {
      'secrets:list': async () => [],
      'secrets:save': notYet,
      'secrets:delete': notYet,
      'secrets:test': notYet,
    },
  };
}
