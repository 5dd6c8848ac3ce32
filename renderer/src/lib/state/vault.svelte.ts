import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { Result } from '../../../../electron/shared/result';
import type {
  PasswordStoreChoice,
  SecretKind,
  SecretMeta,
  SecretSave,
  SecretTestResult,
  SettingsImportResult,
  VaultSetup,
  VaultState as VaultStatus,
} from '../../../../electron/shared/schemas-vault';

export type SecretAction = 'test' | 'delete' | 'save';

/** The order the Settings page groups secrets in (and the picker's kinds). */
export const SECRET_KINDS: readonly SecretKind[] = ['llm', 'ssh-password', 'ssh-passphrase', 'swanlab', 'env'];

/**
 * The credentials vault as the renderer sees it: the vault's state (`vault:state`, then every
 * `vault:changed`) and every secret's METADATA (`secrets:list`, then every `secrets:changed`
 * snapshot). Secret values pass through `save()` to the backend once and are never kept here.
 */
export class VaultState {
  vault = $state<VaultStatus | null>(null);
  secrets = $state<SecretMeta[]>([]);
  loaded = $state(false);
  loadError = $state<AppErrorShape | null>(null);
  /** One action per secret at a time, and its last error (shown on that secret's row). */
  busy = $state<Record<string, SecretAction>>({});
  errors = $state<Record<string, AppErrorShape>>({});
  /** Bumped by every event: an answer older than an event must not win over it. */
  private vaultEvents = 0;
  private secretEvents = 0;

  constructor(private readonly api: ExposedApi) {}

  /** Loads both and follows their snapshot events; returns the teardown. */
  start(): () => void {
    const offs = [
      this.api.events.on('vault:changed', (state) => {
        this.vaultEvents += 1;
        this.vault = state;
      }),
      this.api.events.on('secrets:changed', (list) => {
        this.secretEvents += 1;
        this.applySecrets(list);
      }),
    ];
    void this.load();
    return () => offs.forEach((off) => off());
  }

  async load(): Promise<void> {
    const seenVault = this.vaultEvents;
    const seenSecrets = this.secretEvents;
    const [state, list] = await Promise.all([this.api.vault.state(), this.api.secrets.list()]);
    const failed = !state.ok ? state.error : !list.ok ? list.error : null;
    this.loadError = failed;
    // An event that arrived while a request ran is newer than its answer.
    if (state.ok && seenVault === this.vaultEvents) this.vault = state.value;
    if (list.ok && seenSecrets === this.secretEvents) this.applySecrets(list.value);
    this.loaded = true;
  }

  ofKind(kind: SecretKind): SecretMeta[] {
    return this.secrets.filter((secret) => secret.kind === kind);
  }

  find(id: string): SecretMeta | undefined {
    return this.secrets.find((secret) => secret.id === id);
  }

  /** First set-up, or a move to another backend (the backend re-wraps; nothing is lost). */
  setup(request: VaultSetup): Promise<AppErrorShape | null> {
    return this.vaultCall(() => this.api.vault.setup(request));
  }

  /** VAULT_WRONG_PASSPHRASE comes back as the error; the vault is left as it was. */
  unlock(passphrase: string): Promise<AppErrorShape | null> {
    return this.vaultCall(() => this.api.vault.unlock({ passphrase }));
  }

  lock(): Promise<AppErrorShape | null> {
    return this.vaultCall(() => this.api.vault.lock({}));
  }

  /** Remembers `--password-store=…` for the next launch (Electron); takes effect after a restart. */
  passwordStore(passwordStore: PasswordStoreChoice['passwordStore']): Promise<AppErrorShape | null> {
    return this.vaultCall(() => this.api.vault.passwordStore({ passwordStore }));
  }

  /**
   * Create or replace. The request holds the value; the caller drops its copy once this resolves.
   * Errors are the caller's to show (a dialog), not the row's.
   */
  async save(request: SecretSave): Promise<{ error: AppErrorShape } | { secret: SecretMeta }> {
    const seen = this.secretEvents;
    const result = await this.api.secrets.save(request);
    if (!result.ok) return { error: result.error };
    this.upsert(result.value, seen);
    return { secret: result.value };
  }

  async remove(id: string): Promise<AppErrorShape | null> {
    const result = await this.run(id, 'delete', () => this.api.secrets.delete({ id }));
    if (result?.ok) this.secrets = this.secrets.filter((secret) => secret.id !== id);
    return result?.ok === false ? result.error : null;
  }

  /** Tests an LLM endpoint; the result is also the secret's `lastTest` from now on. */
  async test(id: string): Promise<SecretTestResult | null> {
    const seen = this.secretEvents;
    const result = await this.run(id, 'test', () => this.api.secrets.test({ id }));
    if (!result?.ok) return null;
    const secret = this.find(id);
    // The backend's snapshot after recording the test is the newer word when it came first.
    if (secret && seen === this.secretEvents) this.upsert({ ...secret, lastTest: result.value }, seen);
    return result.value;
  }

  dismissError(id: string): void {
    delete this.errors[id];
  }

  exportSettings(): Promise<Result<{ path: string; bytes: number }>> {
    return this.api.settingsFile.export({});
  }

  /** `confirm`: the second pass, applying only the held-back items the user checked. */
  importSettings(text: string, confirm?: string[]): Promise<Result<SettingsImportResult>> {
    return this.api.settingsFile.import(confirm === undefined ? { text } : { text, confirm });
  }

  private async vaultCall(call: () => Promise<Result<VaultStatus>>): Promise<AppErrorShape | null> {
    const seen = this.vaultEvents;
    const result = await call();
    if (!result.ok) return result.error;
    if (seen === this.vaultEvents) this.vault = result.value;
    return null;
  }

  /** One action per secret at a time: a second press while one runs sends nothing. */
  private async run<T>(id: string, action: SecretAction, call: () => Promise<Result<T>>): Promise<Result<T> | null> {
    if (this.busy[id]) return null;
    this.busy[id] = action;
    delete this.errors[id];
    const result = await call();
    delete this.busy[id];
    if (!result.ok) {
      this.errors[id] = result.error;
      // Deleted in another window: the list is stale.
      if (result.error.code === 'SECRET_NOT_FOUND') await this.load();
    }
    return result;
  }

  private applySecrets(list: SecretMeta[]): void {
    this.secrets = list;
    const ids = list.map((secret) => secret.id);
    for (const id of Object.keys(this.errors)) if (!ids.includes(id)) delete this.errors[id];
  }

  private upsert(secret: SecretMeta, seen: number): void {
    if (seen !== this.secretEvents) return;
    const index = this.secrets.findIndex((item) => item.id === secret.id);
    if (index === -1) this.secrets = [...this.secrets, secret];
    else this.secrets[index] = secret;
  }
}
