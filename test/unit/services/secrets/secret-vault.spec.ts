import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VAULT_FILE, type SecretVault } from '../../../../electron/services/secrets/secret-vault';
import type { VaultFileV1 } from '../../../../electron/services/secrets/vault-file';
import { redact } from '../../../../electron/services/util/redact';
import { canary, vaultBed, type VaultBed } from './vault-fixtures';

const PASS = 'correct horse battery staple';
const llm = { baseUrl: 'https://api.example.test/v1', model: 'gpt-test' };

// scrypt is memory-hard on purpose; on the shared 2-core test machine even the low test cost takes seconds.
describe('SecretVault: passphrase and session vaults (real files, real crypto)', { timeout: 120_000 }, () => {
  let bed: VaultBed;
  beforeEach(async () => {
    bed = await vaultBed();
  });
  afterEach(async () => {
    await bed.dispose();
  });

  const vaultPath = () => join(bed.dir, VAULT_FILE);
  const readVault = async () => JSON.parse(await readFile(vaultPath(), 'utf8')) as VaultFileV1;
  const writeVault = (file: VaultFileV1) => writeFile(vaultPath(), JSON.stringify(file));

  async function passphraseVault(): Promise<{ vault: SecretVault; values: { llm: string; ssh: string } }> {
    const vault = await bed.open();
    expect(vault.state()).toMatchObject({ status: 'not-set-up', backend: null, available: ['passphrase', 'session'], keychain: null });
    await vault.setup({ backend: 'passphrase', passphrase: PASS });
    const values = { llm: canary('llm'), ssh: canary('ssh') };
    await vault.save({ id: 'openai', name: 'OpenAI', kind: 'llm', value: values.llm, llm });
    await vault.save({ name: 'GPU box password', kind: 'ssh-password', value: values.ssh, llm: null });
    return { vault, values };
  }

  it('passphrase round trip: save, reveal, restart → locked with metadata listed, unlock, reveal', async () => {
    const { vault, values } = await passphraseVault();
    expect(vault.state()).toMatchObject({ status: 'unlocked', backend: 'passphrase', protected: true, persisted: true, secretCount: 2 });
    expect(await vault.reveal('openai')).toBe(values.llm);
    expect(await vault.reveal('gpu-box-password')).toBe(values.ssh);

    const restarted = await bed.open();
    expect(restarted.state()).toMatchObject({ status: 'locked', backend: 'passphrase', secretCount: 2, problem: null });
    expect(restarted.list().map((m) => [m.id, m.kind, m.name, m.llm])).toEqual([
      ['gpu-box-password', 'ssh-password', 'GPU box password', null],
      ['openai', 'llm', 'OpenAI', llm],
    ]);
    await expect(restarted.reveal('openai')).rejects.toMatchObject({ code: 'VAULT_LOCKED' });
    await expect(restarted.save({ name: 'x', kind: 'env', value: 'value-123', llm: null })).rejects.toMatchObject({ code: 'VAULT_LOCKED' });
    await restarted.unlock(PASS);
    expect(await restarted.reveal('openai')).toBe(values.llm);
    // The file holds no value, and the metadata it shows is the plain part.
    const text = await readFile(vaultPath(), 'utf8');
    for (const value of Object.values(values)) expect(text).not.toContain(value);
    expect(text).toContain('"name": "OpenAI"');
    expect(bed.logger.lines.join('\n')).not.toContain(values.llm);
  });

  it('writes the file 0600 in a 0700 folder, even when the folder was wider', async () => {
    await chmod(bed.dir, 0o755);
    await passphraseVault();
    expect((await stat(vaultPath())).mode & 0o777).toBe(0o600);
    expect((await stat(bed.dir)).mode & 0o777).toBe(0o700);
    // No temp file left behind by the atomic writes.
    expect(await readdir(bed.dir)).toEqual([VAULT_FILE]);
  });

  it('a wrong passphrase is VAULT_WRONG_PASSPHRASE and destroys nothing: same bytes, still locked, right one still works', async () => {
    const { values } = await passphraseVault();
    const before = await readFile(vaultPath());
    const vault = await bed.open();
    await expect(vault.unlock('wrong horse battery staple')).rejects.toMatchObject({ code: 'VAULT_WRONG_PASSPHRASE' });
    await expect(vault.setup({ backend: 'passphrase', passphrase: 'a new passphrase', currentPassphrase: 'wrong one' })).rejects.toMatchObject({
      code: 'VAULT_WRONG_PASSPHRASE',
    });
    await expect(vault.setup({ backend: 'session' })).rejects.toMatchObject({ code: 'VAULT_LOCKED' });
    expect((await readFile(vaultPath())).equals(before)).toBe(true);
    expect(vault.state()).toMatchObject({ status: 'locked', problem: null, movedAside: null });
    await vault.unlock(PASS);
    expect(await vault.reveal('openai')).toBe(values.llm);
  });

  it('session only: nothing is written, and a restart has nothing', async () => {
    const vault = await bed.open();
    await vault.setup({ backend: 'session' });
    const value = canary('session');
    const meta = await vault.save({ name: 'SwanLab', kind: 'swanlab', value, llm: null });
    expect(meta).toMatchObject({ id: 'swanlab', backend: 'session', protected: false });
    expect(vault.state()).toMatchObject({ status: 'unlocked', backend: 'session', protected: false, persisted: false });
    expect(await vault.reveal('swanlab')).toBe(value);
    expect(await readdir(bed.dir)).toEqual([]);
    const restarted = await bed.open();
    expect(restarted.state()).toMatchObject({ status: 'not-set-up', secretCount: 0 });
    await expect(restarted.reveal('swanlab')).rejects.toMatchObject({ code: 'VAULT_NOT_SET_UP' });
  });

  it('re-wrap session → passphrase keeps every secret, and then survives a restart', async () => {
    const vault = await bed.open();
    await vault.setup({ backend: 'session' });
    const a = canary('a');
    const b = canary('b');
    await vault.save({ id: 'a', name: 'A', kind: 'env', value: a, llm: null });
    await vault.save({ id: 'b', name: 'B', kind: 'llm', value: b, llm });
    await vault.setup({ backend: 'passphrase', passphrase: PASS });
    expect(await vault.reveal('a')).toBe(a);
    const restarted = await bed.open();
    await restarted.unlock(PASS);
    expect(await restarted.reveal('a')).toBe(a);
    expect(await restarted.reveal('b')).toBe(b);
    expect(restarted.meta('b')?.llm).toEqual(llm);
  });

  it('changing the passphrase keeps every secret; the old passphrase no longer opens it', async () => {
    const { values } = await passphraseVault();
    const locked = await bed.open();
    await locked.setup({ backend: 'passphrase', passphrase: 'the new passphrase', currentPassphrase: PASS });
    expect(await locked.reveal('openai')).toBe(values.llm);
    const restarted = await bed.open();
    await expect(restarted.unlock(PASS)).rejects.toMatchObject({ code: 'VAULT_WRONG_PASSPHRASE' });
    await restarted.unlock('the new passphrase');
    expect(await restarted.reveal('gpu-box-password')).toBe(values.ssh);
  });

  it('rejects tampered entries: ciphertext, nonce, swapped ids, changed kind or endpoint; the rest stay usable', async () => {
    const { values } = await passphraseVault();
    await (await bed.open()).unlock(PASS);
    const vault = await bed.open();
    await vault.unlock(PASS);
    await vault.save({ id: 'c', name: 'C', kind: 'env', value: canary('c'), llm: null });
    await vault.save({ id: 'd', name: 'D', kind: 'env', value: canary('d'), llm: null });
    const file = await readVault();
    const byId = (id: string) => file.secrets.find((s) => s.id === id) as VaultFileV1['secrets'][number];
    const flipped = Buffer.from(byId('openai').sealed, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    byId('openai').sealed = flipped.toString('base64');
    byId('gpu-box-password').kind = 'llm';
    byId('gpu-box-password').llm = llm;
    // Swap two entries' ids (and names, as a forger would): each now claims the other's identity.
    const [c, d] = [byId('c'), byId('d')];
    [c.id, d.id] = [d.id, c.id];
    await writeVault(file);

    const tampered = await bed.open();
    expect(tampered.list().map((m) => m.id).sort()).toEqual(['c', 'd', 'gpu-box-password', 'openai']);
    await tampered.unlock(PASS);
    expect(tampered.list()).toEqual([]);
    expect(tampered.state().problem).toMatch(/4 secrets failed the integrity check.*openai/);
    await expect(tampered.reveal('openai')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND', message: expect.stringMatching(/integrity/) });
    await expect(tampered.reveal('c')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
    // A broken secret is repaired by saving a new value; nothing of the old one is shown.
    await tampered.save({ id: 'openai', name: 'OpenAI', kind: 'llm', value: 'replacement-value', llm });
    expect(await tampered.reveal('openai')).toBe('replacement-value');
    expect(JSON.stringify(tampered.state())).not.toContain(values.llm);

    // A changed nonce alone is rejected too.
    const again = await readVault();
    const entry = again.secrets.find((s) => s.id === 'openai') as VaultFileV1['secrets'][number];
    const nonce = Buffer.from(entry.nonce, 'base64');
    nonce[5] = (nonce[5] ?? 0) ^ 1;
    entry.nonce = nonce.toString('base64');
    await writeVault(again);
    const reopened = await bed.open();
    await reopened.unlock(PASS);
    await expect(reopened.reveal('openai')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
  });

  it('a corrupt vault file is moved aside whole, with a clear message; settings.json is untouched and set-up starts fresh', async () => {
    const settings = '{ "language": "zh-CN" }\n';
    await writeFile(join(bed.dir, 'settings.json'), settings);
    await writeFile(vaultPath(), '{"format":"agentswarm-vault","version":1,"backend":"passph');
    const vault = await bed.open();
    const state = vault.state();
    expect(state).toMatchObject({ status: 'not-set-up', secretCount: 0 });
    expect(state.movedAside).toMatch(/vault\.json\.unreadable-\d+$/);
    expect(state.problem).toMatch(/could not be read \(it is not valid JSON\) and was moved to .*Your other settings are intact/);
    expect(await readFile(state.movedAside as string, 'utf8')).toBe('{"format":"agentswarm-vault","version":1,"backend":"passph');
    expect(await readFile(join(bed.dir, 'settings.json'), 'utf8')).toBe(settings);
    await vault.setup({ backend: 'passphrase', passphrase: PASS });
    expect(vault.state()).toMatchObject({ status: 'unlocked', movedAside: state.movedAside });
  });

  it('a file of a wrong shape is moved aside too; one from a newer version is left untouched', async () => {
    await writeFile(vaultPath(), JSON.stringify({ format: 'agentswarm-vault', version: 1, backend: 'passphrase', secrets: 'no' }));
    expect((await bed.open()).state().movedAside).not.toBeNull();
    const newer = JSON.stringify({ format: 'agentswarm-vault', version: 2, anything: true });
    await writeFile(vaultPath(), newer);
    const vault = await bed.open();
    expect(vault.state()).toMatchObject({ status: 'locked', movedAside: null, problem: expect.stringMatching(/newer version of the app \(format 2\)/) });
    await expect(vault.unlock(PASS)).rejects.toMatchObject({ code: 'VAULT_LOCKED' });
    expect(await readFile(vaultPath(), 'utf8')).toBe(newer);
  });

  it('known values are given to the redactor while unlocked and forgotten on lock', async () => {
    const { vault, values } = await passphraseVault();
    expect(redact(`header x: ${values.ssh}`)).not.toContain(values.ssh);
    await vault.lock();
    expect(vault.state().status).toBe('locked');
    expect(redact(`header x: ${values.ssh}`)).toContain(values.ssh);
    await vault.unlock(PASS);
    // Unlocking opens (checks) every entry, so every value is known again before any use.
    expect(redact(values.ssh)).not.toContain(values.ssh);
  });

  it('edits keep the value, replaces drop the last test, deletes forget; usedBy comes from the usage sources', async () => {
    const { vault, values } = await passphraseVault();
    vault.addUsageSource(() => [{ secretId: 'openai', label: 'dry run' }]);
    vault.addUsageSource(() => {
      throw new Error('a broken source must not break the list');
    });
    const tested = await vault.recordTest('openai', { ok: true, at: new Date().toISOString(), status: 200, latencyMs: 12, method: 'models', message: '3 models' });
    expect(tested).toMatchObject({ usedBy: ['dry run'], lastTest: { ok: true, status: 200 } });
    const renamed = await vault.save({ id: 'openai', name: 'OpenAI (work)', kind: 'llm', llm });
    expect(renamed).toMatchObject({ name: 'OpenAI (work)', lastTest: { ok: true } });
    expect(await vault.reveal('openai')).toBe(values.llm);
    const replaced = await vault.save({ id: 'openai', name: 'OpenAI (work)', kind: 'llm', llm, value: 'new-value-123' });
    expect(replaced.lastTest).toBeNull();
    expect(redact(values.llm)).toContain(values.llm);
    await vault.remove('gpu-box-password');
    await expect(vault.reveal('gpu-box-password')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
    expect(redact(values.ssh)).toContain(values.ssh);
    const restarted = await bed.open();
    expect(restarted.list().map((m) => m.id)).toEqual(['openai']);
    await expect(vault.save({ name: 'LLM without endpoint', kind: 'llm', value: 'v-123456', llm: null })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(vault.save({ id: 'nope', name: 'x', kind: 'env', llm: null })).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
  });
});
