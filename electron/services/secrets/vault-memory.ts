import { join } from 'node:path';
import type { KeychainInfo, VaultBackend, VaultState } from '../../shared/schemas-vault';
import type { Logger } from '../util/logger';
import type { SealedBox } from './envelope';
import type { KeychainPort } from './keychain-port';
import { openEntries, openEntry } from './vault-entries';
import type { StoredSecret, WrapRecord } from './vault-file';
import { loadVaultFile } from './vault-load';
import { ChangeListeners, KnownValues } from './vault-support';
import * as say from './vault-messages';
import { unwrapByKeychain, unwrapByPassphrase } from './vault-keys';
import type { NewVault } from './vault-rewrap';
import type { ScryptParams } from './wrap-passphrase';

export const VAULT_FILE = 'vault.json';

export interface SecretVaultOptions {
  dataDir: string;
  host: 'electron' | 'browser';
  keychain?: KeychainPort | undefined;
  logger: Logger;
  now?: () => number;
  /** scrypt cost for new passphrase wraps (default SCRYPT_DEFAULTS); files keep their own. */
  scrypt?: ScryptParams;
}

/**
 * Why a vault with a file stays locked whatever passphrase is typed: the keychain could not unwrap
 * its key, its key check failed, a newer app wrote it, or it cannot be read. `setup` is the way
 * forward (the file is kept aside, never deleted).
 */
export type Blocked = 'keychain' | 'key-check' | 'newer' | 'unreadable' | null;

/**
 * What the vault holds in memory (the file's parts, the data key, why it is locked) and the only
 * code that puts a key there or takes it away: reading the file, unlocking by keychain or
 * passphrase, adopting a checked key, zeroing it. It lives apart from the operations in
 * `secret-vault.ts` so the key's whole lifecycle can be audited in one file. `SecretVault` extends
 * it (rather than holding it) so these fields stay protected: nothing outside the two classes can
 * reach the key or the opened entries.
 */
export abstract class VaultMemory {
  readonly file: string;
  protected status: VaultState['status'] = 'not-set-up';
  protected backend: VaultBackend | null = null;
  protected dataKey: Buffer | null = null;
  protected wrap: WrapRecord | null = null;
  protected check: SealedBox | null = null;
  protected entries = new Map<string, StoredSecret>();
  /** Entries that failed to open with the right key (edited on disk): hidden, kept in the file. */
  protected broken = new Set<string>();
  protected blocked: Blocked = null;
  protected problem: string | null = null;
  protected movedAside: string | null = null;
  protected keychainInfo: KeychainInfo | null = null;
  /** The values this vault gave the redactor, forgotten again on lock. */
  protected readonly known = new KnownValues();
  protected readonly listeners: ChangeListeners;

  constructor(protected readonly options: SecretVaultOptions) {
    this.file = join(options.dataDir, VAULT_FILE);
    this.listeners = new ChangeListeners(options.logger);
  }

  protected async readFromDisk(): Promise<void> {
    this.forgetKey();
    this.forgetFile();
    this.problem = null;
    const loaded = await loadVaultFile(this.file, this.now(), this.options.logger);
    if (loaded.kind === 'ok') {
      const { backend, wrap, check, secrets } = loaded.file;
      this.status = 'locked';
      this.backend = backend;
      this.wrap = wrap;
      this.check = check;
      this.entries = new Map(secrets.map((entry) => [entry.id, entry]));
      if (backend !== 'passphrase') await this.unlockWithKeychain();
    } else if (loaded.kind === 'moved-aside') {
      this.movedAside = loaded.aside;
      this.problem = loaded.problem;
    } else if (loaded.kind === 'untouched') {
      this.status = 'locked';
      this.blocked = loaded.why;
      this.problem = loaded.problem;
    }
  }

  protected async unlockWithKeychain(): Promise<boolean> {
    const backend = this.backend as 'keychain' | 'obfuscated';
    const key = await unwrapByKeychain(this.options.keychain, backend, this.wrap, this.check, this.options.logger);
    if (key) {
      this.adoptKey(key);
      return true;
    }
    this.blocked = 'keychain';
    this.problem = say.keychainProblem(this.file, backend, this.options.keychain !== undefined);
    return false;
  }

  protected async unwrapPassphrase(passphrase: string): Promise<Buffer> {
    const key = await unwrapByPassphrase(passphrase, this.wrap, this.check);
    if (key) return key;
    this.blocked = 'key-check';
    this.problem = say.keyCheckProblem(this.file);
    this.changed();
    throw say.locked(this.problem);
  }

  /** Takes an unwrapped, checked key: opens every entry (remembering its value), sets broken ones aside. */
  protected adoptKey(key: Buffer): void {
    const { values, broken } = openEntries(key, this.entries.values());
    for (const { value } of values.values()) this.known.remember(value);
    this.dataKey = key;
    this.status = 'unlocked';
    this.blocked = null;
    this.broken = new Set(broken);
    this.problem = broken.length > 0 ? say.brokenEntriesProblem(broken) : null;
    if (broken.length > 0) this.options.logger.warn('vault: secrets failed their integrity check', { ids: broken });
  }

  /** Makes a set-up's new vault (already on disk, unless session) the current one, unlocked. */
  protected adoptNewVault(backend: VaultBackend, vault: NewVault): void {
    this.forgetKey();
    this.dataKey = vault.key;
    this.backend = backend;
    this.wrap = vault.wrap;
    this.check = vault.check;
    this.entries = vault.entries;
    this.status = 'unlocked';
    this.blocked = null;
    this.problem = null;
  }

  protected requireUnlocked(): Buffer {
    if (this.status === 'not-set-up') throw say.notSetUp();
    if (!this.dataKey) throw say.locked(this.problem);
    return this.dataKey;
  }

  protected requireEntry(id: string): StoredSecret {
    const entry = this.entries.get(id);
    if (!entry) throw say.secretNotFound(id);
    if (this.broken.has(id)) throw say.secretBroken(id);
    return entry;
  }

  protected openExisting(key: Buffer, entry: StoredSecret): string {
    if (this.broken.has(entry.id)) throw say.secretBroken(entry.id);
    return openEntry(key, entry);
  }

  protected visibleEntries(): StoredSecret[] {
    if (this.status === 'not-set-up') return [];
    return [...this.entries.values()].filter((entry) => !this.broken.has(entry.id));
  }

  protected async refreshKeychain(): Promise<void> {
    try {
      this.keychainInfo = (await this.options.keychain?.info()) ?? null;
    } catch (error) {
      this.keychainInfo = null;
      this.options.logger.warn('vault: the keychain did not say what it offers', { reason: (error as Error).message });
    }
  }

  protected forgetKey(): void {
    this.dataKey?.fill(0);
    this.dataKey = null;
    this.known.forgetAll();
    this.broken = new Set();
  }

  protected forgetFile(): void {
    this.status = 'not-set-up';
    this.backend = null;
    this.wrap = null;
    this.check = null;
    this.blocked = null;
    this.entries = new Map();
  }

  protected changed(): void {
    this.listeners.emit();
  }

  protected now(): number {
    return (this.options.now ?? Date.now)();
  }
}
