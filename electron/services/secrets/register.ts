import type { DomainHandlers, DomainModule, ServiceContext } from '../domain';
import { keychainUnavailable } from './vault-messages';
import { SecretVault } from './secret-vault';
import { testSecret } from './secret-test';

/**
 * `vault:*` and `secrets:*`. Every response is state or metadata: no handler returns a value.
 * Changes go out as snapshots (`vault:changed`, `secrets:changed`), never as deltas.
 */
export function registerVault(context: ServiceContext): DomainModule<'vault'> & { readonly secretHandlers: DomainHandlers<'secrets'> } {
  const { vault, events } = context;
  // The app builds a SecretVault; a test context may hand in another SecretVaultApi, which then
  // has no file to load and no keychain to configure.
  const concrete = vault instanceof SecretVault ? vault : null;
  let unsubscribe: (() => void) | null = null;
  return {
    handlers: {
      'vault:state': async () => vault.state(),
      'vault:setup': (request) => vault.setup(request),
      'vault:unlock': ({ passphrase }) => vault.unlock(passphrase),
      'vault:lock': () => vault.lock(),
      'vault:password-store': async ({ passwordStore }) => {
        if (!concrete) throw keychainUnavailable(null, false);
        return concrete.setPasswordStore(passwordStore);
      },
    },
    secretHandlers: {
      'secrets:list': async () => vault.list(),
      'secrets:save': (request) => vault.save(request),
      'secrets:delete': async ({ id }) => {
        await vault.remove(id);
        return { removed: true as const };
      },
      'secrets:test': ({ id }) => testSecret(vault, id),
    },
    async start() {
      unsubscribe = vault.onChange(() => {
        events.emit('vault:changed', vault.state());
        events.emit('secrets:changed', vault.list());
      });
      await concrete?.load();
    },
    dispose() {
      unsubscribe?.();
      unsubscribe = null;
      concrete?.close();
    },
  };
}
