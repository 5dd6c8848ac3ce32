import { describe, expect, it } from 'vitest';
import { WrongPassphrase } from '../../../../electron/services/secrets/key-wrapper';
import { newDataKey } from '../../../../electron/services/secrets/envelope';
import { PassphraseWrapper, SCRYPT_DEFAULTS } from '../../../../electron/services/secrets/wrap-passphrase';
import type { PassphraseWrap } from '../../../../electron/services/secrets/vault-file';
import { FAST_SCRYPT } from './vault-fixtures';

// The default cost is seconds on the shared 2-core test machine (a few hundred ms on a desktop).
describe('passphrase key wrapper (scrypt → AES-256-GCM)', { timeout: 120_000 }, () => {
  it('wraps with scrypt N=2^17, r=8, p=1 and a random salt by default, and unwraps with the same passphrase', async () => {
    const key = newDataKey();
    const started = performance.now();
    const record = await new PassphraseWrapper('correct horse battery').wrap(key);
    const wrapMs = performance.now() - started;
    expect(record).toMatchObject({ kind: 'passphrase', kdf: 'scrypt', ...SCRYPT_DEFAULTS });
    expect(SCRYPT_DEFAULTS.N).toBe(2 ** 17);
    expect(Buffer.from(record.salt, 'base64')).toHaveLength(16);
    const again = await new PassphraseWrapper('correct horse battery', FAST_SCRYPT).wrap(key);
    expect(again.salt).not.toBe(record.salt);
    expect((await new PassphraseWrapper('correct horse battery').unwrap(record)).equals(key)).toBe(true);
    // Memory-hard on purpose; printed so a regression in cost (either way) is visible.
    console.info(`scrypt N=2^17 wrap took ${wrapMs.toFixed(0)} ms`);
  });

  it('a wrong passphrase is WrongPassphrase, not a wrong key', async () => {
    const record = await new PassphraseWrapper('correct horse battery', FAST_SCRYPT).wrap(newDataKey());
    await expect(new PassphraseWrapper('Correct horse battery').unwrap(record)).rejects.toBeInstanceOf(WrongPassphrase);
    await expect(new PassphraseWrapper('').unwrap(record)).rejects.toBeInstanceOf(WrongPassphrase);
  });

  it('authenticates the KDF parameters and salt: a file edited to weaker ones does not open', async () => {
    const key = newDataKey();
    const record = (await new PassphraseWrapper('pass phrase', { N: 2 ** 15, r: 8, p: 1 }).wrap(key)) as PassphraseWrap;
    await expect(new PassphraseWrapper('pass phrase').unwrap({ ...record, N: 2 ** 14 })).rejects.toBeInstanceOf(WrongPassphrase);
    await expect(new PassphraseWrapper('pass phrase').unwrap({ ...record, salt: Buffer.alloc(16).toString('base64') })).rejects.toBeInstanceOf(WrongPassphrase);
  });

  it('treats the same passphrase typed in another Unicode form (NFD vs NFC) as the same', async () => {
    const key = newDataKey();
    const record = await new PassphraseWrapper('caf\u00e9 au lait', FAST_SCRYPT).wrap(key);
    expect((await new PassphraseWrapper('cafe\u0301 au lait').unwrap(record)).equals(key)).toBe(true);
  });
});
