import { readFile, realpath, stat } from 'node:fs/promises';
import { AppError } from '../../shared/errors';
import { writeFileAtomic } from '../util/atomic-file';
import {
  fingerprintSha256,
  formatKnownHostLine,
  hostKeyName,
  keyTypeOfBlob,
  parseKnownHosts,
  patternsMatch,
  splitLinesKeepingEnds,
  type ParsedKnownHosts,
} from './known-hosts-format';

export type HostKeyVerdict =
  | { status: 'trusted' }
  | { status: 'unknown' }
  | { status: 'changed'; oldFingerprints: string[]; newFingerprint: string }
  /**
   * known_hosts trusts keys of other types for this host, and the server showed none of them. The
   * connect asks for the known types first (host-key-algorithms.ts), so a server that still had one
   * would have shown it: like OpenSSH's "key of a different type" warning, but refused like a change.
   */
  | { status: 'other-type'; knownKeys: KnownKey[]; newFingerprint: string }
  | { status: 'revoked' };

export interface KnownKey {
  keyType: string;
  fingerprint: string;
}

/** SSH-protocol host key algorithm names that use an `ssh-rsa` key. */
function normaliseKeyType(keyType: string): string {
  return keyType === 'rsa-sha2-256' || keyType === 'rsa-sha2-512' ? 'ssh-rsa' : keyType;
}

/**
 * An OpenSSH known_hosts file at a path the caller chooses (tests never touch ~/.ssh). Reads plain and
 * hashed entries; writes in OpenSSH format so the `ssh` command agrees; keeps every other line byte for byte.
 */
export class KnownHostsFile {
  /** Writes are serialised so two accepts at once cannot lose one another's line. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  /** Read as latin1 so that rewriting gives back exactly the bytes that were there. */
  private async readText(): Promise<string> {
    try {
      return await readFile(this.path, 'latin1');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw new AppError('SSH_KNOWN_HOSTS_UNUSABLE', `Cannot read ${this.path}: ${(error as Error).message}. Check that the file is readable by you.`, { cause: error });
    }
  }

  async read(): Promise<ParsedKnownHosts> {
    return parseKnownHosts(await this.readText());
  }

  async lookup(host: string, port: number, keyType: string, key: Buffer): Promise<HostKeyVerdict> {
    const type = keyTypeOfBlob(key);
    if (type === null || type !== normaliseKeyType(keyType)) {
      throw new AppError('VALIDATION_FAILED', `The server's host key is malformed (declared ${keyType}, blob says ${type ?? 'nothing'}).`);
    }
    const name = hostKeyName(host, port);
    const matching = (await this.read()).entries.filter((e) => patternsMatch(e.patterns, name));
    // A revoked key is refused even if another line also trusts it (OpenSSH checks revocation first).
    if (matching.some((e) => e.marker === 'revoked' && e.key.equals(key))) return { status: 'revoked' };
    const trusted = matching.filter((e) => e.marker === null);
    if (trusted.some((e) => e.key.equals(key))) return { status: 'trusted' };
    const sameType = trusted.filter((e) => e.keyType === type);
    if (sameType.length > 0) {
      const oldFingerprints = [...new Set(sameType.map((e) => fingerprintSha256(e.key)))];
      return { status: 'changed', oldFingerprints, newFingerprint: fingerprintSha256(key) };
    }
    if (trusted.length === 0) return { status: 'unknown' };
    const seen = new Set<string>();
    const knownKeys: KnownKey[] = [];
    for (const e of trusted) {
      const fingerprint = fingerprintSha256(e.key);
      if (seen.has(fingerprint)) continue;
      seen.add(fingerprint);
      knownKeys.push({ keyType: e.keyType, fingerprint });
    }
    return { status: 'other-type', knownKeys, newFingerprint: fingerprintSha256(key) };
  }

  /**
   * The key types known_hosts trusts for this host, in file order (OpenSSH's order_hostkeyalgs reads
   * them the same way): what the connect asks the server for first. `@revoked` lines do not count.
   */
  async knownKeyTypes(host: string, port: number): Promise<string[]> {
    const name = hostKeyName(host, port);
    const types = (await this.read()).entries.filter((e) => e.marker === null && patternsMatch(e.patterns, name)).map((e) => e.keyType);
    return [...new Set(types)];
  }

  /** Appends an entry; hashed when asked or when the file already hashes its names. */
  async add(host: string, port: number, key: Buffer, options: { hash?: boolean } = {}): Promise<void> {
    await this.edit((text, parsed) => {
      const line = formatKnownHostLine(host, port, key, options.hash ?? parsed.hashed);
      const separator = text === '' || text.endsWith('\n') ? '' : '\n';
      return text + separator + line;
    });
  }

  /**
   * The explicit "this server was reinstalled" action: drops the lines that name this host exactly (not
   * through a wildcard) with a key of the same type, then adds the new key. `@revoked` lines stay.
   */
  async replace(host: string, port: number, key: Buffer, options: { hash?: boolean } = {}): Promise<void> {
    const name = hostKeyName(host, port);
    const type = keyTypeOfBlob(key);
    await this.edit((text, parsed) => {
      const drop = new Set(
        parsed.entries
          .filter((e) => e.marker === null && e.keyType === type && patternsMatch(e.patterns, name, true))
          .map((e) => e.lineIndex),
      );
      const kept = splitLinesKeepingEnds(text).filter((_, i) => !drop.has(i)).join('');
      const separator = kept === '' || kept.endsWith('\n') ? '' : '\n';
      return kept + separator + formatKnownHostLine(host, port, key, options.hash ?? parsed.hashed);
    });
  }

  private edit(change: (text: string, parsed: ParsedKnownHosts) => string): Promise<void> {
    const run = async (): Promise<void> => {
      const text = await this.readText();
      const next = change(text, parseKnownHosts(text));
      try {
        // Follow a symlinked known_hosts instead of replacing the link with a file.
        const target = text === '' ? this.path : await realpath(this.path).catch(() => this.path);
        const mode = await stat(target).then((s) => s.mode & 0o777, () => 0o644);
        await writeFileAtomic(target, Buffer.from(next, 'latin1'), mode);
      } catch (error) {
        throw new AppError('SSH_KNOWN_HOSTS_UNUSABLE', `Cannot write ${this.path}: ${(error as Error).message}. Check that you may write to that file and its folder.`, { cause: error });
      }
    };
    const result = this.writing.then(run, run);
    this.writing = result.catch(() => undefined);
    return result;
  }
}

/** The error to raise when a verdict is not `trusted`; names the host, the fingerprints and the fix. */
export function hostKeyError(verdict: Exclude<HostKeyVerdict, { status: 'trusted' }>, host: string, port: number, key: Buffer): AppError {
  const where = hostKeyName(host, port);
  const fp = fingerprintSha256(key);
  const type = keyTypeOfBlob(key) ?? 'unknown';
  switch (verdict.status) {
    case 'unknown':
      return new AppError('SSH_HOST_KEY_UNKNOWN', `${where} is not a known host. Its ${type} key is ${fp}: compare it with \`ssh-keygen -lf\` on the server before trusting it.`);
    case 'changed':
      return new AppError('SSH_HOST_KEY_CHANGED', `The ${type} host key of ${where} changed: it was ${verdict.oldFingerprints.join(', ')}, now ${fp}. Nothing was sent. If the server was reinstalled, replace the key explicitly; otherwise someone may be intercepting the connection.`);
    case 'other-type': {
      const before = verdict.knownKeys.map((k) => `${k.keyType} ${k.fingerprint}`).join(', ');
      return new AppError('SSH_HOST_KEY_CHANGED', `${where} used to present ${before}; now it presents only ${type} ${fp}. Nothing was sent. Compare the new key with \`ssh-keygen -lf\` on the server and trust it explicitly only if it matches; otherwise someone may be intercepting the connection.`);
    }
    case 'revoked':
      return new AppError('SSH_HOST_KEY_REVOKED', `The ${type} host key ${fp} of ${where} is marked @revoked in known_hosts. Nothing was sent. Ask the server's administrator for its new key.`);
  }
}
