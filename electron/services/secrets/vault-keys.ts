import type { KeychainInfo, VaultBackend } from '../../shared/schemas-vault';
import type { Logger } from '../util/logger';
import { keyCheckHolds, type SealedBox } from './envelope';
import { WrongPassphrase, type KeyWrapper } from './key-wrapper';
import type { KeychainPort } from './keychain-port';
import type { WrapRecord } from './vault-file';
import { keychainUnavailable, obfuscationNotNeeded, wrongPassphrase } from './vault-messages';
import { KeychainWrapper } from './wrap-keychain';
import { PassphraseWrapper, type ScryptParams } from './wrap-passphrase';
import { SessionWrapper } from './wrap-session';

/** The key wrapper for a set-up to `backend`. */
export function wrapperFor(backend: VaultBackend, passphrase: string, keychain: KeychainPort | undefined, scrypt?: ScryptParams): KeyWrapper {
  if (backend === 'passphrase') return new PassphraseWrapper(passphrase, scrypt);
  if (backend === 'session') return new SessionWrapper();
  if (!keychain) throw keychainUnavailable(null, false);
  return new KeychainWrapper(keychain, { obfuscated: backend === 'obfuscated' });
}

/**
 * Refuses a backend this host cannot honour: the keychain only where it really protects, and
 * "obfuscation only" only where it does not (it is the explicit fallback, never a silent one).
 */
export function assertOffered(backend: VaultBackend, keychain: KeychainPort | undefined, info: KeychainInfo | null): void {
  const reachable = keychain !== undefined;
  const strong = info?.available === true && !info.weak;
  if (backend === 'keychain' && !(reachable && strong)) throw keychainUnavailable(info, reachable);
  if (backend === 'obfuscated' && !reachable) throw keychainUnavailable(null, false);
  if (backend === 'obfuscated' && strong) throw obfuscationNotNeeded();
}

/** The data key from the keychain, checked; null when the keychain is missing, refuses, or hands back another key. */
export async function unwrapByKeychain(
  keychain: KeychainPort | undefined,
  backend: 'keychain' | 'obfuscated',
  wrap: WrapRecord | null,
  check: SealedBox | null,
  logger: Logger,
): Promise<Buffer | null> {
  if (!keychain || !wrap || !check) return null;
  let key: Buffer;
  try {
    key = await new KeychainWrapper(keychain, { obfuscated: backend === 'obfuscated' }).unwrap(wrap);
  } catch (error) {
    logger.warn('vault: the keychain could not unwrap the key', { reason: (error as Error).message });
    return null;
  }
  if (keyCheckHolds(key, backend, check)) return key;
  key.fill(0);
  logger.warn('vault: the keychain returned a key that fails the key check');
  return null;
}

/**
 * The data key from a passphrase. A wrong passphrase throws VAULT_WRONG_PASSPHRASE (nothing is
 * touched); null means the passphrase was right but the file's key check fails (edited file).
 */
export async function unwrapByPassphrase(passphrase: string, wrap: WrapRecord | null, check: SealedBox | null): Promise<Buffer | null> {
  if (!wrap || !check) return null;
  let key: Buffer;
  try {
    key = await new PassphraseWrapper(passphrase).unwrap(wrap);
  } catch (error) {
    if (error instanceof WrongPassphrase) throw wrongPassphrase();
    throw error;
  }
  if (keyCheckHolds(key, 'passphrase', check)) return key;
  key.fill(0);
  return null;
}
