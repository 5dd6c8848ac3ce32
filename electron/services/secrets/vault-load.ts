import type { Logger } from '../util/logger';
import { moveVaultAside, readVaultFile, type VaultFileV1 } from './vault-file';
import { corruptProblem, newerProblem, unreadableProblem } from './vault-messages';

export type LoadedVault =
  | { kind: 'missing' }
  | { kind: 'ok'; file: VaultFileV1 }
  /** Corrupt: moved aside whole; the vault starts not set up. */
  | { kind: 'moved-aside'; aside: string; problem: string }
  /** Newer or unreadable: left untouched; the vault stays locked until the user acts. */
  | { kind: 'untouched'; why: 'newer' | 'unreadable'; problem: string };

/** Reads the vault file and decides what a start does with it. Never deletes or rewrites it. */
export async function loadVaultFile(path: string, now: number, logger: Logger): Promise<LoadedVault> {
  const read = await readVaultFile(path);
  if (read.kind === 'missing' || read.kind === 'ok') return read;
  if (read.kind === 'newer') {
    const problem = newerProblem(path, read.version);
    logger.warn('vault file left untouched', { file: path, problem });
    return { kind: 'untouched', why: 'newer', problem };
  }
  let detail = read.detail;
  if (read.kind === 'corrupt') {
    try {
      const aside = await moveVaultAside(path, now);
      logger.warn('vault file unreadable, moved aside', { file: path, movedTo: aside, detail });
      return { kind: 'moved-aside', aside, problem: corruptProblem(detail, aside) };
    } catch (error) {
      detail += `; moving it aside failed (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
  const problem = unreadableProblem(path, detail);
  logger.warn('vault file left untouched', { file: path, problem });
  return { kind: 'untouched', why: 'unreadable', problem };
}
