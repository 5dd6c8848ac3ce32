import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Writes `data` so that readers see either the old or the new file, never half of one: write a
 * sibling temp file, fsync it, then rename over the target (atomic on POSIX and NTFS). On any
 * failure (a full disk fails the write or the fsync, not the open) the temp file is removed: a
 * disk that is full must not be left fuller with empty `*.tmp` files.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'w', mode);
  try {
    try {
      // Strings are written as UTF-8; bytes as they are (known_hosts edits keep foreign bytes intact).
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Whether a file can be written in `dir` now, found by writing one (a read-only mount, a full disk
 * or a folder without write permission all pass an access() check for root, or lie on network
 * file systems). Returns null when it can, else the errno code of the failure.
 */
export async function probeWritable(dir: string): Promise<string | null> {
  const probe = join(dir, `.write-probe-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFileAtomic(probe, 'probe\n');
    await rm(probe, { force: true });
    return null;
  } catch (error) {
    await rm(probe, { force: true }).catch(() => undefined);
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}

/** A failed write's cause in words, for messages that name the folder and what to do. */
export function writeFailureWords(code: string): string {
  switch (code) {
    case 'ENOSPC':
      return 'the disk is full: free some space';
    case 'EDQUOT':
      return 'the disk quota is used up: free some space';
    case 'EROFS':
      return 'the folder is on a read-only file system: make it writable or choose another data folder';
    case 'EACCES':
    case 'EPERM':
      return 'no permission to write there: make the folder writable for this user';
    case 'ENOTDIR':
      return 'a part of the folder path is a file, not a folder';
    case 'EISDIR':
      return 'a folder is in the place of the file';
    default:
      return 'the write failed: check that the folder exists and is writable';
  }
}
