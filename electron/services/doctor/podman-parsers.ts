/**
 * What the Podman checks' host scripts print, read into plain facts. Pure functions (tested on their
 * own): the scripts print tagged lines (`#tag value`) so that one exec answers one check and a
 * missing tool or file reads as "absent", never as an error.
 */

/** A tagged line's value: `#bin slirp4netns /usr/bin/slirp4netns` → tag `bin`, rest `slirp4netns /usr/bin/slirp4netns`. */
function tagged(output: string): { tag: string; rest: string }[] {
  const lines: { tag: string; rest: string }[] = [];
  for (const raw of output.split('\n')) {
    const match = /^#([a-z-]+)(?: (.*))?$/.exec(raw.trimEnd());
    if (match?.[1]) lines.push({ tag: match[1], rest: (match[2] ?? '').trim() });
  }
  return lines;
}

function first(output: string, tag: string): string | null {
  return tagged(output).find((l) => l.tag === tag)?.rest ?? null;
}

// ------------------------------------------------------------------------------------------ loginctl

/** Whether the user's processes outlive their logins, as `loginctl show-user <user> -p Linger` says. */
export type LingerState =
  | { state: 'yes' | 'no' }
  /** loginctl is missing or cannot reach logind (no systemd as init): lingering cannot be known or set. */
  | { state: 'unavailable'; reason: string }
  | { state: 'unknown'; reason: string };

/**
 * `loginctl show-user alice -p Linger` (stdout and stderr together, exit code apart): `Linger=yes`;
 * a user with no session and no lingering is "not logged in or lingering" (rc 1), which means no.
 */
export function parseLinger(output: string, code: number | null): LingerState {
  const text = output.trim();
  const value = /^Linger=(yes|no)\s*$/m.exec(text)?.[1];
  if (value === 'yes' || value === 'no') return { state: value };
  const said = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  if (/not logged in or lingering/i.test(text)) return { state: 'no' };
  if (code === 127 || /not found|no such file/i.test(text)) return { state: 'unavailable', reason: said || 'loginctl is not installed' };
  if (/not been booted with systemd|failed to connect to bus|host is down|connection refused|no such file or directory/i.test(text)) {
    return { state: 'unavailable', reason: said };
  }
  return { state: 'unknown', reason: said || `loginctl ended with code ${code ?? '?'}` };
}

// ------------------------------------------------------------------------------------- podman info

/**
 * The storage driver from `podman info --format '{{.Store.GraphDriverName}}'`: one word (overlay,
 * vfs, btrfs, zfs), or null when the output is anything else (an error, a warning only).
 */
export function parseGraphDriver(output: string): string | null {
  // Podman may print warnings (e.g. about cgroups) on stderr before the answer; take the last word line.
  const words = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[a-z0-9_.-]+$/i.test(l));
  return words.length > 0 ? words[words.length - 1]!.toLowerCase() : null;
}

// ---------------------------------------------------------------------------------------- CDI scan

export interface CdiScan {
  /** nvidia-ctk's version when installed ("1.13.5"), else null. */
  ctkVersion: string | null;
  /** nvidia-ctk was there and `cdi list` ran. */
  ctkListed: boolean;
  /** NVIDIA device names `nvidia-ctk cdi list` printed (nvidia.com/gpu=0, …=all). */
  ctkDevices: string[];
  /** Spec files under /etc/cdi or /var/run/cdi whose kind is nvidia.com/gpu. */
  specFiles: string[];
}

/**
 * The output of `CDI_SCAN_SCRIPT`: `#ctk-version …`, `#ctk-list` then the list's lines until
 * `#ctk-end`, and one `#spec <file>` per spec file naming `kind: nvidia.com/gpu`.
 */
export function parseCdiScan(output: string): CdiScan {
  const ctkVersion = /(\d+\.\d+(?:\.\d+)?)/.exec(first(output, 'ctk-version') ?? '')?.[1] ?? null;
  const lines = output.split('\n').map((l) => l.trim());
  const start = lines.indexOf('#ctk-list');
  const end = lines.indexOf('#ctk-end');
  const listed = start >= 0 ? lines.slice(start + 1, end > start ? end : undefined) : [];
  const ctkDevices = listed.filter((l) => /^nvidia\.com\/gpu=\S+$/.test(l));
  const specFiles = tagged(output)
    .filter((l) => l.tag === 'spec' && l.rest !== '')
    .map((l) => l.rest);
  return { ctkVersion, ctkListed: start >= 0, ctkDevices, specFiles };
}

/** "1.12.0" ≥ "1.12": compares dotted numbers; a missing part counts as 0. */
export function versionAtLeast(version: string, minimum: string): boolean {
  const a = version.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const b = minimum.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

// ------------------------------------------------------------------------------- containers.conf

/**
 * The `init_path` a containers.conf sets, or null: `init_path = "/usr/bin/tini-static"` in either
 * `[containers]` or `[engine]` (Podman reads both; [containers] wins). Comments and other keys are ignored.
 */
export function initPathOf(conf: string): string | null {
  let table = '';
  const found: Record<string, string> = {};
  for (const raw of conf.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[\s*([A-Za-z0-9_.-]+)\s*\]$/.exec(line);
    if (header?.[1]) {
      table = header[1];
      continue;
    }
    const value = /^init_path\s*=\s*(?:"([^"]*)"|'([^']*)')$/.exec(line);
    if (value && (table === 'containers' || table === 'engine')) found[table] = value[1] ?? value[2] ?? '';
  }
  const path = found.containers || found.engine || '';
  return path === '' ? null : path;
}

export interface InitScan {
  /** Each containers.conf read, in the order Podman applies them (later wins), with its init_path. */
  confs: { file: string; initPath: string | null }[];
  /** Podman's built-in place for catatonit is executable. */
  libexecCatatonit: boolean;
  /** Another catatonit on the PATH (e.g. /usr/bin/catatonit), or null. */
  otherCatatonit: string | null;
  /** apt-get, dnf, yum or zypper, for the install command; null when none is found. */
  packageManager: string | null;
  /** The files a user would add init_path to exist already (`#user-conf`, `#system-conf`). */
  userConfExists: boolean;
  systemConfExists: boolean;
}

/**
 * The output of the init scan: `#conf <file>` followed by the file's text up to `#conf-end`,
 * `#libexec yes|no`, `#other <path>`, `#pm <name>`, `#user-conf`, `#system-conf`.
 */
export function parseInitScan(output: string): InitScan {
  const confs: InitScan['confs'] = [];
  // A file's own comments (`#runtime = "crun"`) look like tags: only lines outside the files are tags.
  const outside: string[] = [];
  let current: { file: string; text: string[] } | null = null;
  for (const line of output.split('\n')) {
    if (line.startsWith('#conf ')) {
      current = { file: line.slice('#conf '.length).trim(), text: [] };
      continue;
    }
    if (line.trim() === '#conf-end' && current) {
      confs.push({ file: current.file, initPath: initPathOf(current.text.join('\n')) });
      current = null;
      continue;
    }
    if (current) current.text.push(line);
    else outside.push(line);
  }
  const rest = outside.join('\n');
  const lines = tagged(rest);
  return {
    confs,
    libexecCatatonit: first(rest, 'libexec') === 'yes',
    otherCatatonit: first(rest, 'other') || null,
    packageManager: first(rest, 'pm') || null,
    userConfExists: lines.some((l) => l.tag === 'user-conf'),
    systemConfExists: lines.some((l) => l.tag === 'system-conf'),
  };
}

/** The init_path Podman uses: the last file that sets one wins (user over system, $CONTAINERS_CONF alone when set). */
export function effectiveInitPath(scan: InitScan): { path: string; file: string } | null {
  let found: { path: string; file: string } | null = null;
  for (const conf of scan.confs) if (conf.initPath) found = { path: conf.initPath, file: conf.file };
  return found;
}

// ------------------------------------------------------------------------- rootless session probe

export interface SessionProbe {
  user: string;
  uid: number | null;
  /** XDG_RUNTIME_DIR in the app's session there, or null when unset or empty. */
  runtimeDir: string | null;
  /** /run/user/<uid>: missing, there and owned by the user, or there and owned by someone else. */
  fallback: 'owned' | 'other' | 'missing' | null;
}

/** `#user alice`, `#uid 1000`, `#xdg /run/user/1000` (only when set), `#fallback owned|other|missing`. */
export function parseSessionProbe(output: string): SessionProbe {
  const uid = Number.parseInt(first(output, 'uid') ?? '', 10);
  const fallback = first(output, 'fallback');
  return {
    user: first(output, 'user') ?? '',
    uid: Number.isFinite(uid) ? uid : null,
    runtimeDir: first(output, 'xdg') || null,
    fallback: fallback === 'owned' || fallback === 'other' || fallback === 'missing' ? fallback : null,
  };
}

// ------------------------------------------------------------------------------ publish networking

export interface NetworkProbe {
  /** slirp4netns / pasta found on the PATH, by name. */
  tools: string[];
  /** /dev/net/tun: usable by this user, there but not readable and writable, or absent. */
  tun: 'ok' | 'denied' | 'missing' | null;
  /** `ls -l /dev/net/tun`'s mode column (crw-------), for the detail. */
  tunMode: string | null;
  packageManager: string | null;
}

/** `#tool slirp4netns /usr/bin/slirp4netns`, `#tun ok|denied|missing`, `#tun-mode crw-------`, `#pm apt-get`. */
export function parseNetworkProbe(output: string): NetworkProbe {
  const lines = tagged(output);
  const tun = first(output, 'tun');
  return {
    tools: lines.filter((l) => l.tag === 'tool').map((l) => l.rest.split(' ')[0]!).filter((t) => t !== ''),
    tun: tun === 'ok' || tun === 'denied' || tun === 'missing' ? tun : null,
    tunMode: first(output, 'tun-mode') || null,
    packageManager: first(output, 'pm') || null,
  };
}
