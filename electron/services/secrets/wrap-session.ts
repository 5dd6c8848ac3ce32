import type { KeyWrapper } from './key-wrapper';

/**
 * Session only: the data key lives in this process's memory and nowhere else; nothing is written,
 * and quitting the app (or locking) forgets every secret.
 */
export class SessionWrapper implements KeyWrapper {
  readonly backend = 'session' as const;

  async wrap(): Promise<null> {
    return null;
  }

  async unwrap(): Promise<Buffer> {
    // A session vault is never written, so there is never a record to unwrap.
    throw new Error('a session vault has no stored key');
  }
}
