import { rm } from 'node:fs/promises';
import type { VaultBackend } from '../../shared/schemas-vault';
import type { Logger } from '../util/logger';
import { newDataKey, sealKeyCheck, type BoundMeta, type SealedBox } from './envelope';
import type { KeychainPort } from './keychain-port';
import { sealEntry } from './vault-entries';
import { composeVaultFile, moveVaultAside, vaultWrite, writeVaultFile, type StoredSecret, type WrapRecord } from './vault-file';
import { wrapperFor } from './vault-keys';
import type { ScryptParams } from './wrap-passphrase';

/*
 * A set-up moves the vault to a backend (or re-keys it in place): a fresh data key, every kept
 * secret sealed again under it, the key wrapped for the new backend, then the file on disk
 * replaced. These two steps live here, apart from `SecretVault`, because they touch neither its
 * memory nor its queue: the vault calls them inside its queue and adopts the result only once the
 * disk has it.
 */

/** A set-up's vault before it becomes current: its key, the wrapped key (null for session), its entries. */
export interface NewVault {
  key: Buffer;
  wrap: WrapRecord | null;
  check: SealedBox;
  entries: Map<string, StoredSecret>;
}

/** Seals `values` under a fresh data key and wraps that key for `backend`. Nothing touches disk. */
export async function sealNewVault(
  backend: VaultBackend,
  passphrase: string,
  values: ReadonlyMap<string, { meta: BoundMeta; value: string }>,
  keychain: KeychainPort | undefined,
  scrypt: ScryptParams | undefined,
): Promise<NewVault> {
  const key = newDataKey();
  const wrapper = wrapperFor(backend, passphrase, keychain, scrypt);
  const entries = new Map<string, StoredSecret>();
  for (const [id, { meta, value }] of values) entries.set(id, sealEntry(key, meta, value));
  const check = sealKeyCheck(key, backend);
  const wrap = await wrapper.wrap(key);
  return { key, wrap, check, entries };
}

export interface VaultFileSwap {
  backend: VaultBackend;
  vault: NewVault;
  /** The current file could not be opened: keep it aside rather than overwrite it. */
  setAside: boolean;
  /** A file of a persisted backend exists now. */
  hadFile: boolean;
  now: () => number;
}

/**
 * Puts a newly set-up vault on disk in one `vaultWrite`: the old file set aside first when asked,
 * then the new file (or, moving to session only, the old file removed). Returns where the old file
 * was set aside, if it was.
 */
export async function replaceVaultFile(path: string, logger: Logger, swap: VaultFileSwap): Promise<string | null> {
  const { backend, vault, setAside, hadFile } = swap;
  let aside: string | null = null;
  await vaultWrite(path, logger, async () => {
    if (setAside && hadFile) aside = await moveVaultAside(path, swap.now());
    if (vault.wrap && backend !== 'session') await writeVaultFile(path, composeVaultFile(backend, vault.wrap, vault.check, vault.entries.values()));
    // Moving to session only: the old file would keep the secrets on disk after the app quits.
    else if (hadFile && !setAside) await rm(path, { force: true });
  });
  return aside;
}
