import { DATA_KEY_BYTES } from './envelope';
import { KeychainUnwrapFailed, type KeyWrapper } from './key-wrapper';
import type { KeychainPort } from './keychain-port';
import type { KeychainWrap, WrapRecord } from './vault-file';

/**
 * The OS keychain through the injected KeychainPort (Electron's safeStorage). With
 * `obfuscated: true` it is the same call on Linux `basic_text` after the user's explicit
 * "obfuscation only" choice: written, but not protected (the vault badges it).
 */
export class KeychainWrapper implements KeyWrapper {
  readonly backend: 'keychain' | 'obfuscated';

  constructor(
    private readonly keychain: KeychainPort,
    options: { obfuscated: boolean },
  ) {
    this.backend = options.obfuscated ? 'obfuscated' : 'keychain';
  }

  async wrap(dataKey: Buffer): Promise<KeychainWrap> {
    this.prepare();
    const sealed = await this.keychain.encrypt(dataKey);
    return { kind: 'keychain', sealed: sealed.toString('base64') };
  }

  async unwrap(record: WrapRecord): Promise<Buffer> {
    if (record.kind !== 'keychain') throw new KeychainUnwrapFailed('the vault file holds no keychain-wrapped key');
    this.prepare();
    let key: Buffer;
    try {
      key = await this.keychain.decrypt(Buffer.from(record.sealed, 'base64'));
    } catch (error) {
      throw new KeychainUnwrapFailed('the keychain refused to decrypt it', { cause: error });
    }
    if (key.length !== DATA_KEY_BYTES) throw new KeychainUnwrapFailed('it returned something that is not the vault key');
    return key;
  }

  private prepare(): void {
    // Only the explicit choice (a vault the user set up as `obfuscated`) turns obfuscation on.
    if (this.backend === 'obfuscated') this.keychain.allowObfuscation();
  }
}
