import type { AppErrorShape, ErrorCode } from '../../../electron/shared/errors';
import {
  SecretSave,
  VaultSetup,
  type KeychainInfo,
  type SecretMeta,
  type SecretTestResult,
  type SettingsImportResult,
  type VaultBackend,
  type VaultState,
} from '../../../electron/shared/schemas-vault';
import type { FakeApi } from '../fake-api';

/**
 * TEST DOUBLE: the credentials vault as the renderer sees it (vault:*, secrets:*, settings:export/
 * import), in memory. It keeps the values it was sent in `values` so a test can check they never
 * come back (no channel returns one, and the DOM must not hold one), answers like the real backend's
 * errors (VAULT_LOCKED, VAULT_WRONG_PASSPHRASE, …) and pushes `vault:changed` / `secrets:changed`
 * snapshots after each change. No encryption: the real vault is tested in test/unit and test/integration.
 */
export interface VaultFake {
  state: VaultState;
  secrets: SecretMeta[];
  /** What secrets:save received, by id (the test's canary check reads it). */
  readonly values: Map<string, string>;
  /** The passphrase the fake's vault opens with (set by set-up or by the test). */
  passphrase: string | null;
  /** What secrets:test answers for an LLM endpoint. */
  testAnswer: (secret: SecretMeta) => SecretTestResult;
  importAnswer: SettingsImportResult;
  /** The answer to a second pass (`confirm` given); unset: importAnswer again. */
  confirmAnswer?: (confirm: string[]) => SettingsImportResult;
  /** The `--password-store` choices sent, in order. */
  readonly passwordStores: (string | null)[];
  /** Sends both snapshots, as the backend does after every change. */
  push(): void;
}

export interface VaultFakeOptions {
  status?: VaultState['status'];
  backend?: VaultBackend | null;
  available?: VaultBackend[];
  keychain?: KeychainInfo | null;
  passphrase?: string | null;
  secrets?: SecretMeta[];
}

const fail = (code: ErrorCode, message: string): AppErrorShape => ({ code, message });

export function makeKeychain(overrides: Partial<KeychainInfo> = {}): KeychainInfo {
  return {
    available: true,
    backend: 'gnome_libsecret',
    weak: false,
    desktop: 'GNOME',
    passwordStore: null,
    suggestedPasswordStores: [],
    ...overrides,
  };
}

/** A secret's metadata as the backend lists it (an LLM endpoint in a passphrase vault unless overridden). */
export function makeSecret(overrides: Partial<SecretMeta> = {}): SecretMeta {
  return {
    id: 'openai',
    name: 'OpenAI',
    kind: 'llm',
    backend: 'passphrase',
    protected: true,
    createdAt: '2026-12-03T10:00:00.000Z',
    updatedAt: '2026-12-03T10:00:00.000Z',
    llm: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
    lastTest: null,
    usedBy: [],
    ...overrides,
  };
}

const isProtected = (backend: VaultBackend): boolean => backend === 'keychain' || backend === 'passphrase';

export function installVaultFake(api: FakeApi, options: VaultFakeOptions = {}): VaultFake {
  const backend = options.backend === undefined ? (options.status && options.status !== 'not-set-up' ? 'passphrase' : null) : options.backend;
  let nextId = 1;
  const fake: VaultFake = {
    state: {
      status: options.status ?? 'not-set-up',
      backend,
      protected: backend !== null && isProtected(backend),
      persisted: backend !== null && backend !== 'session',
      available: options.available ?? ['passphrase', 'session'],
      keychain: options.keychain ?? null,
      file: '/home/u/.config/AgentSwarm Desktop/vault.json',
      movedAside: null,
      problem: null,
      secretCount: options.secrets?.length ?? 0,
    },
    secrets: options.secrets ? structuredClone(options.secrets) : [],
    values: new Map(),
    passphrase: options.passphrase ?? null,
    testAnswer: () => ({ ok: true, at: '2026-12-03T12:00:00.000Z', status: 200, latencyMs: 42, method: 'models', message: '3 models, gpt-4o-mini listed' }),
    importAnswer: { imported: ['settings', 'server gpu-1'], skipped: ['profile qwen-7b (exists)'], missingSecrets: ['openai'], pending: [], detached: [] },
    passwordStores: [],
    push() {
      fake.state.secretCount = fake.secrets.length;
      api.emit('vault:changed', structuredClone(fake.state));
      api.emit('secrets:changed', structuredClone(fake.secrets));
    },
  };

  const state = (): VaultState => structuredClone(fake.state);
  const find = (id: string | undefined): SecretMeta => {
    const secret = fake.secrets.find((s) => s.id === id);
    if (!secret) throw fail('SECRET_NOT_FOUND', `No secret "${id}".`);
    return secret;
  };
  const requireOpen = (): void => {
    if (fake.state.status === 'not-set-up') throw fail('VAULT_NOT_SET_UP', 'Choose where secrets are kept first.');
    if (fake.state.status === 'locked') throw fail('VAULT_LOCKED', 'The vault is locked.');
  };

  api.answer('vault:state', state);
  api.answer('vault:setup', (request) => {
    const setup = VaultSetup.parse(request);
    if (!fake.state.available.includes(setup.backend)) throw fail('KEYCHAIN_UNAVAILABLE', `${setup.backend} is not available here.`);
    if (setup.backend === 'passphrase' && !setup.passphrase) throw fail('VALIDATION_FAILED', 'A passphrase is required.');
    if (fake.state.status === 'locked') throw fail('VAULT_LOCKED', 'Unlock the vault before moving it.');
    fake.passphrase = setup.backend === 'passphrase' ? setup.passphrase! : null;
    Object.assign(fake.state, {
      status: 'unlocked',
      backend: setup.backend,
      protected: isProtected(setup.backend),
      persisted: setup.backend !== 'session',
    });
    // A move re-wraps every secret: each now lives in the new backend.
    for (const secret of fake.secrets) Object.assign(secret, { backend: setup.backend, protected: isProtected(setup.backend) });
    fake.push();
    return state();
  });
  api.answer('vault:unlock', (request) => {
    if (fake.state.status === 'not-set-up') throw fail('VAULT_NOT_SET_UP', 'There is no vault to unlock.');
    if (fake.state.status === 'unlocked') return state();
    if (request?.passphrase !== fake.passphrase) throw fail('VAULT_WRONG_PASSPHRASE', 'The passphrase does not open the vault; nothing was changed.');
    fake.state.status = 'unlocked';
    fake.push();
    return state();
  });
  api.answer('vault:lock', () => {
    if (fake.state.backend === 'passphrase' && fake.state.status === 'unlocked') {
      fake.state.status = 'locked';
      fake.push();
    }
    return state();
  });
  api.answer('vault:password-store', (request) => {
    fake.passwordStores.push(request?.passwordStore ?? null);
    return state();
  });

  api.answer('secrets:list', () => structuredClone(fake.secrets));
  api.answer('secrets:save', (request) => {
    requireOpen();
    const save = SecretSave.parse(request);
    const now = new Date().toISOString();
    const backendNow = fake.state.backend!;
    let secret: SecretMeta;
    if (save.id) {
      secret = find(save.id);
      Object.assign(secret, { name: save.name, llm: save.llm, updatedAt: save.value ? now : secret.updatedAt });
      if (save.value) Object.assign(secret, { backend: backendNow, protected: isProtected(backendNow), lastTest: null });
    } else {
      if (!save.value) throw fail('VALIDATION_FAILED', 'A new secret needs a value.');
      const base = save.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'secret';
      const id = fake.secrets.some((s) => s.id === base) ? `${base}-${nextId++}` : base;
      secret = makeSecret({ id, name: save.name, kind: save.kind, llm: save.llm, backend: backendNow, protected: isProtected(backendNow), createdAt: now, updatedAt: now });
      fake.secrets.push(secret);
    }
    if (save.value) fake.values.set(secret.id, save.value);
    fake.push();
    return structuredClone(secret);
  });
  api.answer('secrets:delete', (request) => {
    const secret = find(request?.id);
    fake.secrets = fake.secrets.filter((s) => s !== secret);
    fake.values.delete(secret.id);
    fake.push();
    return { removed: true as const };
  });
  api.answer('secrets:test', (request) => {
    requireOpen();
    const secret = find(request?.id);
    const result = fake.testAnswer(secret);
    secret.lastTest = result;
    fake.push();
    return structuredClone(result);
  });

  api.answer('settings:export', () => ({ path: '/home/u/Downloads/agentswarm-settings-2026-12-03.json', bytes: 1234 }));
  api.answer('settings:import', (request) => {
    try {
      JSON.parse(request?.text ?? '');
    } catch {
      throw fail('SETTINGS_IMPORT_INVALID', 'The file is not JSON.');
    }
    // The second pass answers what was confirmed (the test sets it), the first pass importAnswer.
    if (request?.confirm !== undefined && fake.confirmAnswer) return structuredClone(fake.confirmAnswer(request.confirm));
    return structuredClone(fake.importAnswer);
  });
  return fake;
}
