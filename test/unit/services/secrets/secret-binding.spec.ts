import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkServerSecretKinds, kindScopedVault, requireLlmFor, SSH_KINDS } from '../../../../electron/services/secrets/secret-binding';
import type { SecretVault } from '../../../../electron/services/secrets/secret-vault';
import { endpointOrigin } from '../../../../electron/shared/schemas-vault';
import { canary, vaultBed, type VaultBed } from './vault-fixtures';

const A = { baseUrl: 'https://a.example.test/v1', model: 'm' };

describe('a stored key stays bound to its kind and its endpoint (real vault, session backend)', () => {
  let bed: VaultBed;
  let vault: SecretVault;
  let key: string;
  beforeEach(async () => {
    bed = await vaultBed();
    vault = await bed.open();
    await vault.setup({ backend: 'session' });
    key = canary('bound');
    await vault.save({ id: 'llm', name: 'Endpoint A', kind: 'llm', value: key, llm: A });
    await vault.recordTest('llm', { ok: true, at: '2026-12-05T00:00:00.000Z', status: 200, latencyMs: 5, method: 'models', message: '200 OK' });
  });
  afterEach(async () => {
    await bed.dispose();
  });

  it('origins: scheme, host and port; the default port is the same endpoint', () => {
    expect(endpointOrigin('https://a.example.test:443/v1')).toBe('https://a.example.test');
    expect(endpointOrigin('http://a.example.test/v1')).toBe('http://a.example.test');
    expect(endpointOrigin('https://a.example.test:8443/v1')).toBe('https://a.example.test:8443');
    expect(endpointOrigin('not a url')).toBeNull();
  });

  it.each([
    ['another host', 'https://b.example.test/v1', 'https://b.example.test'],
    ['another port', 'https://a.example.test:8443/v1', 'https://a.example.test:8443'],
    ['another scheme', 'http://a.example.test/v1', 'http://a.example.test'],
  ])('a new base URL on %s without the key typed again is refused, naming both origins', async (_what, baseUrl, origin) => {
    await expect(vault.save({ id: 'llm', name: 'Endpoint A', kind: 'llm', llm: { baseUrl, model: 'm' } })).rejects.toMatchObject({
      code: 'SECRET_ENDPOINT_MISMATCH',
      message: `The key "Endpoint A" was saved for https://a.example.test, and the new base URL is at ${origin}: nothing was saved. Type the key for the new endpoint, or confirm that the same key may be used at ${origin}.`,
    });
    expect(vault.meta('llm')?.llm).toEqual(A);
    // A confirmation must name the new origin itself.
    await expect(vault.save({ id: 'llm', name: 'Endpoint A', kind: 'llm', llm: { baseUrl, model: 'm' }, reuseKeyAt: 'https://a.example.test' })).rejects.toMatchObject({ code: 'SECRET_ENDPOINT_MISMATCH' });
  });

  it('moves with the confirmation for that origin, or with the key typed again; the old test result is dropped', async () => {
    const moved = await vault.save({ id: 'llm', name: 'Endpoint A', kind: 'llm', llm: { baseUrl: 'https://b.example.test/v1', model: 'm' }, reuseKeyAt: 'https://b.example.test' });
    expect(moved).toMatchObject({ llm: { baseUrl: 'https://b.example.test/v1' }, lastTest: null });
    expect(await vault.reveal('llm')).toBe(key);
    const typed = canary('typed');
    await vault.save({ id: 'llm', name: 'Endpoint A', kind: 'llm', value: typed, llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } });
    expect(await vault.reveal('llm')).toBe(typed);
  });

  it('the same origin with another path, model or name is an ordinary edit', async () => {
    const edited = await vault.save({ id: 'llm', name: 'Renamed', kind: 'llm', llm: { baseUrl: 'https://a.example.test:443/openai/v1', model: 'm2' } });
    expect(edited).toMatchObject({ name: 'Renamed', llm: { model: 'm2' } });
    expect(await vault.reveal('llm')).toBe(key);
  });

  it('a kind change needs the value typed again (an LLM key never becomes an SSH password by an edit)', async () => {
    await expect(vault.save({ id: 'llm', name: 'Endpoint A', kind: 'ssh-password', llm: null })).rejects.toMatchObject({
      code: 'SECRET_WRONG_KIND',
      message: expect.stringContaining('"Endpoint A" was saved as an LLM endpoint key; to make it an SSH password, type the value again'),
    });
    await vault.save({ id: 'pw', name: 'Box', kind: 'ssh-password', value: canary('pw'), llm: null });
    await expect(vault.save({ id: 'pw', name: 'Box', kind: 'llm', llm: A })).rejects.toMatchObject({ code: 'SECRET_WRONG_KIND' });
    expect(vault.meta('pw')?.kind).toBe('ssh-password');
  });

  it('requireLlmFor: only an LLM key, only for its own origin', async () => {
    await vault.save({ id: 'pw', name: 'Box', kind: 'ssh-password', value: canary('pw'), llm: null });
    expect(requireLlmFor(vault.meta('llm')!, 'https://a.example.test/other', 'The dry run')).toBe('https://a.example.test');
    expect(() => requireLlmFor(vault.meta('llm')!, 'http://127.0.0.1:9/v1', 'The dry run')).toThrow(
      'The dry run would send the key "Endpoint A" to http://127.0.0.1:9, but it was saved for https://a.example.test; it was not sent.',
    );
    expect(() => requireLlmFor(vault.meta('pw')!, 'https://a.example.test/v1', 'The dry run')).toThrow('The dry run takes an LLM endpoint key, and "Box" is an SSH password: it was not used.');
  });

  it('the SSH servers see a vault that reveals SSH kinds only, and refuse other kinds at save', async () => {
    const pw = canary('pw');
    await vault.save({ id: 'pw', name: 'Box', kind: 'ssh-password', value: pw, llm: null });
    await vault.save({ id: 'pp', name: 'Key pp', kind: 'ssh-passphrase', value: canary('pp'), llm: null });
    const scoped = kindScopedVault(vault, SSH_KINDS, 'An SSH login');
    expect(await scoped.reveal('pw')).toBe(pw);
    await expect(scoped.reveal('llm')).rejects.toMatchObject({ code: 'SECRET_WRONG_KIND', message: expect.stringContaining('An SSH login takes an SSH password or an SSH key passphrase, and "Endpoint A" is an LLM endpoint key') });
    expect(() => checkServerSecretKinds(vault, { label: 'gpu', passwordSecretId: 'pw', passphraseSecretId: 'pp' })).not.toThrow();
    expect(() => checkServerSecretKinds(vault, { label: 'gpu', passwordSecretId: 'llm' })).toThrow("Server gpu's password takes an SSH password");
    expect(() => checkServerSecretKinds(vault, { label: 'gpu', passphraseSecretId: 'pw' })).toThrow("Server gpu's key passphrase takes an SSH key passphrase");
    // Not in this vault (set on another computer): the login asks instead, so the reference may stay.
    expect(() => checkServerSecretKinds(vault, { label: 'gpu', passwordSecretId: 'elsewhere' })).not.toThrow();
    expect(bed.logger.lines.join('\n')).not.toContain(key);
  });
});
