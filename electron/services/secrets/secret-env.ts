import { AppError } from '../../shared/errors';
import { ENV_KINDS, requireKind } from './secret-binding';
import type { SecretVaultApi } from './vault-api';

/**
 * The env names an LLM endpoint is given under: the OpenAI SDK's own, and the ones AgentJet
 * passes through to its agents (agentjet-swarm.md: `API_KEY`, `BASE_URL`). `OPENAI_API_BASE` is the
 * older SDK's and LangChain's name: set too, so an inherited one cannot point the key elsewhere.
 */
export const LLM_ENV_NAMES = { key: ['OPENAI_API_KEY', 'API_KEY'], baseUrl: ['OPENAI_BASE_URL', 'BASE_URL', 'OPENAI_API_BASE'] } as const;

/** A child process's extra env: the only shape in which a secret leaves the backend towards a program. */
export type SecretEnv = Readonly<Record<string, string>>;

/**
 * THE way a secret reaches a child process: as its environment, never its argv (every local user
 * can read `/proc/<pid>/cmdline`; the env of another user's process is private). Spawn with
 * `{ env: { ...process.env, ...await llmSecretEnv(vault, id) } }` and pass nothing secret in args.
 * Throws VAULT_LOCKED / VAULT_NOT_SET_UP / SECRET_NOT_FOUND from the vault, and SECRET_WRONG_KIND
 * for a secret that is not an LLM endpoint. The base URL is always the key's own (bound at save).
 */
export async function llmSecretEnv(vault: SecretVaultApi, id: string): Promise<SecretEnv> {
  const meta = vault.meta(id);
  if (!meta) throw new AppError('SECRET_NOT_FOUND', `No secret with id "${id}" in the vault. Choose another LLM endpoint, or add it again in Settings → Secrets.`);
  requireKind(meta, ['llm'], 'A job’s LLM endpoint');
  if (!meta.llm) throw new AppError('VALIDATION_FAILED', `"${meta.name}" has no base URL and model: edit the endpoint in Settings → Secrets, then try again.`);
  const key = await vault.reveal(id);
  const env: Record<string, string> = {};
  for (const name of LLM_ENV_NAMES.key) env[name] = key;
  for (const name of LLM_ENV_NAMES.baseUrl) env[name] = meta.llm.baseUrl;
  return env;
}

/**
 * Values for env names that refer to vault secrets (`{SWANLAB_API_KEY: 'swanlab-main'}`), for a
 * container's env (through the engine's API, never a command line). `label` names the user of the
 * secrets in errors. A locked vault or a missing secret names the variable, so the user knows which
 * reference to fix.
 */
export async function revealRefs(vault: SecretVaultApi, refs: Readonly<Record<string, string>>, label: string): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const [name, id] of Object.entries(refs)) {
    // A container may send its env anywhere: only values saved as env go there (an LLM key or an SSH password does not).
    const meta = vault.meta(id);
    if (meta) requireKind(meta, ENV_KINDS, `${label}'s ${name}`);
    try {
      values[name] = await vault.reveal(id);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'VAULT_LOCKED') {
        throw new AppError('VAULT_LOCKED', `${label} takes ${name} from the vault secret "${id}", and the vault is locked. Unlock it (Settings → Secrets), then try again.`);
      }
      if (error.code === 'VAULT_NOT_SET_UP') {
        throw new AppError('VAULT_NOT_SET_UP', `${label} takes ${name} from the vault secret "${id}", but no vault is set up here. Set it up in Settings → Secrets and save the secret, or remove the reference.`);
      }
      if (error.code === 'SECRET_NOT_FOUND') {
        throw new AppError('SECRET_NOT_FOUND', `${label} takes ${name} from the vault secret "${id}", which is not in the vault (deleted, or set on another computer). Choose another secret for ${name}, or save it again in Settings → Secrets.`);
      }
      throw error;
    }
  }
  return values;
}
