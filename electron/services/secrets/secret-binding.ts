import { AppError } from '../../shared/errors';
import { endpointOrigin, type SecretKind, type SecretMeta } from '../../shared/schemas-vault';
import type { DomainHandlers } from '../domain';
import type { SecretVaultApi } from './vault-api';

/**
 * Where a stored secret may go. A secret is saved for one use: an LLM key for the endpoint it was
 * typed for, an SSH password for a login, an env value for a container. Every place that takes a
 * secret id checks the kind here, and every place that sends an LLM key over the network checks
 * that the URL it would use has the key's own origin — so a re-pointed URL, a dry-run form with
 * another URL, or an SSH password picked as an LLM key is refused before anything is sent.
 */

/** The kinds an SSH login takes (a server's password, a key file's passphrase). */
export const SSH_KINDS: readonly SecretKind[] = ['ssh-password', 'ssh-passphrase'];
/** The kinds a profile may give a container as env (an LLM key goes only to its own endpoint). */
export const ENV_KINDS: readonly SecretKind[] = ['swanlab', 'env'];

const KIND_WORDS: Record<SecretKind, string> = {
  llm: 'an LLM endpoint key',
  'ssh-password': 'an SSH password',
  'ssh-passphrase': 'an SSH key passphrase',
  swanlab: 'a SwanLab key',
  env: 'a secret env value',
};

export function kindWords(kind: SecretKind): string {
  return KIND_WORDS[kind];
}

/** Throws SECRET_WRONG_KIND unless `meta` is one of `kinds`; `use` names the user ("The dry run", "Server gpu-1's password"). */
export function requireKind(meta: SecretMeta, kinds: readonly SecretKind[], use: string): void {
  if (kinds.includes(meta.kind)) return;
  const wanted = kinds.map(kindWords).join(' or ');
  throw new AppError(
    'SECRET_WRONG_KIND',
    `${use} takes ${wanted}, and "${meta.name}" is ${kindWords(meta.kind)}: it was not used. Choose a secret of the right kind, or add one in Settings → Secrets.`,
  );
}

/**
 * The LLM endpoint secret `meta`, checked for a request to `url`: an `llm` kind, and `url` at the
 * origin the key was saved for. Returns the key's origin. `use` names who asks.
 */
export function requireLlmFor(meta: SecretMeta, url: string, use: string): string {
  requireKind(meta, ['llm'], use);
  const own = meta.llm ? endpointOrigin(meta.llm.baseUrl) : null;
  if (!own) {
    throw new AppError('VALIDATION_FAILED', `"${meta.name}" has no base URL: edit the endpoint in Settings → Secrets and add it, then try again.`);
  }
  const target = endpointOrigin(url);
  if (target !== own) {
    throw new AppError(
      'SECRET_ENDPOINT_MISMATCH',
      `${use} would send the key "${meta.name}" to ${target ?? url}, but it was saved for ${own}; it was not sent. Use ${own}, type a key for ${target ?? 'that URL'}, or save "${meta.name}" for the new endpoint in Settings → Secrets.`,
    );
  }
  return own;
}

/**
 * `secrets:save` of an existing secret without a new value: the stored value stays only for the
 * same kind and, for an LLM key, the same origin — unless the request carries `reuseKeyAt` equal
 * to the new origin (the user confirmed "use the same key at <origin>").
 */
export function checkKeptValue(existing: { kind: SecretKind; name: string; llm: SecretMeta['llm'] }, request: { kind: SecretKind; llm: SecretMeta['llm']; reuseKeyAt?: string | undefined }): void {
  if (existing.kind !== request.kind) {
    throw new AppError(
      'SECRET_WRONG_KIND',
      `"${existing.name}" was saved as ${kindWords(existing.kind)}; to make it ${kindWords(request.kind)}, type the value again (a value saved for one use does not move to another by itself).`,
    );
  }
  if (request.kind !== 'llm') return;
  const from = existing.llm ? endpointOrigin(existing.llm.baseUrl) : null;
  const to = request.llm ? endpointOrigin(request.llm.baseUrl) : null;
  if (from === to || (to !== null && request.reuseKeyAt === to)) return;
  throw new AppError(
    'SECRET_ENDPOINT_MISMATCH',
    `The key "${existing.name}" was saved for ${from ?? 'no endpoint'}, and the new base URL is at ${to ?? 'no endpoint'}: nothing was saved. Type the key for the new endpoint, or confirm that the same key may be used at ${to ?? 'it'}.`,
  );
}

/**
 * The vault as one user of secrets sees it: `reveal` refuses a secret of another kind (for the SSH
 * servers: an LLM key chosen as a password never reaches the login). Everything else is the vault's.
 */
export function kindScopedVault(vault: SecretVaultApi, kinds: readonly SecretKind[], use: string): SecretVaultApi {
  return {
    state: () => vault.state(),
    list: () => vault.list(),
    meta: (id) => vault.meta(id),
    async reveal(id) {
      const meta = vault.meta(id);
      if (meta) requireKind(meta, kinds, use);
      return vault.reveal(id);
    },
    setup: (request) => vault.setup(request),
    unlock: (passphrase) => vault.unlock(passphrase),
    lock: () => vault.lock(),
    save: (request) => vault.save(request),
    remove: (id) => vault.remove(id),
    recordTest: (id, result) => vault.recordTest(id, result),
    addUsageSource: (source) => vault.addUsageSource(source),
    onChange: (listener) => vault.onChange(listener),
  };
}

/**
 * Checked when a server is saved: its password reference is an `ssh-password` secret, its key
 * passphrase an `ssh-passphrase` one. A reference to a secret that is not in the vault passes
 * (set on another computer; the login asks instead).
 */
export function checkServerSecretKinds(vault: SecretVaultApi, server: { label: string; passwordSecretId?: string | null | undefined; passphraseSecretId?: string | null | undefined }): void {
  const password = server.passwordSecretId ? vault.meta(server.passwordSecretId) : null;
  if (password) requireKind(password, ['ssh-password'], `Server ${server.label}'s password`);
  const passphrase = server.passphraseSecretId ? vault.meta(server.passphraseSecretId) : null;
  if (passphrase) requireKind(passphrase, ['ssh-passphrase'], `Server ${server.label}'s key passphrase`);
}

/** Checked when a profile is saved: every secret env reference is an env kind (see ENV_KINDS). */
export function checkEnvRefKinds(vault: SecretVaultApi, refs: Readonly<Record<string, string>> | null | undefined, label: string): void {
  for (const [name, id] of Object.entries(refs ?? {})) {
    const meta = vault.meta(id);
    if (meta) requireKind(meta, ENV_KINDS, `${label}'s ${name}`);
  }
}

/** The servers' module with its add/update handlers checking the secrets' kinds first (ssh/ stays unaware of kinds). */
export function withServerSecretKinds<M extends { handlers: DomainHandlers<'servers'> }>(vault: SecretVaultApi, module: M): M {
  const { handlers } = module;
  return {
    ...module,
    handlers: {
      ...handlers,
      'servers:add': async (input, ...rest) => {
        checkServerSecretKinds(vault, input);
        return handlers['servers:add'](input, ...rest);
      },
      'servers:update': async (request, ...rest) => {
        checkServerSecretKinds(vault, request.profile);
        return handlers['servers:update'](request, ...rest);
      },
    },
  };
}
