import { AppError } from '../../shared/errors';
import type { HostKeyQuestion } from '../../shared/schemas-servers';
import { hostKeyError, type KnownHostsFile } from './known-hosts';
import type { HostKeyInfo } from './ssh-connection';

interface Question {
  view: HostKeyQuestion;
  /** The key exactly as the server sent it: what gets written when the user trusts it. */
  keyBlob: Buffer;
}

/**
 * A server's host-key decisions against the app's known_hosts. A key known_hosts trusts passes; an
 * unknown, changed or revoked one becomes a question for the UI and the connect fails with the typed
 * error before any credential is sent. Only the key the user was shown can be written, and only by
 * an explicit action: `trust` for an unknown key, `replace` for a changed one.
 */
export class HostKeyTrust {
  private question: Question | null = null;

  constructor(
    private readonly knownHosts: KnownHostsFile,
    private readonly onChange: () => void,
  ) {}

  /** What the UI asks about (unknown) or shows as refused (changed, revoked); null when nothing is open. */
  get pending(): HostKeyQuestion | null {
    return this.question ? structuredClone(this.question.view) : null;
  }

  /** The `verifyHostKey` of the chain: `hop` is the index in the chain, `target` its `user@host:port`. */
  async verify(hop: number, target: string, info: HostKeyInfo): Promise<boolean> {
    const verdict = await this.knownHosts.lookup(info.host, info.port, info.keyType, info.keyBlob);
    if (verdict.status === 'trusted') {
      const open = this.question?.view;
      if (open && open.host === info.host && open.port === info.port) this.set(null);
      return true;
    }
    this.set({
      keyBlob: Buffer.from(info.keyBlob),
      view: {
        target,
        hop,
        host: info.host,
        port: info.port,
        keyType: info.keyType,
        fingerprint: info.fingerprint,
        status: verdict.status,
        knownFingerprints: verdict.status === 'changed' ? verdict.oldFingerprints : verdict.status === 'other-type' ? verdict.knownKeys.map((k) => k.fingerprint) : [],
        knownKeys: verdict.status === 'other-type' ? verdict.knownKeys : [],
      },
    });
    throw hostKeyError(verdict, info.host, info.port, info.keyBlob);
  }

  /** Writes the unknown key the user was shown (hashed when the file hashes); `fingerprint` must be that key's. */
  async trust(fingerprint: string): Promise<void> {
    const question = this.expect(fingerprint, 'unknown');
    await this.knownHosts.add(question.view.host, question.view.port, question.keyBlob);
    this.set(null);
  }

  /** The key types known_hosts trusts for `host`:`port`, which the connect asks the server for first. */
  knownKeyTypes(host: string, port: number): Promise<string[]> {
    return this.knownHosts.knownKeyTypes(host, port);
  }

  /**
   * The explicit "I compared it with the server" action for a changed key (the old line of that type
   * goes, the new one is written) or for a key of another type than the trusted ones (the new key is
   * added; the keys of other types stay, as OpenSSH keeps them: they prove nothing an attacker could use).
   */
  async replace(fingerprint: string): Promise<void> {
    const question = this.expect(fingerprint, 'changed');
    await this.knownHosts.replace(question.view.host, question.view.port, question.keyBlob);
    this.set(null);
  }

  clear(): void {
    if (this.question) this.set(null);
  }

  private expect(fingerprint: string, status: 'unknown' | 'changed'): Question {
    // A key of another type is replaced through the same explicit, checked action as a changed one.
    const seen = (s: HostKeyQuestion['status']): 'unknown' | 'changed' | 'revoked' => (s === 'other-type' ? 'changed' : s);
    const question = this.question;
    if (!question) {
      throw new AppError('VALIDATION_FAILED', 'There is no host key waiting for a decision for this server. Connect first to see its key.');
    }
    if (question.view.fingerprint !== fingerprint) {
      throw new AppError(
        'VALIDATION_FAILED',
        `The server's key is ${question.view.fingerprint}, not the ${fingerprint} you confirmed. Nothing was written: look at the key again before trusting it.`,
      );
    }
    if (seen(question.view.status) !== status) {
      const why =
        question.view.status === 'revoked'
          ? 'it is marked @revoked in known_hosts and cannot be trusted from the app; ask the server administrator for its new key'
          : question.view.status !== 'unknown'
            ? 'it replaces a key known_hosts already trusts: use "Replace key" if the server was reinstalled'
            : 'it is not in known_hosts yet: use "Trust" instead';
      throw new AppError('VALIDATION_FAILED', `The host key ${fingerprint} cannot be ${status === 'unknown' ? 'trusted' : 'replaced'} this way: ${why}.`);
    }
    return question;
  }

  private set(question: Question | null): void {
    this.question = question;
    this.onChange();
  }
}
