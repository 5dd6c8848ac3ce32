import { AppError } from '../../electron/shared/errors';
import type { SecretMeta, SecretSave, VaultState } from '../../electron/shared/schemas-vault';
import type { SecretUsageSource, SecretVaultApi } from '../../electron/services/secrets/vault-api';
import { rememberSecretValue } from '../../electron/services/util/redact';

/**
 * TEST DOUBLE of the credentials vault (no encryption, memory only) for unit tests of the services
 * that USE secrets by id (secret-test, secret-env, profiles, SSH). It keeps the real vault's
 * contract that matters to them: VAULT_LOCKED while locked, SECRET_NOT_FOUND, and every value it
 * holds given to the redactor. The real vault is tested by vault-core's own specs and the canary.
 */
export class MemoryVault implements SecretVaultApi {
  locked = false;
  readonly values = new Map<string, string>();
  readonly metas = new Map<string, SecretMeta>();
  readonly sources: SecretUsageSource[] = [];
  reveals = 0;

  state(): VaultState {
    return { status: this.locked ? 'locked' : 'unlocked', backend: 'session', protected: false, persisted: false, available: ['session'], keychain: null, file: '/nowhere/vault.json', movedAside: null, problem: null, secretCount: this.metas.size };
  }
  list(): SecretMeta[] {
    return [...this.metas.values()];
  }
  meta(id: string): SecretMeta | null {
    return this.metas.get(id) ?? null;
  }
  async reveal(id: string): Promise<string> {
    if (this.locked) throw new AppError('VAULT_LOCKED', 'The vault is locked.');
    const value = this.values.get(id);
    if (value === undefined) throw new AppError('SECRET_NOT_FOUND', `No secret "${id}".`);
    this.reveals += 1;
    return value;
  }
  async setup(): Promise<VaultState> {
    return this.state();
  }
  async unlock(): Promise<VaultState> {
    this.locked = false;
    return this.state();
  }
  async lock(): Promise<VaultState> {
    this.locked = true;
    return this.state();
  }
  async save(request: SecretSave): Promise<SecretMeta> {
    const id = request.id ?? request.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const now = new Date().toISOString();
    if (request.value !== undefined) {
      rememberSecretValue(request.value);
      this.values.set(id, request.value);
    }
    const meta: SecretMeta = { id, name: request.name, kind: request.kind, backend: 'session', protected: false, createdAt: now, updatedAt: now, llm: request.llm ?? null, lastTest: null, usedBy: [] };
    this.metas.set(id, meta);
    return meta;
  }
  async remove(id: string): Promise<void> {
    this.values.delete(id);
    this.metas.delete(id);
  }
  async recordTest(id: string, result: NonNullable<SecretMeta['lastTest']>): Promise<SecretMeta> {
    const meta = { ...this.metas.get(id)!, lastTest: result };
    this.metas.set(id, meta);
    return meta;
  }
  addUsageSource(source: SecretUsageSource): void {
    this.sources.push(source);
  }
  onChange(): () => void {
    return () => undefined;
  }
}
