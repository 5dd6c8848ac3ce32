import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { PortHolder as PortHolderInfo } from '../../shared/port-holder';
import { ownPortKind } from '../util/own-ports';

/** The process listening on a local port, as far as the OS lets us see it. */
export interface PortHolder {
  pid: number;
  /** The process name from /proc/<pid>/comm, e.g. "python3". */
  command: string;
}

/** "python3 (pid 4242)", "the app's dry run": how English fallback messages name the holder of a port. */
export function describePortHolder(holder: PortHolder | PortHolderInfo): string {
  if ('kind' in holder && holder.kind === 'app-dry-run') return "the app's own dry run";
  return `${holder.command} (pid ${holder.pid})`;
}

const TCP_LISTEN = '0A';

/**
 * Whether a listener on this /proc/net/tcp{,6} address (hex, in the kernel's byte order) keeps us
 * from binding 127.0.0.1: the wildcard, any 127.x, and their IPv6 forms (::, ::1, ::ffff:127.x).
 * A listener on another interface's address does not conflict, so it is not the holder.
 */
function blocksLoopback(hexAddress: string): boolean {
  if (hexAddress.length === 8) {
    // Little-endian IPv4: 0100007F is 127.0.0.1, so the first octet is the last byte.
    return hexAddress === '00000000' || hexAddress.slice(6, 8) === '7F';
  }
  if (hexAddress.length !== 32) return false;
  const words = hexAddress.toUpperCase();
  if (words === '0'.repeat(32)) return true; // ::
  if (words === `${'0'.repeat(24)}01000000`) return true; // ::1
  // ::ffff:a.b.c.d is stored as three words 0, 0, 0000FFFF (little-endian: FFFF0000), then the IPv4 word.
  if (words.slice(0, 24) === `${'0'.repeat(16)}FFFF0000`) return blocksLoopback(words.slice(24));
  return false;
}

/**
 * The socket inodes of listeners on `port` that block 127.0.0.1, read from the text of
 * /proc/net/tcp or /proc/net/tcp6 (the header line is skipped; malformed lines are ignored).
 */
export function listeningInodes(procNetTcp: string, port: number): string[] {
  const inodes: string[] = [];
  for (const line of procNetTcp.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const [address, hexPort] = (fields[1] ?? '').split(':');
    if (!address || !hexPort || fields[3] !== TCP_LISTEN) continue;
    if (Number.parseInt(hexPort, 16) !== port || !blocksLoopback(address)) continue;
    const inode = fields[9] ?? '0';
    if (/^\d+$/.test(inode) && inode !== '0') inodes.push(inode);
  }
  return inodes;
}

/** The inode of an fd link such as `socket:[123456]`, or null for anything else (files, pipes). */
export function socketInodeOfLink(link: string): string | null {
  return /^socket:\[(\d+)\]$/.exec(link)?.[1] ?? null;
}

async function readOrEmpty(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '');
}

/**
 * Who listens on `port` on this machine (Linux: the port's socket inode from /proc/net/tcp{,6},
 * then the process whose /proc/<pid>/fd holds `socket:[inode]`). Null when the OS does not tell
 * us: another OS, another user's process (its fd directory is not readable), or a holder that
 * went away meanwhile. Never throws: naming the holder is a courtesy, not a condition.
 */
export async function findPortHolder(port: number, procRoot = '/proc'): Promise<PortHolder | null> {
  if (process.platform !== 'linux' && procRoot === '/proc') return null;
  const tables = await Promise.all([readOrEmpty(join(procRoot, 'net/tcp')), readOrEmpty(join(procRoot, 'net/tcp6'))]);
  const inodes = new Set(tables.flatMap((text) => listeningInodes(text, port)));
  if (inodes.size === 0) return null;
  const pids = (await readdir(procRoot).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const fdDir = join(procRoot, pid, 'fd');
    const fds = await readdir(fdDir).catch(() => [] as string[]);
    for (const fd of fds) {
      const inode = socketInodeOfLink(await readlink(join(fdDir, fd)).catch(() => ''));
      if (inode && inodes.has(inode)) {
        const command = (await readOrEmpty(join(procRoot, pid, 'comm'))).trim() || 'unknown';
        return { pid: Number(pid), command };
      }
    }
  }
  return null;
}

/**
 * Who holds `port` on this computer's loopback, as data: this app's own dry run when the backend bound it (known
 * without /proc, so on every OS), else the process /proc names, else null.
 */
export async function identifyPortHolder(port: number, procRoot = '/proc'): Promise<PortHolderInfo | null> {
  if (ownPortKind(port) === 'app-dry-run') return { kind: 'app-dry-run', port };
  const found = await findPortHolder(port, procRoot);
  return found ? { kind: 'process', port, command: found.command, pid: found.pid } : null;
}
