import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real small file system for disk-pressure tests: a tmpfs of `sizeKb` mounted on a fresh folder
 * (the tests run as root; root ignores file modes, so "read-only" is a read-only remount, as a
 * read-only disk or bind mount would be). `fill()` uses up every byte, `free()` gives them back;
 * `unmount()` in afterAll.
 */
export interface SmallDisk {
  readonly dir: string;
  fill(): void;
  free(): void;
  readOnly(): void;
  writable(): void;
  unmount(): void;
}

export function canMount(): boolean {
  return process.getuid?.() === 0 && process.platform === 'linux';
}

export function mountSmallDisk(sizeKb = 64): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'agentswarm-smalldisk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0700`, 'tmpfs', dir]);
  const filler = join(dir, '.filler');
  const remount = (mode: 'ro' | 'rw') => execFileSync('mount', ['-o', `remount,${mode}`, dir]);
  return {
    dir,
    fill() {
      // Writes until ENOSPC: whatever the other files take, nothing is left after this.
      try {
        writeFileSync(filler, Buffer.alloc(sizeKb * 1024 * 2));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    readOnly() {
      remount('ro');
    },
    writable() {
      remount('rw');
    },
    unmount() {
      try {
        execFileSync('umount', [dir]);
      } finally {
        rmdirSync(dir);
      }
    },
  };
}
