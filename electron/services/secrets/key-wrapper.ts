import type { VaultBackend } from '../../shared/schemas-vault';
import type { WrapRecord } from './vault-file';

/**
 * Wraps the vault's data key for storage, and unwraps it again. One small implementation per
 * backend (wrap-keychain.ts, wrap-passphrase.ts, wrap-session.ts); the vault knows only this.
 */
export interface KeyWrapper {
  readonly backend: VaultBackend;
  /** The record to write in the vault file; null when nothing is written (session). */
  wrap(dataKey: Buffer): Promise<WrapRecord | null>;
  /** Throws WrongPassphrase (passphrase) or KeychainUnwrapFailed (keychain); never returns a wrong key silently. */
  unwrap(record: WrapRecord): Promise<Buffer>;
}

/** The passphrase does not unwrap the data key (GCM over the wrapped key is the verifier). */
export class WrongPassphrase extends Error {
  constructor() {
    super('the passphrase does not open the vault');
    this.name = 'WrongPassphrase';
  }
}

/** The OS keychain refused, or handed back something that is not the data key (keyring reset). */
export class KeychainUnwrapFailed extends Error {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`the OS keychain could not unwrap the vault key: ${detail}`, options);
    this.name = 'KeychainUnwrapFailed';
  }
}
