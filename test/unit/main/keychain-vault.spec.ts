import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { app, resetElectronStub, safeStorage } from '../../stubs/electron';
import { createKeychain } from '../../../electron/main/keychain';
import { ShellStore } from '../../../electron/main/shell-store';
import { SecretVault } from '../../../electron/services/secrets/secret-vault';

/**
 * The real vault (services/secrets) over the real glue (main/keychain.ts) over the safeStorage
 * stand-in: the Linux `basic_text` path end to end. Nothing is written until the user chooses.
 */
const CANARY = 'canary-keychain-vault-2c9e51';
let dir: string;
beforeEach(async () => {
  resetElectronStub();
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-keychain-vault-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function launch(): Promise<{ vault: SecretVault; shell: ShellStore }> {
  await app.whenReady();
  const shell = ShellStore.open({ cwd: join(dir, 'shell') });
  const keychain = createKeychain({ shell, passwordStore: null, platform: 'linux', env: { XDG_CURRENT_DESKTOP: 'i3' } });
  const vault = new SecretVault({ dataDir: join(dir, 'data'), host: 'electron', keychain, logger: { warn: () => undefined } });
  await vault.load();
  return { vault, shell };
}

describe('basic_text through the real vault and the safeStorage glue', () => {
  it('the keychain is not offered, a keychain set-up is refused and writes nothing; obfuscation works only when chosen, and again at the next launch', async () => {
    safeStorage.setBackend('basic_text');
    const first = await launch();
    const state = first.vault.state();
    expect(state.keychain).toMatchObject({ backend: 'basic_text', weak: true, desktop: 'i3', suggestedPasswordStores: ['gnome-libsecret'] });
    expect(state.available).not.toContain('keychain');
    await expect(first.vault.setup({ backend: 'keychain' })).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
    expect(safeStorage.encryptCalls).toBe(0);
    expect(safeStorage.plainTextCalls).toEqual([]);
    expect(await readdir(join(dir, 'data')).catch(() => [])).not.toContain('vault.json');

    // The explicit choice: written, badged not protected, remembered for the next launch.
    await first.vault.setup({ backend: 'obfuscated' });
    expect(first.vault.state()).toMatchObject({ backend: 'obfuscated', protected: false, persisted: true });
    // The vault asks before each wrap; only ever "on", and only after the choice.
    expect(new Set(safeStorage.plainTextCalls)).toEqual(new Set([true]));
    expect(first.shell.get().allowObfuscation).toBe(true);
    const saved = await first.vault.save({ name: 'SwanLab', kind: 'swanlab', value: CANARY, llm: null });
    expect(await readFile(join(dir, 'data', 'vault.json'), 'utf8')).not.toContain(CANARY);

    // Next launch: a fresh process; the glue re-applies the choice before the vault opens.
    resetElectronStub();
    safeStorage.setBackend('basic_text');
    const second = await launch();
    expect(new Set(safeStorage.plainTextCalls)).toEqual(new Set([true]));
    expect(second.vault.state()).toMatchObject({ status: 'unlocked', backend: 'obfuscated' });
    expect(await second.vault.reveal(saved.id)).toBe(CANARY);
  });
});
