import { endpointOrigin, LlmAttributes, type SecretKind, type SecretMeta, type SecretSave, type VaultBackend } from '../../../electron/shared/schemas-vault';
import { tick } from 'svelte';
import type { MessageKey } from './i18n';

/**
 * What the add / replace / edit forms ask:
 * - `add`: a new secret (name, value, and the LLM endpoint's base URL and model);
 * - `replace`: a new value only (the field is never pre-filled: no channel returns a value);
 * - `edit`: rename (and an LLM endpoint's URL and model), keeping the stored value.
 */
export type SecretFormMode = 'add' | 'replace' | 'edit';

export interface SecretDraft {
  name: string;
  value: string;
  baseUrl: string;
  model: string;
  /** Edit only: the user confirmed that the stored key may be used at the new base URL's origin. */
  reuseKey: boolean;
}

export type SecretField = keyof SecretDraft;
export const SECRET_FIELD_ORDER: readonly SecretField[] = ['name', 'baseUrl', 'model', 'reuseKey', 'value'];

export function emptySecretDraft(kind: SecretKind): SecretDraft {
  return { name: '', value: '', baseUrl: kind === 'llm' ? 'https://api.openai.com/v1' : '', model: '', reuseKey: false };
}

/** The draft of an existing secret: its plain attributes, and never its value. */
export function draftFromSecret(secret: SecretMeta): SecretDraft {
  return { name: secret.name, value: '', baseUrl: secret.llm?.baseUrl ?? '', model: secret.llm?.model ?? '', reuseKey: false };
}

/**
 * Edit of an LLM endpoint: the new origin when the base URL moved to another scheme, host or port
 * (the stored key is bound to its origin: the form then asks "use the same key at <origin>?"),
 * else null.
 */
export function movedOrigin(draft: SecretDraft, mode: SecretFormMode, kind: SecretKind, existing: SecretMeta | null): string | null {
  if (mode !== 'edit' || kind !== 'llm' || !existing?.llm) return null;
  const to = endpointOrigin(draft.baseUrl);
  return to !== null && to !== endpointOrigin(existing.llm.baseUrl) ? to : null;
}

export function fieldsOf(mode: SecretFormMode, kind: SecretKind): SecretField[] {
  const llm = kind === 'llm' && mode !== 'replace';
  return SECRET_FIELD_ORDER.filter((field) => {
    if (field === 'name') return mode !== 'replace';
    if (field === 'value') return mode !== 'edit';
    // Shown only when the origin moved (movedOrigin); listed so errors and focus know its place.
    if (field === 'reuseKey') return llm && mode === 'edit';
    return llm;
  });
}

/** The request to send, or the message key of each field that stops it. */
export function checkSecretDraft(
  draft: SecretDraft,
  mode: SecretFormMode,
  kind: SecretKind,
  existing: SecretMeta | null,
): { errors: Partial<Record<SecretField, MessageKey>>; request: SecretSave | null } {
  const fields = fieldsOf(mode, kind);
  const errors: Partial<Record<SecretField, MessageKey>> = {};
  if (fields.includes('name') && draft.name.trim() === '') errors.name = 'vault.form.nameMissing';
  // Whitespace is a value as typed (a passphrase may end in a space): only empty is refused.
  if (fields.includes('value') && draft.value === '') errors.value = 'vault.form.valueMissing';
  let llm: SecretSave['llm'] = existing?.llm ?? null;
  if (fields.includes('baseUrl')) {
    const parsed = LlmAttributes.safeParse({ baseUrl: draft.baseUrl, model: draft.model });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (issue.path[0] === 'baseUrl') errors.baseUrl = 'vault.form.baseUrlInvalid';
        if (issue.path[0] === 'model') errors.model = 'vault.form.modelMissing';
      }
    } else llm = parsed.data;
  }
  const moved = movedOrigin(draft, mode, kind, existing);
  if (moved !== null && !draft.reuseKey) errors.reuseKey = 'vault.form.reuseKeyMissing';
  if (Object.keys(errors).length > 0) return { errors, request: null };
  const request: SecretSave = {
    ...(existing ? { id: existing.id } : {}),
    name: fields.includes('name') ? draft.name.trim() : (existing?.name ?? draft.name.trim()),
    kind,
    llm: kind === 'llm' ? llm : null,
    ...(fields.includes('value') ? { value: draft.value } : {}),
    ...(moved !== null ? { reuseKeyAt: moved } : {}),
  };
  return { errors, request };
}

/** After a refused save: moves focus to the first field (in form order) that stops it, once the errors render. */
export async function focusFirstInvalid(container: HTMLElement | null | undefined, errors: Partial<Record<SecretField, MessageKey>>): Promise<void> {
  await tick();
  const first = SECRET_FIELD_ORDER.find((field) => errors[field]);
  container?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus();
}

export function backendKey(backend: VaultBackend): MessageKey {
  return `vault.backend.${backend}`;
}

/** Badges shown wherever such a secret (or the vault) appears: session and obfuscated are not protected. */
export function backendBadges(backend: VaultBackend | null, isProtected: boolean): MessageKey[] {
  const badges: MessageKey[] = [];
  if (!isProtected) badges.push('vault.badge.notProtected');
  if (backend === 'session') badges.push('vault.badge.sessionOnly');
  return badges;
}

export function formatWhen(iso: string, locale: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(locale);
}
