import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import type { SecretMeta, VaultState } from '../../shared/schemas-vault';
import type { Logger } from '../util/logger';
import type { KeychainPort } from './keychain-port';
import type { SecretUsageSource, SecretVaultApi } from './vault-api';

export const VAULT_FILE = 'vault.json';

export interface SecretVaultOptions {
  dataDir: string;
  host: 'electron' | 'browser';
  keychain?: KeychainPort | undefined;
  logger: Logger;
}

/** PLACEHOLDER (integrator, issue 14): the vault-core helper replaces this with the real envelope vault. */
export class SecretVault implements SecretVaultApi {
  private readonly listeners = new Set<() => void>();
  constructor(private readonly options: SecretVaultOptions) {}

  async load(): Promise<void> {}

  state(): VaultState {
    return {
      status: 'not-set-up',
      backend: null,
      protected: false,
      persisted: false,
      available: ['passphrase', 'session'],
      keychain: null,
      file: join(this.options.dataDir, VAULT_FILE),
      movedAside: null,
      problem: null,
      secretCount: 0,
    };
  }
  list(): SecretMeta[] {
    return [];
  }
  meta(): SecretMeta | null {
    return null;
  }
  private notYet(): never {
    throw new AppError('VAULT_NOT_SET_UP', 'The credentials vault is not built yet.');
  }
  async reveal(): Promise<string> {
    this.notYet();
  }
  async setup(): Promise<VaultState> {
    this.notYet();
  }
  async unlock(): Promise<VaultState> {
    this.notYet();
  }
  async lock(): Promise<VaultState> {
    this.notYet();
  }
  async save(): Promise<SecretMeta> {
    this.notYet();
  }
  async remove(): Promise<void> {
    this.notYet();
  }
  async recordTest(): Promise<SecretMeta> {
    this.notYet();
  }
  addUsageSource(_source: SecretUsageSource): void {}
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
