import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { ShellStore } from '../../../electron/main/shell-store';

/**
 * A BootDeps.openShellStore for tests: a real electron-store file in a fresh temp folder, removed
 * when the test ends, so boot() never writes into the stub's (or a real) userData path.
 */
export function tempShellStore(): () => ShellStore {
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentswarm-shell-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    return ShellStore.open({ cwd: dir });
  };
}
