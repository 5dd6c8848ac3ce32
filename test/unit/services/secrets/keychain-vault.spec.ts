import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VAULT_FILE } from '../../../../electron/services/secrets/secret-vault';
import { KeychainDouble, canary, vaultBed, type VaultBed } from './vault-fixtures';

const PASS = 'correct horse battery staple';

// scrypt is memory-hard on purpose; on the shared 2-core test machine even the low test cost takes seconds.
describe('SecretVault with the OS keychain (KeychainPort TEST DOUBLE that really encrypts)', { timeout: 120_000 }, () => {
  let bed: VaultBed;
  beforeEach(async () => {
    bed = await vaultBed();
  });
  afterEach(async () => {
    await bed.dispose();
  });
  const vaultPath = () => join(bed.dir, VAULT_FILE);

  it('keychain round trip: set up, save, restart → unlocked by the keychain alone', async () => {
    const keychain = new KeychainDouble();
    const vault = await bed.open(keychain);
    expect(vault.state()).toMatchObject({ status: 'not-set-up', available: ['keychain', 'passphrase', 'session'], keychain: { backend: 'gnome_libsecret' } });
    await vault.setup({ backend: 'keychain' });
    const value = canary('llm');
    await vault.save({ id: 'k', name: 'Key', kind: 'llm', value, llm: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm' } });
    const restarted = await bed.open(keychain);
    expect(restarted.state()).toMatchObject({ status: 'unlocked', backend: 'keychain', protected: true, persisted: true, problem: null });
    expect(restarted.meta('k')).toMatchObject({ backend: 'keychain', protected: true });
    expect(await restarted.reveal('k')).toBe(value);
    expect(await readFile(vaultPath(), 'utf8')).not.toContain(value);
  });

  it('a keychain that cannot unwrap (keyring reset) leaves the vault locked with a way forward; set-up keeps the old file aside', async () => {
    const keychain = new KeychainDouble();
    await (await bed.open(keychain)).setup({ backend: 'keychain' });
    const value = canary('ssh');
    const first = await bed.open(keychain);
    await first.save({ id: 's', name: 'SSH', kind: 'ssh-password', value, llm: null });
    const before = await readFile(vaultPath());
    keychain.resetKeyring();

    const vault = await bed.open(keychain);
    const state = vault.state();
    expect(state).toMatchObject({ status: 'locked', backend: 'keychain', secretCount: 1 });
    expect(state.problem).toMatch(/keychain could not unwrap it.*set the vault up again: the current file is kept aside/);
    const wrapped = (JSON.parse(before.toString()) as { wrap: { sealed: string } }).wrap.sealed;
    expect(JSON.stringify(state)).not.toContain(wrapped);
    expect(vault.list().map((m) => m.name)).toEqual(['SSH']);
    await expect(vault.reveal('s')).rejects.toMatchObject({ code: 'VAULT_LOCKED', message: state.problem });
    await expect(vault.unlock('ignored for a keychain vault')).rejects.toMatchObject({ code: 'VAULT_LOCKED' });
    expect((await readFile(vaultPath())).equals(before)).toBe(true);

    await vault.setup({ backend: 'keychain' });
    const after = vault.state();
    expect(after).toMatchObject({ status: 'unlocked', secretCount: 0 });
    expect((await readFile(after.movedAside as string)).equals(before)).toBe(true);
  });

  it('the browser host (no keychain) shows a keychain vault as locked and explains why', async () => {
    await (await bed.open(new KeychainDouble())).setup({ backend: 'keychain' });
    const vault = await bed.open();
    expect(vault.state()).toMatchObject({ status: 'locked', available: ['passphrase', 'session'], problem: expect.stringMatching(/this host cannot reach/) });
    await expect(vault.setup({ backend: 'keychain' })).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
    await expect(vault.setPasswordStore('gnome-libsecret')).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
  });

  it('re-wrap passphrase → keychain keeps every secret', async () => {
    const keychain = new KeychainDouble();
    const vault = await bed.open(keychain);
    await vault.setup({ backend: 'passphrase', passphrase: PASS });
    const values = [canary('a'), canary('b'), canary('c')];
    for (const [i, value] of values.entries()) await vault.save({ id: `s${i}`, name: `S${i}`, kind: 'env', value, llm: null });
    const locked = await bed.open(keychain);
    await locked.setup({ backend: 'keychain', currentPassphrase: PASS });
    const restarted = await bed.open(keychain);
    expect(restarted.state()).toMatchObject({ status: 'unlocked', backend: 'keychain', secretCount: 3 });
    for (const [i, value] of values.entries()) expect(await restarted.reveal(`s${i}`)).toBe(value);
  });

  describe('Linux without a keyring (basic_text)', () => {
    it('never persists through the keychain silently: keychain is refused, nothing is written or encrypted', async () => {
      const keychain = KeychainDouble.basicText();
      const vault = await bed.open(keychain);
      expect(vault.state()).toMatchObject({ status: 'not-set-up', available: ['passphrase', 'session', 'obfuscated'], keychain: { backend: 'basic_text', weak: true } });
      await expect(vault.setup({ backend: 'keychain' })).rejects.toMatchObject({
        code: 'KEYCHAIN_UNAVAILABLE',
        message: expect.stringMatching(/on i3 only obfuscates secrets \(basic_text\).*--password-store=gnome-libsecret/),
      });
      await vault.setup({ backend: 'session' });
      await vault.save({ name: 'Session key', kind: 'env', value: canary(), llm: null });
      expect(await readdir(bed.dir)).toEqual([]);
      expect(keychain.encryptCalls).toBe(0);
      expect(keychain.obfuscationAllowed).toBe(false);
    });

    it('"obfuscation only" is an explicit choice: it turns obfuscation on, persists, and is badged not protected', async () => {
      const keychain = KeychainDouble.basicText();
      const vault = await bed.open(keychain);
      await vault.setup({ backend: 'obfuscated' });
      expect(keychain.obfuscationAllowed).toBe(true);
      const value = canary('obf');
      const meta = await vault.save({ name: 'Weak', kind: 'swanlab', value, llm: null });
      expect(meta).toMatchObject({ backend: 'obfuscated', protected: false });
      expect(vault.state()).toMatchObject({ backend: 'obfuscated', protected: false, persisted: true });
      const restarted = await bed.open(keychain);
      expect(restarted.state()).toMatchObject({ status: 'unlocked', backend: 'obfuscated', protected: false });
      expect(await restarted.reveal(meta.id)).toBe(value);
    });

    it('"obfuscation only" is not offered where the keychain protects; the password-store choice goes to the shell', async () => {
      const keychain = new KeychainDouble();
      const vault = await bed.open(keychain);
      await expect(vault.setup({ backend: 'obfuscated' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(keychain.obfuscationAllowed).toBe(false);
      await vault.setPasswordStore('kwallet6');
      expect(keychain.passwordStore).toBe('kwallet6');
    });

    it('a file edited from keychain to obfuscated does not open (the backend is bound by the key check)', async () => {
      // Set up with a strong keychain; then the same keyring reports basic_text and the file is edited.
      const strong = new KeychainDouble();
      await (await bed.open(strong)).setup({ backend: 'keychain' });
      const text = await readFile(vaultPath(), 'utf8');
      await writeFile(vaultPath(), text.replace('"backend": "keychain"', '"backend": "obfuscated"'));
      const keychain = strong.sameKeyring({ backend: 'basic_text', weak: true });
      const vault = await bed.open(keychain);
      expect(vault.state()).toMatchObject({ status: 'locked', backend: 'obfuscated' });
    });
  });
});
