import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeychainPort } from '../../../../electron/services/secrets/keychain-port';
import { SecretVault } from '../../../../electron/services/secrets/secret-vault';
import type { Logger } from '../../../../electron/services/util/logger';
import type { KeychainInfo } from '../../../../electron/shared/schemas-vault';

/**
 * TEST DOUBLE of Electron's safeStorage behind the KeychainPort: it really encrypts (AES-256-GCM
 * with a key of its own, like the OS keyring's), so a vault wrapped by it only opens while that
 * key exists. `resetKeyring()` is a keyring reset or another desktop session; `info` says what
 * safeStorage would report (e.g. Linux `basic_text`). Records the calls the vault must (not) make.
 */
export class KeychainDouble implements KeychainPort {
  info_: KeychainInfo;
  obfuscationAllowed = false;
  passwordStore: string | null = null;
  encryptCalls = 0;
  private key = randomBytes(32);

  constructor(info: Partial<KeychainInfo> = {}) {
    this.info_ = { available: true, backend: 'gnome_libsecret', weak: false, desktop: 'GNOME', passwordStore: null, suggestedPasswordStores: [], ...info };
  }

  static basicText(): KeychainDouble {
    return new KeychainDouble({ backend: 'basic_text', weak: true, desktop: 'i3', suggestedPasswordStores: ['gnome-libsecret'] });
  }

  async info(): Promise<KeychainInfo> {
    return structuredClone(this.info_);
  }

  async encrypt(plain: Buffer): Promise<Buffer> {
    this.encryptCalls += 1;
    if (this.info_.weak && !this.obfuscationAllowed) throw new Error('TEST DOUBLE: basic_text without the explicit choice');
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    return Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  }

  async decrypt(sealed: Buffer): Promise<Buffer> {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
  }

  allowObfuscation(): void {
    this.obfuscationAllowed = true;
  }

  async setPasswordStore(value: string | null): Promise<void> {
    this.passwordStore = value;
  }

  /** The same keyring as seen from another session that reports `info` (e.g. basic_text). */
  sameKeyring(info: Partial<KeychainInfo>): KeychainDouble {
    const other = new KeychainDouble({ ...this.info_, ...info });
    other.key = this.key;
    return other;
  }

  resetKeyring(): void {
    this.key = randomBytes(32);
  }
}

/** A logger that keeps every line, so tests can check that no value was ever logged. */
export class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  warn(message: string, meta?: Record<string, unknown>): void {
    this.lines.push(`warn ${message} ${JSON.stringify(meta ?? {})}`);
  }
  info(message: string, meta?: Record<string, unknown>): void {
    this.lines.push(`info ${message} ${JSON.stringify(meta ?? {})}`);
  }
  error(message: string, meta?: Record<string, unknown>): void {
    this.lines.push(`error ${message} ${JSON.stringify(meta ?? {})}`);
  }
}

/**
 * Lower scrypt cost for the many set-ups of the unit tests (2 shared cores). The real default
 * (N=2^17) is used by the tests that pin it (wrap-passphrase.spec.ts) and the integration test.
 */
export const FAST_SCRYPT = { N: 2 ** 14, r: 8, p: 1 };

export interface VaultBed {
  dir: string;
  logger: RecordingLogger;
  open(keychain?: KeychainPort): Promise<SecretVault>;
  dispose(): Promise<void>;
}

/** A fresh data folder; `open()` builds and loads a vault over it (again = an app restart). */
export async function vaultBed(): Promise<VaultBed> {
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-vault-'));
  const logger = new RecordingLogger();
  const opened: SecretVault[] = [];
  return {
    dir,
    logger,
    async open(keychain) {
      const vault = new SecretVault({ dataDir: dir, host: keychain ? 'electron' : 'browser', keychain, logger, scrypt: FAST_SCRYPT });
      await vault.load();
      opened.push(vault);
      return vault;
    },
    async dispose() {
      for (const vault of opened) vault.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A value shaped like no known key pattern, so only the vault's own redaction could hide it. */
export function canary(label = 'canary'): string {
  return `${label}-${randomBytes(12).toString('hex')}-value`;
}
