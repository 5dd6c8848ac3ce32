import type { SecretMeta, SecretSave, VaultSetup, VaultState } from '../../shared/schemas-vault';

/** Someone who refers to secrets by id (a profile, an SSH server, the dry run): shown as "used by". */
export type SecretUsageSource = () => ReadonlyArray<{ secretId: string; label: string }>;

/**
 * The credentials vault as the other services use it (implemented by `secret-vault.ts`). Values
 * leave it only through `reveal`, towards a child process's env, a container's env or an SSH
 * login — never towards the renderer, a log, an error or an event. Every value it decrypts or
 * seals is given to the redactor (`rememberSecretValue`) first.
 */
export interface SecretVaultApi {
  state(): VaultState;
  list(): SecretMeta[];
  meta(id: string): SecretMeta | null;
  /** Throws AppError VAULT_NOT_SET_UP / VAULT_LOCKED / SECRET_NOT_FOUND. */
  reveal(id: string): Promise<string>;
  setup(request: VaultSetup): Promise<VaultState>;
  unlock(passphrase: string): Promise<VaultState>;
  lock(): Promise<VaultState>;
  save(request: SecretSave): Promise<SecretMeta>;
  remove(id: string): Promise<void>;
  /** Records the last test result of a secret (kept with its metadata). */
  recordTest(id: string, result: NonNullable<SecretMeta['lastTest']>): Promise<SecretMeta>;
  addUsageSource(source: SecretUsageSource): void;
  /** State or metadata changed (the register publishes `vault:changed` / `secrets:changed`). */
  onChange(listener: () => void): () => void;
}
