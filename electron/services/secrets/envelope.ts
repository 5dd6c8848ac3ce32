import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretKind, SecretTestResult, LlmAttributes, VaultBackend } from '../../shared/schemas-vault';

/**
 * Envelope encryption for the vault: one random 256-bit data key seals every secret with
 * AES-256-GCM (a fresh 96-bit nonce each time); the data key itself is wrapped by a key wrapper
 * (keychain, passphrase, session). Bumping the format version changes every AAD below, so a file
 * of another version can never be opened by mistake — only by a migration that knows it.
 */
export const VAULT_FORMAT = 'agentswarm-vault';
export const VAULT_FORMAT_VERSION = 1;
export const DATA_KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value as stored: base64 nonce, base64 ciphertext with the 16-byte GCM tag appended. */
export interface SealedBox {
  nonce: string;
  sealed: string;
}

/** The box does not open: wrong key, or the nonce, ciphertext, tag or authenticated data were changed. */
export class SealBroken extends Error {
  constructor() {
    super('sealed data failed its integrity check');
    this.name = 'SealBroken';
  }
}

export function newDataKey(): Buffer {
  return randomBytes(DATA_KEY_BYTES);
}

export function seal(key: Buffer, plain: Buffer, aad: Buffer): SealedBox {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return { nonce: nonce.toString('base64'), sealed: body.toString('base64') };
}

/** Opens a box sealed by `seal` with the same key and AAD; throws SealBroken otherwise. */
export function open(key: Buffer, box: SealedBox, aad: Buffer): Buffer {
  const nonce = Buffer.from(box.nonce, 'base64');
  const body = Buffer.from(box.sealed, 'base64');
  if (key.length !== DATA_KEY_BYTES || nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) throw new SealBroken();
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SealBroken();
  }
}

/**
 * Authenticated data: a JSON array in a fixed order (arrays, not objects, so the bytes are
 * canonical), always starting with the format and its version.
 */
export function aadOf(...parts: unknown[]): Buffer {
  return Buffer.from(JSON.stringify([VAULT_FORMAT, VAULT_FORMAT_VERSION, ...parts]), 'utf8');
}

/** The metadata of a secret that is stored beside its sealed value and bound to it. */
export interface BoundMeta {
  id: string;
  kind: SecretKind;
  name: string;
  llm: LlmAttributes | null;
  createdAt: string;
  updatedAt: string;
  lastTest: SecretTestResult | null;
}

/**
 * Everything stored about a secret is authenticated with its value: swapping two entries' ids,
 * changing a kind (an SSH password offered as an LLM key), a name or an LLM base URL (which would
 * send the key elsewhere) makes the value fail to open. Changing metadata therefore re-seals.
 */
export function secretAad(meta: BoundMeta): Buffer {
  const llm = meta.llm ? [meta.llm.baseUrl, meta.llm.model] : null;
  const test = meta.lastTest
    ? [meta.lastTest.ok, meta.lastTest.at, meta.lastTest.status, meta.lastTest.latencyMs, meta.lastTest.method, meta.lastTest.message]
    : null;
  return aadOf('secret', meta.id, meta.kind, meta.name, llm, meta.createdAt, meta.updatedAt, test);
}

const KEY_CHECK_TEXT = Buffer.from('agentswarm vault key check', 'utf8');

/**
 * A known text sealed with the data key: proves an unwrapped key is the right one (a keychain
 * that was reset may hand back other bytes without an error), and binds the file's backend
 * (a file edited from `keychain` to `obfuscated` no longer opens).
 */
export function sealKeyCheck(dataKey: Buffer, backend: VaultBackend): SealedBox {
  return seal(dataKey, KEY_CHECK_TEXT, aadOf('key-check', backend));
}

export function keyCheckHolds(dataKey: Buffer, backend: VaultBackend, box: SealedBox): boolean {
  try {
    return open(dataKey, box, aadOf('key-check', backend)).equals(KEY_CHECK_TEXT);
  } catch {
    return false;
  }
}
