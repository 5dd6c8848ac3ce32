import { createHash, createHmac, randomBytes } from 'node:crypto';

/** One parsed known_hosts line that can take part in a lookup. */
export interface KnownHostEntry {
  marker: 'revoked' | null;
  /** Plain patterns (`host`, `[host]:port`, wildcards, `!negated`), or one hashed `|1|salt|hash` name. */
  patterns: string[];
  keyType: string;
  key: Buffer;
  /** Index of the line in the file (0-based), so edits can drop exactly that line. */
  lineIndex: number;
}

export interface ParsedKnownHosts {
  entries: KnownHostEntry[];
  /** Lines kept but not used: `@cert-authority`, unknown markers, malformed lines. */
  skipped: number;
  /** True when at least one entry uses a hashed host name (then new entries are hashed too, like OpenSSH). */
  hashed: boolean;
}

/** `SHA256:<base64 without padding>`, exactly as `ssh-keygen -l` prints it. */
export function fingerprintSha256(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside an SSH wire-format public key blob (its first string), or null when malformed. */
export function keyTypeOfBlob(key: Buffer): string | null {
  if (key.length < 4) return null;
  const len = key.readUInt32BE(0);
  if (len === 0 || len > 64 || 4 + len > key.length) return null;
  return key.subarray(4, 4 + len).toString('latin1');
}

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` otherwise. */
export function hostKeyName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

export function hashHostName(name: string, salt: Buffer = randomBytes(20)): string {
  const mac = createHmac('sha1', salt).update(name).digest('base64');
  return `|1|${salt.toString('base64')}|${mac}`;
}

function matchesHashed(pattern: string, name: string): boolean {
  const parts = pattern.split('|');
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2] ?? '', 'base64');
  return hashHostName(name, salt) === pattern;
}

function wildcardToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

/**
 * Whether a line's host patterns select `name` the way OpenSSH's match_hostname does: any positive
 * match, and no negated (`!pattern`) match. `exactOnly` ignores wildcard patterns (used when editing).
 */
export function patternsMatch(patterns: string[], name: string, exactOnly = false): boolean {
  let positive = false;
  for (const pattern of patterns) {
    if (pattern.startsWith('|')) {
      if (matchesHashed(pattern, name)) positive = true;
      continue;
    }
    const negated = pattern.startsWith('!');
    const body = negated ? pattern.slice(1) : pattern;
    const wild = /[*?]/.test(body);
    if (exactOnly && wild && !negated) continue;
    const hit = wild ? wildcardToRegExp(body).test(name) : body.toLowerCase() === name.toLowerCase();
    if (hit && negated) return false;
    if (hit) positive = true;
  }
  return positive;
}

/** Splits text into lines that keep their own terminators, so joining them gives the bytes back. */
export function splitLinesKeepingEnds(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

export function parseKnownHosts(text: string): ParsedKnownHosts {
  const entries: KnownHostEntry[] = [];
  let skipped = 0;
  let hashed = false;
  splitLinesKeepingEnds(text).forEach((raw, lineIndex) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    let marker: KnownHostEntry['marker'] = null;
    if (fields[0]?.startsWith('@')) {
      // @cert-authority needs certificate checks ssh2 does not do; unknown markers are future syntax.
      if (fields[0] !== '@revoked') return void skipped++;
      marker = 'revoked';
      fields.shift();
    }
    const [hosts, keyType, b64] = fields;
    if (!hosts || !keyType || !b64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return void skipped++;
    const key = Buffer.from(b64, 'base64');
    if (keyTypeOfBlob(key) !== keyType) return void skipped++;
    const patterns = hosts.split(',').filter((p) => p !== '');
    if (patterns.some((p) => p.startsWith('|1|'))) hashed = true;
    entries.push({ marker, patterns, keyType, key, lineIndex });
  });
  return { entries, skipped, hashed };
}

/** One known_hosts line (with `\n`) for `host`:`port`, hashed or plain. */
export function formatKnownHostLine(host: string, port: number, key: Buffer, hash: boolean): string {
  const name = hostKeyName(host, port);
  const keyType = keyTypeOfBlob(key) ?? 'unknown';
  return `${hash ? hashHostName(name) : name} ${keyType} ${key.toString('base64')}\n`;
}
