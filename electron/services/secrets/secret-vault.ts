import { AppError } from '../../shared/errors';
import type { SecretMeta, SecretSave, SecretTestResult, VaultSetup, VaultState } from '../../shared/schemas-vault';
import type { BoundMeta } from './envelope';
import { boundMetaOf, isProtectedBackend, metaOf, newSecretId, openEntries, openEntry, sameLlm, sealEntry } from './vault-entries';
import { composeVaultFile, vaultWrite, writeVaultFile, type StoredSecret } from './vault-file';
import { UsageSources } from './vault-support';
import * as say from './vault-messages';
import type { SecretUsageSource, SecretVaultApi } from './vault-api';
import { assertOffered } from './vault-keys';
import { checkKeptValue } from './secret-binding';
import { VaultMemory, type SecretVaultOptions } from './vault-memory';
import { replaceVaultFile, sealNewVault } from './vault-rewrap';

// Callers import these from here (app-services, tests); they live with the memory they configure.
export { VAULT_FILE, type SecretVaultOptions } from './vault-memory';

/**
 * The credentials vault: envelope encryption (envelope.ts) of every secret under one data key,
 * wrapped by a key wrapper; the file is vault-file.ts. Values leave only through `reveal`. State
 * changes are serialised (one queue) and memory changes only after the file was written.
 * This file holds the operations; what the vault holds and how its key is opened and forgotten is
 * `vault-memory.ts`, and a set-up's fresh key and file swap are `vault-rewrap.ts`.
 */
export class SecretVault extends VaultMemory implements SecretVaultApi {
  private readonly sources: UsageSources;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: SecretVaultOptions) {
    super(options);
    this.sources = new UsageSources(options.logger);
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
      const vault = await sealNewVault(request.backend, request.passphrase ?? '', values, this.options.keychain, this.options.scrypt);
      const hadFile = this.status !== 'not-set-up' && this.backend !== 'session';
      // Disk first; memory only once the disk has the new vault.
      const aside = await replaceVaultFile(this.file, this.options.logger, { backend: request.backend, vault, setAside, hadFile, now: () => this.now() });
      this.adoptNewVault(request.backend, vault);
      if (aside) this.movedAside = aside;
      for (const { value } of values.values()) this.known.remember(value);
      this.options.logger.info?.('vault set up', { backend: request.backend, secrets: vault.entries.size, movedAside: aside });
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
      // A kept value stays bound to its kind and endpoint: a new base URL alone must not carry the key there.
      if (existing && request.value === undefined) checkKeptValue(existing, request);
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

  private lockedOrState(): VaultState {
    if (this.status === 'locked') throw say.locked(this.problem);
    return this.state();
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task, task);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
