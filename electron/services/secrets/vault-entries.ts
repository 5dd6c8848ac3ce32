import { randomBytes } from 'node:crypto';
import type { SecretMeta, VaultBackend } from '../../shared/schemas-vault';
import { open, seal, secretAad, type BoundMeta } from './envelope';
import type { StoredSecret } from './vault-file';

/** Seals `value` with its metadata bound as AAD: the stored entry. */
export function sealEntry(dataKey: Buffer, meta: BoundMeta, value: string): StoredSecret {
  const plain = Buffer.from(value, 'utf8');
  try {
    const box = seal(dataKey, plain, secretAad(meta));
    return { ...boundMetaOf(meta), ...box };
  } finally {
    plain.fill(0);
  }
}

/** Opens an entry; throws SealBroken when the value, its nonce or any of its metadata was changed. */
export function openEntry(dataKey: Buffer, entry: StoredSecret): string {
  const plain = open(dataKey, entry, secretAad(entry));
  try {
    return plain.toString('utf8');
  } finally {
    plain.fill(0);
  }
}

/** Opens every entry with `key`: the values by id, and the ids that fail their integrity check. */
export function openEntries(key: Buffer, entries: Iterable<StoredSecret>): { values: Map<string, { meta: BoundMeta; value: string }>; broken: string[] } {
  const values = new Map<string, { meta: BoundMeta; value: string }>();
  const broken: string[] = [];
  for (const entry of entries) {
    try {
      values.set(entry.id, { meta: boundMetaOf(entry), value: openEntry(key, entry) });
    } catch {
      broken.push(entry.id);
    }
  }
  return { values, broken };
}

export function boundMetaOf(entry: BoundMeta): BoundMeta {
  return {
    id: entry.id,
    kind: entry.kind,
    name: entry.name,
    llm: entry.llm,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    lastTest: entry.lastTest,
  };
}

export function sameLlm(a: BoundMeta['llm'], b: BoundMeta['llm']): boolean {
  return (a?.baseUrl ?? null) === (b?.baseUrl ?? null) && (a?.model ?? null) === (b?.model ?? null);
}

export function isProtectedBackend(backend: VaultBackend): boolean {
  return backend === 'keychain' || backend === 'passphrase';
}

export function metaOf(entry: StoredSecret, backend: VaultBackend, usedBy: string[]): SecretMeta {
  return { ...boundMetaOf(entry), backend, protected: isProtectedBackend(backend), usedBy };
}

/**
 * A readable id from the name ("OpenAI key" → "openai-key"), made unique with a short suffix.
 * Ids appear in profiles and logs, so they carry nothing of the value.
 */
export function newSecretId(name: string, taken: (id: string) => boolean): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'secret';
  if (!taken(slug)) return slug;
  for (;;) {
    const id = `${slug}-${randomBytes(3).toString('hex')}`;
    if (!taken(id)) return id;
  }
}
