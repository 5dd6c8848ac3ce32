import { z } from 'zod';

/**
 * Credentials vault (issue 14). Secret VALUES never cross this contract: the renderer sends a value
 * once (save / replace) and afterwards sees metadata only — name, kind, where it is stored, when it
 * was set, the last test. No channel returns a value. Profiles, SSH servers and the dry run refer
 * to a secret by its id.
 */

export const SecretId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'secret id must be lowercase letters, digits or "-"');

/**
 * - `llm`: an LLM endpoint's API key; its base URL and model are plain attributes (`llm` below).
 * - `ssh-password` / `ssh-passphrase`: used by the SSH service by reference (a server's `passwordSecretId` …).
 * - `swanlab`: the SwanLab key, passed to containers as env.
 * - `env`: any other secret env value of a swarm profile (`secretRefs`).
 */
export const SecretKind = z.enum(['llm', 'ssh-password', 'ssh-passphrase', 'swanlab', 'env']);

/**
 * What wraps the vault's data key:
 * - `keychain`: the OS keychain through Electron's safeStorage (Keychain, DPAPI, libsecret/kwallet);
 * - `passphrase`: a passphrase the user types once per run (scrypt → key-encryption key);
 * - `session`: memory only, gone when the app quits (nothing is written);
 * - `obfuscated`: Linux `basic_text` chosen explicitly — written, but NOT protected (badged everywhere).
 */
export const VaultBackend = z.enum(['keychain', 'passphrase', 'session', 'obfuscated']);

/** What Electron's safeStorage reports (null in the browser host, which has no keychain). */
export const KeychainInfo = z.object({
  /** `isEncryptionAvailable()` (async variant where the pinned Electron has it). */
  available: z.boolean(),
  /** Linux: `getSelectedStorageBackend()` (gnome_libsecret, kwallet5, basic_text, unknown, …); elsewhere the platform's store. */
  backend: z.string(),
  /** True when the backend only obfuscates (Linux `basic_text`) or encryption is unavailable. */
  weak: z.boolean(),
  /** The detected desktop (XDG_CURRENT_DESKTOP), for advice that names it; null when unknown. */
  desktop: z.string().nullable(),
  /** The `--password-store=` value this launch used (remembered from the user's choice), null = auto-detect. */
  passwordStore: z.string().nullable(),
  /** The `--password-store=` values that may fix it on this desktop, best first (e.g. gnome-libsecret). */
  suggestedPasswordStores: z.array(z.string()),
});

export const VaultState = z.object({
  /**
   * - `not-set-up`: no vault file and no session vault yet: the user picks a backend;
   * - `locked`: a vault file exists and needs the passphrase (or the keychain failed to unwrap it);
   * - `unlocked`: secrets can be saved and used.
   */
  status: z.enum(['not-set-up', 'locked', 'unlocked']),
  backend: VaultBackend.nullable(),
  /** False for `session` (not persisted) and `obfuscated` (persisted, not protected): the UI badges it. */
  protected: z.boolean(),
  persisted: z.boolean(),
  /** The backends this host can offer now (browser host: passphrase, session; Electron: + keychain, + obfuscated on basic_text). */
  available: z.array(VaultBackend),
  keychain: KeychainInfo.nullable(),
  /** Absolute path of the vault file, shown so the user can find it. */
  file: z.string(),
  /** A vault file that could not be read was moved here (the others settings are intact); null when none. */
  movedAside: z.string().nullable(),
  /** English detail of the last problem (corrupt file, keychain failure), never a secret. */
  problem: z.string().nullable(),
  secretCount: z.number().int().nonnegative(),
});

export const SecretTestResult = z.object({
  ok: z.boolean(),
  at: z.string(),
  /** HTTP status of the test request, null when it did not get that far (DNS, refused, timeout). */
  status: z.number().int().nullable(),
  latencyMs: z.number().nonnegative().nullable(),
  /** What was tried: `GET /models`, or a 1-token chat completion where that route is missing. */
  method: z.enum(['models', 'chat']).nullable(),
  /** Plain English result, redacted ("401 Unauthorized: invalid api key", "3 models, gpt-4o-mini listed"). */
  message: z.string(),
});

export const LlmAttributes = z.object({
  baseUrl: z.string().trim().url('base URL must be a URL such as https://api.openai.com/v1').max(2048),
  model: z.string().trim().min(1, 'model is required').max(256),
});

export const SecretMeta = z.object({
  id: SecretId,
  name: z.string().min(1).max(128),
  kind: SecretKind,
  /** Where the value lives (the vault's backend when it was sealed). */
  backend: VaultBackend,
  protected: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Plain attributes of an LLM endpoint; null for other kinds. */
  llm: LlmAttributes.nullable(),
  lastTest: SecretTestResult.nullable(),
  /** Who refers to it: "server gpu-1", "profile qwen-7b (SWANLAB_API_KEY)", "dry run". */
  usedBy: z.array(z.string()),
});

/**
 * The origin (scheme, host, port) an LLM key is bound to: `https://api.openai.com` for
 * `https://api.openai.com/v1`, with the default port dropped, so `:443` is the same endpoint.
 * null for a string that is not a URL.
 */
export function endpointOrigin(url: string): string | null {
  try {
    const parsed = new URL(url.trim());
    return parsed.origin === 'null' ? null : parsed.origin;
  } catch {
    return null;
  }
}

/**
 * Create (no id) or replace/edit (id). `value` is write-only; omitted on edit = keep the stored
 * value — but only while the kind and the LLM endpoint's origin stay: a key is bound to the
 * endpoint it was typed for. Moving it to another origin without typing it again needs
 * `reuseKeyAt` = that new origin, which the UI sends only after the user confirmed
 * "use the same key at <origin>".
 */
export const SecretSave = z.object({
  id: SecretId.optional(),
  name: z.string().trim().min(1, 'name is required').max(128),
  kind: SecretKind,
  value: z.string().min(1, 'the secret is empty').max(16_384).optional(),
  llm: LlmAttributes.nullable().default(null),
  reuseKeyAt: z.string().max(2100).optional(),
});

export const SecretRef = z.object({ id: SecretId });

/** First set-up, or a move to another backend (re-wrap: nothing is lost). */
export const VaultSetup = z.object({
  backend: VaultBackend,
  /** Required for `passphrase` (new passphrase, at least 8 characters). */
  passphrase: z.string().min(8, 'use at least 8 characters').max(1024).optional(),
  /** Required to leave a locked passphrase vault (the current passphrase). */
  currentPassphrase: z.string().max(1024).optional(),
});

export const VaultUnlock = z.object({ passphrase: z.string().min(1, 'type the passphrase').max(1024) });

/** `--password-store=` for the next launch (Electron only); null = let Chromium detect. */
export const PasswordStoreChoice = z.object({
  passwordStore: z.enum(['gnome-libsecret', 'kwallet', 'kwallet5', 'kwallet6', 'basic']).nullable(),
});

/** Settings export: every non-secret setting (settings, servers, profiles, LLM endpoints' plain attributes), no values. */
export const SettingsExport = z.object({
  path: z.string(),
  bytes: z.number().int().nonnegative(),
});
/**
 * Where an item of an import would send things: a server's host, port, user, jump hosts and key
 * files; a profile's engine and image; and an added server's use of a secret that is in this
 * vault. A change of any of these is applied only once the user confirmed that item.
 */
export const ImportField = z.enum(['host', 'port', 'username', 'jumps', 'identityFiles', 'engineId', 'image', 'passwordSecretId', 'passphraseSecretId']);

export const ImportFieldChange = z.object({
  field: ImportField,
  /** The value here now, as text (jump hosts as `user@host:port`, key files comma-separated); null = none. */
  from: z.string().nullable(),
  to: z.string().nullable(),
});

/** An item the import held back: what would change, old → new. `key` goes back in `confirm`. */
export const ImportPending = z.object({
  key: z.string().max(200),
  kind: z.enum(['server', 'profile']),
  label: z.string(),
  changes: z.array(ImportFieldChange),
});

/** A secret reference removed when a confirmed change re-pointed its item: the user attaches it again. */
export const ImportDetached = z.object({
  kind: z.enum(['server', 'profile']),
  label: z.string(),
  /** `passwordSecretId`, `passphraseSecretId`, or a profile's env name. */
  field: z.string(),
  secretId: z.string(),
});

export const SettingsImportRequest = z.object({
  /** The exported file's text (the renderer reads the file the user picked). */
  text: z.string().min(2).max(4_000_000),
  /**
   * Absent: the first pass (everything but the held-back items). Present: the second pass, which
   * applies only these items (keys from `pending`) after the user confirmed their changes.
   */
  confirm: z.array(z.string().max(200)).max(1000).optional(),
});
export const SettingsImportResult = z.object({
  imported: z.array(z.string()),
  skipped: z.array(z.string()),
  /** Secrets the imported items refer to that are not in this vault: the user sets them again. */
  missingSecrets: z.array(z.string()),
  /** Items not applied: their changes wait for the user's confirmation. */
  pending: z.array(ImportPending).default([]),
  /** Secret references taken off items whose confirmed change re-pointed them. */
  detached: z.array(ImportDetached).default([]),
});

export type SecretKind = z.infer<typeof SecretKind>;
export type VaultBackend = z.infer<typeof VaultBackend>;
export type KeychainInfo = z.infer<typeof KeychainInfo>;
export type VaultState = z.infer<typeof VaultState>;
export type SecretTestResult = z.infer<typeof SecretTestResult>;
export type LlmAttributes = z.infer<typeof LlmAttributes>;
export type SecretMeta = z.infer<typeof SecretMeta>;
export type SecretSave = z.infer<typeof SecretSave>;
export type VaultSetup = z.infer<typeof VaultSetup>;
export type PasswordStoreChoice = z.infer<typeof PasswordStoreChoice>;
export type SettingsImportResult = z.infer<typeof SettingsImportResult>;
export type ImportFieldChange = z.infer<typeof ImportFieldChange>;
export type ImportPending = z.infer<typeof ImportPending>;
export type ImportDetached = z.infer<typeof ImportDetached>;
