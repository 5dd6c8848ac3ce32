import { constants } from 'node:fs';
import { chmod, mkdir, open, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { LlmAttributes, SecretId, SecretKind, SecretTestResult } from '../../shared/schemas-vault';
import { AppError } from '../../shared/errors';
import { writeFailureWords, writeFileAtomic } from '../util/atomic-file';
import type { Logger } from '../util/logger';
import { VAULT_FORMAT, VAULT_FORMAT_VERSION, type SealedBox } from './envelope';

/**
 * The vault file (`<dataDir>/vault.json`, mode 0600 in a 0700 folder). Version 1:
 *   { format, version, backend, wrap, check, secrets: [{ id, name, kind, llm, createdAt, updatedAt, lastTest, nonce, sealed }] }
 * Metadata is plain (the UI lists it while the vault is locked) but authenticated with each value.
 */
const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not base64').max(65_536);
const Box = { nonce: Base64, sealed: Base64 };

/** scrypt parameters read from a file are bounded, so a crafted file cannot ask for gigabytes. */
export const PassphraseWrap = z.object({
  kind: z.literal('passphrase'),
  kdf: z.literal('scrypt'),
  N: z.number().int().min(2 ** 14).max(2 ** 20).refine((n) => (n & (n - 1)) === 0, 'N must be a power of two'),
  r: z.number().int().min(1).max(32),
  p: z.number().int().min(1).max(4),
  salt: Base64,
  ...Box,
});
/** The data key as the OS keychain (safeStorage) sealed it; also used for `obfuscated` (basic_text). */
export const KeychainWrap = z.object({ kind: z.literal('keychain'), sealed: Base64 });
export const WrapRecord = z.discriminatedUnion('kind', [PassphraseWrap, KeychainWrap]);

export const StoredSecret = z.object({
  id: SecretId,
  name: z.string().min(1).max(128),
  kind: SecretKind,
  llm: LlmAttributes.nullable(),
  createdAt: z.string().max(64),
  updatedAt: z.string().max(64),
  lastTest: SecretTestResult.nullable(),
  ...Box,
});

export const VaultFileV1 = z
  .object({
    format: z.literal(VAULT_FORMAT),
    version: z.literal(VAULT_FORMAT_VERSION),
    /** `session` is never written. */
    backend: z.enum(['keychain', 'passphrase', 'obfuscated']),
    wrap: WrapRecord,
    check: z.object(Box),
    secrets: z.array(StoredSecret).max(2_000),
  })
  .refine((file) => new Set(file.secrets.map((s) => s.id)).size === file.secrets.length, 'two secrets share an id')
  .refine((file) => (file.backend === 'passphrase') === (file.wrap.kind === 'passphrase'), 'backend and key wrap disagree');

export type PassphraseWrap = z.infer<typeof PassphraseWrap>;
export type KeychainWrap = z.infer<typeof KeychainWrap>;
export type WrapRecord = z.infer<typeof WrapRecord>;
export type StoredSecret = z.infer<typeof StoredSecret>;
export type VaultFileV1 = z.infer<typeof VaultFileV1>;

export type VaultFileRead =
  | { kind: 'missing' }
  | { kind: 'ok'; file: VaultFileV1 }
  /** Not a vault file of any version (broken JSON, wrong shape): moved aside by the vault. */
  | { kind: 'corrupt'; detail: string }
  /** Written by a newer app: left untouched. */
  | { kind: 'newer'; version: number }
  /** Exists but cannot be read (permissions, a folder in its place): left untouched. */
  | { kind: 'unreadable'; detail: string };

export async function readVaultFile(path: string): Promise<VaultFileRead> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', detail: `${code}: ${(error as Error).message}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch {
    return { kind: 'corrupt', detail: 'it is not valid JSON' };
  }
  const head = z.object({ format: z.literal(VAULT_FORMAT), version: z.number().int() }).safeParse(raw);
  if (head.success && head.data.version > VAULT_FORMAT_VERSION) return { kind: 'newer', version: head.data.version };
  const parsed = VaultFileV1.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'corrupt', detail: `it is not a vault file this app can read (${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'})` };
  }
  return { kind: 'ok', file: parsed.data };
}

/** Writes the file atomically (0600), and keeps its folder private (0700) even if it existed wider. */
export async function writeVaultFile(path: string, file: VaultFileV1): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await keepFolderPrivate(folder);
  await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`, 0o600);
}

export function composeVaultFile(backend: VaultFileV1['backend'], wrap: WrapRecord, check: SealedBox, secrets: Iterable<StoredSecret>): VaultFileV1 {
  return { format: VAULT_FORMAT, version: VAULT_FORMAT_VERSION, backend, wrap, check, secrets: [...secrets] };
}

/** Runs a write of the vault; a failure becomes an AppError that names the file and says nothing changed. */
export async function vaultWrite(path: string, logger: Logger, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    logger.warn('vault: could not write the vault file', { file: path, code });
    throw new AppError('VAULT_NOT_SAVED', `Could not write the vault file ${path} in ${dirname(path)} (${code}: ${writeFailureWords(code)}). Nothing was changed; try again once that is fixed.`, { cause: error });
  }
}

/** Renames an unusable vault file out of the way (never deletes it); returns where it went. */
export async function moveVaultAside(path: string, now: number): Promise<string> {
  const aside = `${path}.unreadable-${now}`;
  await rename(path, aside);
  return aside;
}

async function keepFolderPrivate(folder: string): Promise<void> {
  if (process.platform === 'win32') return;
  const info = await stat(folder);
  // Only a folder we own: chmod of someone else's folder fails, and is not ours to change.
  if ((info.mode & 0o077) !== 0 && info.uid === process.getuid?.()) await chmod(folder, 0o700);
}

/** Opened non-blocking and checked on the handle: a FIFO in its place must not hang the start. */
async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw Object.assign(new Error('not a regular file'), { code: info.isDirectory() ? 'EISDIR' : 'ENOTREG' });
    if (info.size > 16 * 1024 * 1024) throw Object.assign(new Error('larger than 16 MiB'), { code: 'EFBIG' });
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
