import type { KeychainInfo } from '../../shared/schemas-vault';

/**
 * The OS keychain as the vault sees it. Electron's main process passes one built on `safeStorage`
 * (electron/main/keychain.ts); the browser host and tests pass none (or a TEST DOUBLE), so
 * `electron/services/` never imports `electron`.
 */
export interface KeychainPort {
  /** What safeStorage reports now (only meaningful after Electron's `ready`). */
  info(): Promise<KeychainInfo>;
  /** safeStorage encrypt/decrypt (the async API where the pinned Electron has it). */
  encrypt(plain: Buffer): Promise<Buffer>;
  decrypt(sealed: Buffer): Promise<Buffer>;
  /** Linux `basic_text`: the user's explicit "obfuscation only" choice (`setUsePlainTextEncryption(true)`). */
  allowObfuscation(): void;
  /** Remembers `--password-store=<value>` (null: auto-detect) for the next launch, in the shell's store. */
  setPasswordStore(value: string | null): Promise<void>;
}
