import { randomBytes, scrypt } from 'node:crypto';
import { DATA_KEY_BYTES, SealBroken, aadOf, open, seal } from './envelope';
import { WrongPassphrase, type KeyWrapper } from './key-wrapper';
import type { PassphraseWrap, WrapRecord } from './vault-file';

/**
 * scrypt with N=2^17, r=8, p=1 (128 MiB, a few hundred ms): above OWASP's minimum (2^17 is its
 * first recommended setting) and still quick enough to type once per run. Stored with each file,
 * so stronger defaults later leave old files readable.
 */
export const SCRYPT_DEFAULTS = { N: 2 ** 17, r: 8, p: 1 } as const;
const SALT_BYTES = 16;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * A passphrase the user types: scrypt turns it into a key-encryption key that seals the data key
 * with AES-256-GCM. The GCM tag is the verifier — a wrong passphrase fails to open the wrapped key
 * and nothing else is touched. The passphrase itself is never stored.
 */
export class PassphraseWrapper implements KeyWrapper {
  readonly backend = 'passphrase' as const;
  private readonly passphrase: string;

  constructor(passphrase: string, private readonly params: ScryptParams = SCRYPT_DEFAULTS) {
    // NFC: the same passphrase typed through another keyboard or input method gives the same bytes.
    this.passphrase = passphrase.normalize('NFC');
  }

  async wrap(dataKey: Buffer): Promise<PassphraseWrap> {
    const salt = randomBytes(SALT_BYTES);
    const { N, r, p } = this.params;
    const kek = await deriveKey(this.passphrase, salt, this.params);
    try {
      const box = seal(kek, dataKey, wrapAad(N, r, p, salt.toString('base64')));
      return { kind: 'passphrase', kdf: 'scrypt', N, r, p, salt: salt.toString('base64'), ...box };
    } finally {
      kek.fill(0);
    }
  }

  async unwrap(record: WrapRecord): Promise<Buffer> {
    if (record.kind !== 'passphrase') throw new WrongPassphrase();
    const kek = await deriveKey(this.passphrase, Buffer.from(record.salt, 'base64'), record);
    try {
      const key = open(kek, record, wrapAad(record.N, record.r, record.p, record.salt));
      if (key.length !== DATA_KEY_BYTES) throw new WrongPassphrase();
      return key;
    } catch (error) {
      if (error instanceof SealBroken) throw new WrongPassphrase();
      throw error;
    } finally {
      kek.fill(0);
    }
  }
}

/** The KDF parameters and salt are authenticated with the wrapped key. */
function wrapAad(N: number, r: number, p: number, salt: string): Buffer {
  return aadOf('wrap', 'passphrase', 'scrypt', N, r, p, salt);
}

function deriveKey(passphrase: string, salt: Buffer, { N, r, p }: ScryptParams): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default cap (32 MiB) is below N=2^17, r=8.
  const maxmem = 128 * N * r * p + 32 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(passphrase, salt, DATA_KEY_BYTES, { N, r, p, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
