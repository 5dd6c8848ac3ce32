import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import type { KeychainInfo, SecretMeta, SecretSave, SecretTestResult, VaultBackend, VaultSetup, VaultState } from '../../shared/schemas-vault';
import type { Logger } from '../util/logger';
import { newDataKey, sealKeyCheck, type BoundMeta, type SealedBox } from './envelope';
import type { KeychainPort } from './keychain-port';
import { boundMetaOf, isProtectedBackend, metaOf, newSecretId, openEntries, openEntry, sameLlm, sealEntry } from './vault-entries';
import { composeVaultFile, moveVaultAside, vaultWrite, writeVaultFile, type StoredSecret, type WrapRecord } from './vault-file';
import { loadVaultFile } from './vault-load';
import { ChangeListeners, KnownValues, UsageSources } from './vault-support';
import * as say from './vault-messages';
import type { SecretUsageSource, SecretVaultApi } from './vault-api';
import { assertOffered, unwrapByKeychain, unwrapByPassphrase, wrapperFor } from './vault-keys';
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
type Blocked = 'keychain' | 'key-check' | 'newer' | 'unreadable' | null;

/**
 * The credentials vault: envelope encryption (envelope.ts) of every secret under one data key,
 * wrapped by a key wrapper; the file is vault-file.ts. Values leave only through `reveal`. State
 * changes are serialised (one queue) and memory changes only after the file was written.
 */
export class SecretVault implements SecretVaultApi {
  readonly file: string;
  private status: VaultState['status'] = 'not-set-up';
  private backend: VaultBackend | null = null;
  private dataKey: Buffer | null = null;
  private wrap: WrapRecord | null = null;
  private check: SealedBox | null = null;
  private entries = new Map<string, StoredSecret>();
  /** Entries that failed to open with the right key (edited on disk): hidden, kept in the file. */
  private broken = new Set<string>();
  private blocked: Blocked = null;
  private problem: string | null = null;
  private movedAside: string | null = null;
  private keychainInfo: KeychainInfo | null = null;
  /** The values this vault gave the redactor, forgotten again on lock. */
  private readonly known = new KnownValues();
  private readonly sources: UsageSources;
  private readonly listeners: ChangeListeners;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SecretVaultOptions) {
    this.file = join(options.dataDir, VAULT_FILE);
    this.sources = new UsageSources(options.logger);
    this.listeners = new ChangeListeners(options.logger);
  }

  /** Reads the vault file; a keychain vault unlocks itself here (Electron calls this after `ready`). */
  load(): Promise<void> {
    return this.exclusive(async () => {
      await this.refreshKeychain();
      await this.readFromDisk();
      this.changed();
    });
  }

  state(): VaultState {
    const backend = this.status === 'not-set-up' ? null : this.backend;
    return {
      status: this.status,
      backend,
      protected: backend !== null && isProtectedBackend(backend),
      persisted: backend !== null && backend !== 'session',
      available: say.availableBackends(this.options.keychain !== undefined, this.keychainInfo),
      keychain: this.keychainInfo,
      file: this.file,
      movedAside: this.movedAside,
      problem: this.problem,
      secretCount: this.visibleEntries().length,
    };
  }

  list(): SecretMeta[] {
    const usedBy = this.sources.byId();
    return this.visibleEntries()
      .map((entry) => metaOf(entry, this.backend ?? 'session', usedBy.get(entry.id) ?? []))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  meta(id: string): SecretMeta | null {
    return this.list().find((meta) => meta.id === id) ?? null;
  }

  /** Not queued: the key and the entry are read in one tick, so a concurrent re-key cannot mix them. */
  async reveal(id: string): Promise<string> {
    const key = this.requireUnlocked();
    const value = openEntry(key, this.requireEntry(id));
    this.known.remember(value);
    return value;
  }

  setup(request: VaultSetup): Promise<VaultState> {
    return this.exclusive(async () => {
      await this.refreshKeychain();
      assertOffered(request.backend, this.options.keychain, this.keychainInfo);
      if (request.backend === 'passphrase' && !request.passphrase) {
        throw new AppError('VALIDATION_FAILED', 'Type a passphrase of at least 8 characters for the vault.');
      }
      const { values, setAside } = await this.carryOver(request);
      const key = newDataKey();
      const wrapper = wrapperFor(request.backend, request.passphrase ?? '', this.options.keychain, this.options.scrypt);
      const entries = new Map<string, StoredSecret>();
      for (const [id, { meta, value }] of values) entries.set(id, sealEntry(key, meta, value));
      const check = sealKeyCheck(key, request.backend);
      const wrap = await wrapper.wrap(key);
      const hadFile = this.status !== 'not-set-up' && this.backend !== 'session';
      // Disk first; memory only once the disk has the new vault.
      let aside: string | null = null;
      await vaultWrite(this.file, this.options.logger, async () => {
        if (setAside && hadFile) aside = await moveVaultAside(this.file, this.now());
        if (wrap && request.backend !== 'session') await writeVaultFile(this.file, composeVaultFile(request.backend, wrap, check, entries.values()));
        // Moving to session only: the old file would keep the secrets on disk after the app quits.
        else if (hadFile && !setAside) await rm(this.file, { force: true });
      });
      this.forgetKey();
      this.dataKey = key;
      this.backend = request.backend;
      this.wrap = wrap;
      this.check = check;
      this.entries = entries;
      this.status = 'unlocked';
      this.blocked = null;
      this.problem = null;
      if (aside) this.movedAside = aside;
      for (const { value } of values.values()) this.known.remember(value);
      this.options.logger.info?.('vault set up', { backend: request.backend, secrets: entries.size, movedAside: aside });
      this.changed();
      return this.state();
    });
  }

  unlock(passphrase: string): Promise<VaultState> {
    return this.exclusive(async () => {
      if (this.status === 'unlocked') return this.state();
      if (this.status === 'not-set-up') throw say.notSetUp();
      if (this.blocked === 'unreadable') {
        // Maybe the user fixed the permissions: read it again.
        await this.readFromDisk();
        this.changed();
        if (this.status !== 'locked' || this.backend !== 'passphrase') return this.lockedOrState();
      }
      if (this.blocked === 'newer' || this.blocked === 'key-check') throw say.locked(this.problem);
      if (this.backend !== 'passphrase') {
        await this.refreshKeychain();
        await this.unlockWithKeychain();
        this.changed();
        return this.lockedOrState();
      }
      const key = await this.unwrapPassphrase(passphrase);
      this.adoptKey(key);
      this.options.logger.info?.('vault unlocked', { backend: this.backend, secrets: this.entries.size, broken: this.broken.size });
      this.changed();
      return this.state();
    });
  }

  lock(): Promise<VaultState> {
    return this.exclusive(async () => {
      if (this.backend === 'session' && this.status === 'unlocked') {
        // A session vault has nothing to unlock from: locking it is what quitting does.
        this.forgetKey();
        this.forgetFile();
        this.problem = 'The session-only vault was locked: its secrets were kept in memory only and are gone. Set the vault up again.';
      } else if (this.status === 'unlocked') {
        this.forgetKey();
        this.status = 'locked';
      }
      this.changed();
      return this.state();
    });
  }

  save(request: SecretSave): Promise<SecretMeta> {
    return this.exclusive(async () => {
      const key = this.requireUnlocked();
      const existing = request.id === undefined ? undefined : this.entries.get(request.id);
      if (request.id !== undefined && !existing && request.value === undefined) throw say.secretNotFound(request.id);
      if (request.kind === 'llm' && !request.llm) {
        throw new AppError('VALIDATION_FAILED', 'An LLM endpoint needs its base URL and model.');
      }
      const isBroken = existing !== undefined && this.broken.has(existing.id);
      // A broken entry can be replaced with a new value (that is how the user repairs it), not edited.
      if (existing && isBroken && request.value === undefined) throw say.secretBroken(existing.id);
      const old = existing && !isBroken ? openEntry(key, existing) : undefined;
      const value = request.value ?? old;
      if (value === undefined) throw new AppError('VALIDATION_FAILED', 'Type the secret: a new secret needs its value.');
      this.known.remember(value);
      const id = existing?.id ?? request.id ?? newSecretId(request.name, (candidate) => this.entries.has(candidate));
      const now = new Date(this.now()).toISOString();
      const llm = request.kind === 'llm' ? request.llm : null;
      const sameTarget = existing && old === value && existing.kind === request.kind && sameLlm(existing.llm, llm);
      const meta: BoundMeta = {
        id,
        kind: request.kind,
        name: request.name,
        llm,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
        // A test result says nothing about another value, kind or endpoint.
        lastTest: sameTarget ? existing.lastTest : null,
      };
      await this.commit(new Map(this.entries).set(id, sealEntry(key, meta, value)));
      this.broken.delete(id);
      if (old !== undefined && old !== value) this.known.forget(old);
      return metaOf(this.requireEntry(id), this.backend ?? 'session', this.sources.byId().get(id) ?? []);
    });
  }

  remove(id: string): Promise<void> {
    return this.exclusive(async () => {
      if (this.status === 'not-set-up' || !this.entries.has(id)) throw say.secretNotFound(id);
      if (this.blocked) throw say.locked(this.problem);
      const entry = this.entries.get(id) as StoredSecret;
      const old = this.dataKey && !this.broken.has(id) ? this.openExisting(this.dataKey, entry) : undefined;
      const next = new Map(this.entries);
      next.delete(id);
      // Works while locked too: the other entries and the wrapped key are written back as they are.
      await this.commit(next);
      this.broken.delete(id);
      if (old !== undefined) this.known.forget(old);
    });
  }

  recordTest(id: string, result: SecretTestResult): Promise<SecretMeta> {
    return this.exclusive(async () => {
      const key = this.requireUnlocked();
      const entry = this.requireEntry(id);
      const value = this.openExisting(key, entry);
      this.known.remember(value);
      await this.commit(new Map(this.entries).set(id, sealEntry(key, { ...boundMetaOf(entry), lastTest: result }, value)));
      return metaOf(this.requireEntry(id), this.backend ?? 'session', this.sources.byId().get(id) ?? []);
    });
  }

  addUsageSource(source: SecretUsageSource): void {
    this.sources.add(source);
  }

  onChange(listener: () => void): () => void {
    return this.listeners.add(listener);
  }

  /** `vault:password-store`: remembered by the shell for the next launch (Electron only). */
  setPasswordStore(value: string | null): Promise<VaultState> {
    return this.exclusive(async () => {
      const keychain = this.options.keychain;
      if (!keychain) throw say.keychainUnavailable(null, false);
      await keychain.setPasswordStore(value);
      await this.refreshKeychain();
      this.changed();
      return this.state();
    });
  }

  /** App quit: forget the key and the values (a session vault is gone with them). */
  close(): void {
    this.forgetKey();
  }

  // ——— internals ———

  private async readFromDisk(): Promise<void> {
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

  private async unlockWithKeychain(): Promise<boolean> {
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

  private async unwrapPassphrase(passphrase: string): Promise<Buffer> {
    const key = await unwrapByPassphrase(passphrase, this.wrap, this.check);
    if (key) return key;
    this.blocked = 'key-check';
    this.problem = say.keyCheckProblem(this.file);
    this.changed();
    throw say.locked(this.problem);
  }

  /** Takes an unwrapped, checked key: opens every entry (remembering its value), sets broken ones aside. */
  private adoptKey(key: Buffer): void {
    const { values, broken } = openEntries(key, this.entries.values());
    for (const { value } of values.values()) this.known.remember(value);
    this.dataKey = key;
    this.status = 'unlocked';
    this.blocked = null;
    this.broken = new Set(broken);
    this.problem = broken.length > 0 ? say.brokenEntriesProblem(broken) : null;
    if (broken.length > 0) this.options.logger.warn('vault: secrets failed their integrity check', { ids: broken });
  }

  /** The secrets a set-up keeps, and whether the current file must be kept aside instead. */
  private async carryOver(request: VaultSetup): Promise<{ values: Map<string, { meta: BoundMeta; value: string }>; setAside: boolean }> {
    let key = this.dataKey;
    if (this.status === 'locked' && !this.blocked) {
      if (this.backend === 'passphrase') {
        if (!request.currentPassphrase) {
          throw say.locked('Type the current passphrase to change how the vault is kept; nothing was changed.');
        }
        key = await this.unwrapPassphrase(request.currentPassphrase);
      } else if (await this.unlockWithKeychain()) key = this.dataKey;
    }
    if (!key) return { values: new Map(), setAside: this.status === 'locked' };
    const { values, broken } = openEntries(key, this.entries.values());
    for (const { value } of values.values()) this.known.remember(value);
    // Broken entries cannot be read with any key, so they cannot be carried over.
    if (broken.length > 0) this.options.logger.warn('vault: secrets that failed their integrity check are dropped at set-up', { ids: broken });
    if (key !== this.dataKey) key.fill(0);
    return { values, setAside: false };
  }

  /** Writes `entries` (unless session), then makes them current and tells the listeners. */
  private async commit(entries: Map<string, StoredSecret>): Promise<void> {
    if (this.backend !== 'session' && this.backend && this.wrap && this.check) {
      const file = composeVaultFile(this.backend, this.wrap, this.check, entries.values());
      await vaultWrite(this.file, this.options.logger, () => writeVaultFile(this.file, file));
    }
    this.entries = entries;
    this.changed();
  }

  private requireUnlocked(): Buffer {
    if (this.status === 'not-set-up') throw say.notSetUp();
    if (!this.dataKey) throw say.locked(this.problem);
    return this.dataKey;
  }

  private requireEntry(id: string): StoredSecret {
    const entry = this.entries.get(id);
    if (!entry) throw say.secretNotFound(id);
    if (this.broken.has(id)) throw say.secretBroken(id);
    return entry;
  }

  private openExisting(key: Buffer, entry: StoredSecret): string {
    if (this.broken.has(entry.id)) throw say.secretBroken(entry.id);
    return openEntry(key, entry);
  }

  private lockedOrState(): VaultState {
    if (this.status === 'locked') throw say.locked(this.problem);
    return this.state();
  }

  private visibleEntries(): StoredSecret[] {
    if (this.status === 'not-set-up') return [];
    return [...this.entries.values()].filter((entry) => !this.broken.has(entry.id));
  }

  private async refreshKeychain(): Promise<void> {
    try {
      this.keychainInfo = (await this.options.keychain?.info()) ?? null;
    } catch (error) {
      this.keychainInfo = null;
      this.options.logger.warn('vault: the keychain did not say what it offers', { reason: (error as Error).message });
    }
  }

  private forgetKey(): void {
    this.dataKey?.fill(0);
    this.dataKey = null;
    this.known.forgetAll();
    this.broken = new Set();
  }

  private forgetFile(): void {
    this.status = 'not-set-up';
    this.backend = null;
    this.wrap = null;
    this.check = null;
    this.blocked = null;
    this.entries = new Map();
  }

  private changed(): void {
    this.listeners.emit();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task, task);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
