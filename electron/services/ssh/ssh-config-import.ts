import { readdirSync, readFileSync } from 'node:fs';
import { homedir, hostname, userInfo } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parse, type Line } from 'ssh-config';
import { AppError } from '../../shared/errors';

export interface SshHop {
  alias: string;
  hostName: string;
  port: number;
  user: string;
  identityFiles: string[];
  identitiesOnly: boolean;
}

/**
 * A resolved Host alias; `jumps` is the ProxyJump chain in connection order (first hop first), `proxyCommand`
 * its ProxyCommand as written (tokens not expanded: they are filled in at connect time). At most one of the
 * two is set: the one the config gives first, as OpenSSH does.
 */
export interface SshHostConfig extends SshHop {
  jumps: SshHop[];
  proxyCommand: string | null;
}

/** Marks former ProxyJump lines in the copy of the config that tells which of the two comes first. */
const JUMP_MARK = '\u0000proxyjump\u0000';

export interface SshConfigOptions {
  /** The config file (default ~/.ssh/config); tests pass a temp file. */
  path?: string;
  /** %d and `~` (default os.homedir()). */
  homeDir?: string;
  /** %u and the default User (default os.userInfo().username). */
  localUser?: string;
}

const MAX_INCLUDE_DEPTH = 16;
const MAX_JUMPS = 8;

function invalid(message: string): AppError {
  return new AppError('SSH_CONFIG_INVALID', message);
}

/**
 * Reads a config and inlines `Include` (ssh-config 5.3.0 does not follow it): relative paths are under
 * ~/.ssh like OpenSSH; `*` globs in the file-name part are expanded and sorted. An Include inside a Host
 * block is inlined unconditionally, a simplification of OpenSSH's conditional include.
 */
function readWithIncludes(path: string, home: string, depth = 0): string {
  if (depth > MAX_INCLUDE_DEPTH) throw invalid(`${path}: Include nests deeper than ${MAX_INCLUDE_DEPTH} levels (a loop?). Remove the cycle.`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (depth > 0 && (error as NodeJS.ErrnoException).code === 'ENOENT') return ''; // OpenSSH ignores missing includes
    throw invalid(`Cannot read ${path}: ${(error as Error).message}.`);
  }
  return text.replace(/^[ \t]*include[ \t=]+(.+)$/gim, (_, args: string) =>
    args.trim().split(/\s+/).map((arg) => {
      const expanded = arg.replace(/^"|"$/g, '').replace(/^~(?=\/|$)/, home);
      const full = isAbsolute(expanded) ? expanded : join(home, '.ssh', expanded);
      return expandGlob(full).map((file) => readWithIncludes(file, home, depth + 1)).join('\n');
    }).join('\n'));
}

function expandGlob(file: string): string[] {
  const slash = file.lastIndexOf('/');
  const dir = file.slice(0, slash) || '/';
  const base = file.slice(slash + 1);
  if (!/[*?]/.test(base)) return [file];
  const re = new RegExp(`^${base.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  try {
    return readdirSync(dir).filter((n) => re.test(n)).sort().map((n) => join(dir, n));
  } catch {
    return [];
  }
}

export class SshConfigImport {
  private readonly home: string;
  private readonly localUser: string;
  private readonly config;
  /** The config with every ProxyJump turned into a marked ProxyCommand: its first ProxyCommand is the first of the two. */
  private readonly proxyOrder;

  constructor(options: SshConfigOptions = {}) {
    this.home = options.homeDir ?? homedir();
    this.localUser = options.localUser ?? userInfo().username;
    const path = resolve(options.path ?? join(this.home, '.ssh', 'config'));
    const text = readWithIncludes(path, this.home);
    this.config = parse(text);
    this.proxyOrder = parse(text.replace(/^([ \t]*)proxyjump(?=[ \t=])/gim, `$1ProxyCommand ${JUMP_MARK}`));
  }

  /** Host aliases a user can pick: every name in a `Host` line except patterns (`*`, `?`, `!`). */
  aliases(): string[] {
    const names = new Set<string>();
    const visit = (line: Line): void => {
      if (!('param' in line) || line.param.toLowerCase() !== 'host') return;
      const values = typeof line.value === 'string' ? line.value.split(/\s+/) : line.value.map((v) => v.val);
      for (const v of values) if (v && !/[*?!]/.test(v)) names.add(v);
    };
    this.config.forEach(visit);
    return [...names];
  }

  /** Resolves an alias like `ssh -G` would for the fields we use, including its ProxyJump chain. */
  resolve(alias: string): SshHostConfig {
    const hop = this.hop(alias);
    const first = this.firstProxy(alias);
    if (first === 'jump') return { ...hop, jumps: this.jumpChain(alias, [alias]), proxyCommand: null };
    // `ProxyCommand none` first: direct, and a later ProxyJump is ignored too (OpenSSH's parse_jump).
    return { ...hop, jumps: [], proxyCommand: first === null || first.toLowerCase() === 'none' ? null : first };
  }

  /** Which of ProxyJump and ProxyCommand the config gives first for `alias`: 'jump', the command, or null for neither. */
  private firstProxy(alias: string): 'jump' | string | null {
    const raw = this.proxyOrder.compute(alias, { ignoreCase: true, matchExec: false })['proxycommand'];
    const value = Array.isArray(raw) ? raw.join(' ') : raw;
    if (value === undefined || value === '') return null;
    return value.startsWith(JUMP_MARK) ? 'jump' : value;
  }

  private computed(alias: string): Record<string, string | string[]> {
    return this.config.compute(alias, { ignoreCase: true, matchExec: false });
  }

  private hop(alias: string, override: { user?: string; port?: number } = {}): SshHop {
    const c = this.computed(alias);
    const one = (k: string): string | undefined => (Array.isArray(c[k]) ? c[k][0] : (c[k] as string | undefined));
    const hostName = this.tokens(one('hostname') ?? alias, { h: alias, n: alias });
    const portText = one('port');
    const port = override.port ?? (portText === undefined ? 22 : Number(portText));
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid(`Host ${alias}: Port "${portText}" is not a port number (1-65535).`);
    const user = override.user ?? one('user') ?? this.localUser;
    const files = c['identityfile'];
    const identityFiles = (Array.isArray(files) ? files : files ? [files] : []).map((f) =>
      this.tokens(f.replace(/^~(?=\/|$)/, this.home), { h: hostName, r: user, n: alias, p: String(port) }));
    return { alias, hostName, port, user, identityFiles, identitiesOnly: one('identitiesonly')?.toLowerCase() === 'yes' };
  }

  /** `ProxyJump a,b`: hops in order; the first hop's own ProxyJump comes before it (OpenSSH runs it via `ssh -W`). */
  private jumpChain(alias: string, seen: string[]): SshHop[] {
    const raw = this.computed(alias)['proxyjump'];
    const value = Array.isArray(raw) ? raw.join(',') : raw;
    if (!value || value.toLowerCase() === 'none') return [];
    const hops = value.split(',').map((spec) => this.parseJump(alias, spec.trim()));
    const first = hops[0];
    if (first === undefined) return [];
    if (seen.includes(first.alias) || seen.length > MAX_JUMPS) throw invalid(`Host ${alias}: ProxyJump loops back to ${first.alias}. Fix the ProxyJump lines in your SSH config.`);
    return [...this.jumpChain(first.alias, [...seen, first.alias]), ...hops];
  }

  /** `[user@]host[:port]` or `ssh://[user@]host[:port]`; `[v6]:port` for IPv6. */
  private parseJump(alias: string, spec: string): SshHop {
    const m = /^(?:ssh:\/\/)?(?:(.+)@)?(\[[^\]]+\]|[^:@/]+)(?::(\d+))?$/.exec(spec);
    if (!m?.[2]) throw invalid(`Host ${alias}: ProxyJump hop "${spec}" is not [user@]host[:port].`);
    const host = m[2].replace(/^\[|\]$/g, '');
    return this.hop(host, { user: m[1], port: m[3] === undefined ? undefined : Number(m[3]) });
  }

  /** The OpenSSH percent tokens the common configs use; an unknown one is an error, as in OpenSSH. */
  private tokens(value: string, vars: Record<string, string>): string {
    const all: Record<string, string> = { '%': '%', d: this.home, u: this.localUser, l: hostname().split('.')[0] ?? '', L: hostname(), ...vars };
    return value.replace(/%(.)/g, (token: string, ch: string) => {
      const v = all[ch];
      if (v === undefined) throw invalid(`"${value}": the token ${token} is not supported here. Write the value out instead.`);
      return v;
    });
  }
}
