import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { SettingsPatch, type Settings } from '../../shared/schemas';
import { Profile, type ProfileInput } from '../../shared/schemas-profiles';
import { engineIdOfServer, ServerProfile, type ServerProfileInput } from '../../shared/schemas-servers';
import { LlmAttributes, SecretId, SecretKind, type ImportDetached, type ImportPending, type SecretMeta, type SettingsImportResult } from '../../shared/schemas-vault';
import type { SecretVaultApi } from '../secrets/vault-api';
import { writeFileAtomic } from '../util/atomic-file';
import { redactText } from '../util/redact';
import { describeZodError } from '../util/zod-messages';
import {
  addedServerSecretUses,
  detachProfileSecrets,
  detachServerSecrets,
  pendingItem,
  profileKey,
  profileTargetChanges,
  serverKey,
  serverTargetChanges,
} from './import-changes';

/**
 * Export and import of every NON-SECRET setting: settings.json, SSH servers, swarm profiles, and
 * the vault's secret metadata (id, name, kind, an LLM endpoint's base URL and model) so that the
 * references in servers and profiles can be re-pointed on the other machine. A secret VALUE is never
 * written (the export is built from whitelisted fields) and never read back (the import schema has
 * no field for one, and zod drops unknown keys).
 */

export const SETTINGS_EXPORT_FORMAT = 'agentswarm-settings';
/** Bumped when the file's shape changes; an import refuses a file newer than it understands. */
export const SETTINGS_EXPORT_VERSION = 1;

/** A secret as exported: enough to recreate it by hand and re-point references, no value. */
const ExportedSecret = z.object({ id: SecretId, name: z.string().min(1).max(128), kind: SecretKind, llm: LlmAttributes.nullable().default(null) });

export const SettingsFile = z.object({
  format: z.literal(SETTINGS_EXPORT_FORMAT, { error: `not an AgentSwarm settings export (format must be "${SETTINGS_EXPORT_FORMAT}")` }),
  formatVersion: z
    .number()
    .int()
    .min(1)
    .max(SETTINGS_EXPORT_VERSION, {
      error: `exported by a newer AgentSwarm (format version above ${SETTINGS_EXPORT_VERSION}); update the app to import it`,
    }),
  exportedAt: z.string().max(64).optional(),
  appVersion: z.string().max(64).optional(),
  settings: SettingsPatch.optional(),
  servers: z.array(ServerProfile).max(500).default([]),
  profiles: z.array(Profile).max(500).default([]),
  secrets: z.array(ExportedSecret).max(1000).default([]),
});
export type SettingsFile = z.infer<typeof SettingsFile>;

/**
 * Where imported servers and profiles go: through the same domain code as the Servers and Profiles
 * pages (app-services.ts wires the handlers), so their checks (unique names, ports, locks) apply.
 */
export interface TransferTargets {
  servers: {
    list(): Promise<ServerProfile[]>;
    add(input: ServerProfileInput): Promise<ServerProfile>;
    update(id: string, input: ServerProfileInput): Promise<ServerProfile>;
  };
  profiles: {
    list(): Promise<Profile[]>;
    add(input: ProfileInput): Promise<Profile>;
    update(id: string, input: ProfileInput): Promise<Profile>;
  };
}

export interface TransferSources {
  settings: { get(): Settings; update(patch: z.infer<typeof SettingsPatch>): Promise<Settings> };
  vault: Pick<SecretVaultApi, 'list'>;
  targets: () => TransferTargets;
  downloadsDir: string;
  appVersion: string;
  now?: () => Date;
}

/** Only the whitelisted metadata fields; `SecretMeta` itself has no value, this also drops test results and usage. */
function exportedSecret(meta: SecretMeta): z.infer<typeof ExportedSecret> {
  return { id: meta.id, name: meta.name, kind: meta.kind, llm: meta.llm ? { baseUrl: meta.llm.baseUrl, model: meta.llm.model } : null };
}

export async function exportSettings(sources: TransferSources): Promise<{ path: string; bytes: number }> {
  const targets = sources.targets();
  const now = (sources.now ?? (() => new Date()))();
  const content: SettingsFile = {
    format: SETTINGS_EXPORT_FORMAT,
    formatVersion: SETTINGS_EXPORT_VERSION,
    exportedAt: now.toISOString(),
    appVersion: sources.appVersion,
    settings: sources.settings.get(),
    servers: await targets.servers.list(),
    profiles: await targets.profiles.list(),
    secrets: sources.vault.list().map(exportedSecret),
  };
  // Through the one redactor like every file we write for the user: nothing above holds a value, and this keeps it so.
  const text = redactText(`${JSON.stringify(content, null, 2)}\n`);
  await mkdir(sources.downloadsDir, { recursive: true });
  const stamp = now.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '');
  const path = join(sources.downloadsDir, `agentswarm-settings-${stamp}.json`);
  await writeFileAtomic(path, text);
  return { path, bytes: Buffer.byteLength(text) };
}

/** Parses and validates an export; SETTINGS_IMPORT_INVALID names what is wrong, nothing is applied. */
export function parseSettingsFile(text: string): SettingsFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError('SETTINGS_IMPORT_INVALID', 'This file is not JSON. Pick a file made by "Export settings".');
  }
  const parsed = SettingsFile.safeParse(raw);
  if (!parsed.success) throw new AppError('SETTINGS_IMPORT_INVALID', `This settings file cannot be imported: ${describeZodError(parsed.error)}. Nothing was changed.`);
  return parsed.data;
}

/**
 * Applies an export: settings are merged, servers and profiles are updated when the id exists
 * here and added otherwise; nothing here is deleted. A server or profile that this app refuses
 * (a name or port already taken) is skipped with the reason. Secrets are never imported:
 * `missingSecrets` lists the ones the file knows of (or its items refer to) that this vault lacks.
 *
 * Nothing changes where things are sent without the user's word (import-changes.ts): the first
 * pass (`confirm` absent) holds back every item that would re-point a server or a profile and
 * lists its changes in `pending`; the second pass applies only the items in `confirm`, dropping
 * their secret references (`detached`) so that no saved password follows a new host by itself.
 */
export async function importSettings(sources: TransferSources, text: string, confirm?: readonly string[]): Promise<SettingsImportResult> {
  const file = parseSettingsFile(text);
  const targets = sources.targets();
  const secondPass = confirm !== undefined;
  const confirmed = new Set(confirm ?? []);
  const imported: string[] = [];
  const skipped: string[] = [];
  const pending: ImportPending[] = [];
  const detached: ImportDetached[] = [];
  const inVault = new Set(sources.vault.list().map((s) => s.id));
  /** Apply now, hold back (first pass), or leave alone (second pass, not confirmed). */
  const decide = (key: string, held: boolean): 'apply' | 'hold' | 'leave' => {
    if (secondPass) return confirmed.has(key) ? 'apply' : held ? 'hold' : 'leave';
    return held ? 'hold' : 'apply';
  };

  if (!secondPass && file.settings && Object.keys(file.settings).length > 0) {
    try {
      await sources.settings.update(file.settings);
      imported.push('settings');
    } catch (error) {
      skipped.push(`settings: ${messageOf(error)}`);
    }
  }

  // A server added here may get another id than it had (its id comes from its label): profiles on
  // its engine are re-pointed to the new engine id.
  const engineIds = new Map<string, string>();
  const serversHere = await targets.servers.list();
  const serverById = new Map(serversHere.map((s) => [s.id, s]));
  for (const server of file.servers) {
    const { id, ...input } = server;
    const here = serverById.get(id);
    const changes = here ? serverTargetChanges(here, input) : addedServerSecretUses(input, inVault);
    const decision = decide(serverKey(id), changes.length > 0);
    if (decision !== 'apply') {
      if (decision === 'hold') pending.push(pendingItem('server', serverKey(id), server.label, changes));
      // Applied by the first pass: profiles confirmed now still find its engine.
      const known = here ?? serversHere.find((s) => s.label === server.label);
      if (known && decision === 'leave') engineIds.set(engineIdOfServer(id), engineIdOfServer(known.id));
      continue;
    }
    const detach = changes.length > 0 ? detachServerSecrets(server.label, input, here) : { input, detached: [] };
    try {
      const saved = here ? await targets.servers.update(id, detach.input) : await targets.servers.add(detach.input);
      engineIds.set(engineIdOfServer(id), engineIdOfServer(saved.id));
      imported.push(`server ${saved.label}`);
      detached.push(...detach.detached);
    } catch (error) {
      skipped.push(`server ${server.label}: ${messageOf(error)}`);
    }
  }

  const profileById = new Map((await targets.profiles.list()).map((p) => [p.id, p]));
  for (const profile of file.profiles) {
    const { id, createdAt: _createdAt, updatedAt: _updatedAt, ...rest } = profile;
    const input: ProfileInput = { ...rest, engineId: engineIds.get(rest.engineId) ?? rest.engineId };
    const here = profileById.get(id);
    const changes = here ? profileTargetChanges(here, input) : [];
    const decision = decide(profileKey(id), changes.length > 0);
    if (decision !== 'apply') {
      if (decision === 'hold') pending.push(pendingItem('profile', profileKey(id), profile.label, changes));
      continue;
    }
    const detach = changes.length > 0 ? detachProfileSecrets(profile.label, input) : { input, detached: [] };
    try {
      const saved = here ? await targets.profiles.update(id, detach.input) : await targets.profiles.add(detach.input);
      imported.push(`profile ${saved.label}`);
      detached.push(...detach.detached);
    } catch (error) {
      skipped.push(`profile ${profile.label}: ${messageOf(error)}`);
    }
  }

  const named = new Map(file.secrets.map((s) => [s.id, s.name]));
  const wanted = new Set([...file.secrets.map((s) => s.id), ...secretIdsIn(file.servers), ...secretIdsIn(file.profiles)]);
  const missingSecrets = [...wanted].filter((id) => !inVault.has(id)).map((id) => (named.has(id) ? `${named.get(id)} (${id})` : id));
  return { imported, skipped, missingSecrets, pending, detached };
}

/**
 * Every secret id an item refers to: fields named `…SecretId` / `secretId` anywhere in it (a
 * server's passwordSecretId and passphraseSecretId) and every value under a `secretRefs` field (a
 * profile's env name → secret id). Found by name so references added to the schemas later in the
 * same style are covered without a change here.
 */
export function secretIdsIn(value: unknown): string[] {
  const found: string[] = [];
  const strings = (node: unknown): void => {
    if (typeof node === 'string' && node !== '') found.push(node);
    else if (node !== null && typeof node === 'object') Object.values(node).forEach(strings);
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (/secretId$/i.test(key) && typeof child === 'string' && child !== '') found.push(child);
        else if (key === 'secretRefs') strings(child);
        else walk(child);
      }
    }
  };
  walk(value);
  return found;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
