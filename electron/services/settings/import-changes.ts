import type { Profile, ProfileInput } from '../../shared/schemas-profiles';
import type { ServerProfile, ServerProfileInput, SshJumpHost } from '../../shared/schemas-servers';
import type { ImportDetached, ImportFieldChange, ImportPending } from '../../shared/schemas-vault';

/**
 * What an import would change where things are sent (issue 29, item 4). An imported file once
 * moved server `prod` from port 2222 to 2291 and kept its vault password, which then went to the
 * new host: such changes are held back, listed old → new, and applied only for the items the user
 * confirms; an item re-pointed that way loses its secret references (the user attaches them again
 * after checking the new target). Other fields (a label, GPUs, env) are applied as before.
 */

export const serverKey = (id: string): string => `server:${id}`;
export const profileKey = (id: string): string => `profile:${id}`;

const jumpsText = (jumps: readonly SshJumpHost[]): string | null =>
  jumps.length === 0 ? null : jumps.map((j) => `${j.username}@${j.host}:${j.port}${j.identityFiles.length ? ` (${j.identityFiles.join(', ')})` : ''}`).join(' → ');
const filesText = (files: readonly string[]): string | null => (files.length === 0 ? null : files.join(', '));

function change(field: ImportFieldChange['field'], from: string | null, to: string | null): ImportFieldChange[] {
  return from === to ? [] : [{ field, from, to }];
}

/** The target fields of a server that exists here and would be updated: any change re-points it. */
export function serverTargetChanges(here: ServerProfile, incoming: ServerProfileInput): ImportFieldChange[] {
  return [
    ...change('host', here.host, incoming.host),
    ...change('port', String(here.port), String(incoming.port)),
    ...change('username', here.username, incoming.username),
    ...change('jumps', jumpsText(here.jumps), jumpsText(incoming.jumps)),
    ...change('identityFiles', filesText(here.identityFiles), filesText(incoming.identityFiles)),
  ];
}

/**
 * An added server that would use a secret of THIS vault: a new binding of an existing password to
 * a host the user has not seen yet. A reference to a secret not in this vault is kept (the user
 * saves it later, and is asked where it goes then).
 */
export function addedServerSecretUses(incoming: ServerProfileInput, inVault: ReadonlySet<string>): ImportFieldChange[] {
  const uses: ImportFieldChange[] = [];
  if (incoming.passwordSecretId && inVault.has(incoming.passwordSecretId)) uses.push({ field: 'passwordSecretId', from: null, to: incoming.passwordSecretId });
  if (incoming.passphraseSecretId && inVault.has(incoming.passphraseSecretId)) uses.push({ field: 'passphraseSecretId', from: null, to: incoming.passphraseSecretId });
  return uses;
}

/** A profile that exists here: another engine or image gets its secret env somewhere else. */
export function profileTargetChanges(here: Profile, incoming: ProfileInput): ImportFieldChange[] {
  return [...change('engineId', here.engineId, incoming.engineId), ...change('image', here.image, incoming.image)];
}

export function pendingItem(kind: ImportPending['kind'], key: string, label: string, changes: ImportFieldChange[]): ImportPending {
  return { key, kind, label, changes };
}

/**
 * A confirmed re-pointed server: its own and the imported secret references are dropped, each
 * listed. An added server confirmed for its secret uses keeps them (that is what was confirmed).
 */
export function detachServerSecrets(label: string, input: ServerProfileInput, here: ServerProfile | undefined): { input: ServerProfileInput; detached: ImportDetached[] } {
  if (!here) return { input, detached: [] };
  const detached: ImportDetached[] = [];
  for (const field of ['passwordSecretId', 'passphraseSecretId'] as const) {
    const secretId = input[field] ?? here[field];
    if (secretId) detached.push({ kind: 'server', label, field, secretId });
  }
  return { input: { ...input, passwordSecretId: null, passphraseSecretId: null }, detached };
}

/** A confirmed re-pointed profile: its vault env references are dropped, each listed. */
export function detachProfileSecrets(label: string, input: ProfileInput): { input: ProfileInput; detached: ImportDetached[] } {
  const detached = Object.entries(input.secretRefs ?? {}).map(([field, secretId]) => ({ kind: 'profile' as const, label, field, secretId }));
  return { input: { ...input, secretRefs: {} }, detached };
}
