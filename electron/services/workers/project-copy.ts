import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { AppError } from '../../shared/errors';
import { shellQuote, type EngineHost } from '../engines/container-engine';

/**
 * The project folder copied to an SSH host for rollout workers (issue 34):
 * `~/.agentswarm/projects/<name>/<content hash>/`. The hash covers every file sent (path, content,
 * executable bit), so an unchanged project is found complete and nothing is sent; a changed one
 * gets a new folder where files whose content the host already has (in an earlier version) are
 * copied there, and only the others go over SFTP. `.venv`, caches, VCS folders and what the user
 * excludes are left out (the worker uses the interpreter the user picked on that host).
 */
export const ALWAYS_EXCLUDED = ['.venv', 'venv', '.git', '.hg', '__pycache__', 'node_modules', '.mypy_cache', '.pytest_cache', '.ruff_cache', '.ipynb_checkpoints', '.tox', 'saved_experiments', 'swarmlog'];

/** A project larger than this is refused with a reason (it is almost always a dataset or a venv by another name). */
export const MAX_PROJECT_BYTES = 512 * 1024 * 1024;
export const MAX_PROJECT_FILES = 20_000;

export interface ManifestFile {
  /** POSIX path relative to the project root. */
  rel: string;
  size: number;
  sha256: string;
  executable: boolean;
}

export interface ProjectManifest {
  root: string;
  files: ManifestFile[];
  /** 16 hex characters of the SHA-256 over every file's path, hash and mode. */
  hash: string;
  bytes: number;
}

function excluded(rel: string, name: string, extra: readonly string[]): boolean {
  if (ALWAYS_EXCLUDED.includes(name) || name.endsWith('.pyc')) return true;
  return extra.some((pattern) => {
    const clean = pattern.replace(/^\.\/+/, '').replace(/\/+$/, '');
    return clean === name || clean === rel || rel.startsWith(`${clean}/`);
  });
}

/** Every file to send, with its content hash; symlinks and special files are left out. */
export async function projectManifest(root: string, exclude: readonly string[] = []): Promise<ProjectManifest> {
  const files: ManifestFile[] = [];
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join('/');
      if (excluded(rel, entry.name, exclude)) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        const info = await lstat(path);
        bytes += info.size;
        if (files.length >= MAX_PROJECT_FILES || bytes > MAX_PROJECT_BYTES) {
          throw new AppError(
            'PROJECT_INVALID',
            `${root} has more than ${MAX_PROJECT_FILES} files or ${MAX_PROJECT_BYTES / 1024 / 1024} MB to copy to the worker hosts. Exclude the data or environment folders the workers do not need (the pool's "exclude" list), e.g. ${rel.split('/')[0]}.`,
          );
        }
        files.push({ rel, size: info.size, sha256: await fileHash(path), executable: (info.mode & 0o111) !== 0 });
      }
    }
  };
  await walk(root);
  const summary = createHash('sha256');
  for (const f of files) summary.update(`${f.rel}\0${f.sha256}\0${f.executable ? 'x' : '-'}\n`);
  return { root, files, hash: summary.digest('hex').slice(0, 16), bytes };
}

function fileHash(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** `my agent!` → `my_agent_`: the project's folder name on the host. */
export function projectName(root: string): string {
  return basename(root).replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_') || 'project';
}

export interface CopyOutcome {
  /** Absolute path of the project on the host. */
  remoteDir: string;
  hash: string;
  /** Files sent over SFTP, and files the host already had (copied there from an earlier version). */
  sent: number;
  reused: number;
  /** The host already had this exact version. */
  complete: boolean;
}

const COMPLETE_MARK = '.agentswarm-complete';

/**
 * Makes sure the host has this version of the project; sends only what it lacks. `openSftp` is
 * asked only when something has to be sent.
 */
export async function copyProject(host: EngineHost, openSftp: () => Promise<SFTPWrapper>, manifest: ProjectManifest): Promise<CopyOutcome> {
  const name = projectName(manifest.root);
  const base = `$HOME/.agentswarm/projects/${name}`;
  // What the host has: this version complete, else the content hashes of the newest earlier versions.
  const look = await host.exec(
    [
      '[ -n "$HOME" ] || { echo "HOME is not set" >&2; exit 90; }',
      `b="${base}"`,
      'echo "@@home $HOME"',
      `[ -f "$b/${manifest.hash}/${COMPLETE_MARK}" ] && { echo "@@complete"; exit 0; }`,
      'command -v sha256sum >/dev/null 2>&1 || exit 0',
      // The three newest complete versions are enough to find unchanged files.
      `for v in $(ls -1t "$b" 2>/dev/null | head -n 3); do [ -f "$b/$v/${COMPLETE_MARK}" ] && find "$b/$v" -type f ! -name ${COMPLETE_MARK} -exec sha256sum {} + 2>/dev/null; done`,
    ].join('\n'),
    { timeoutMs: 120_000 },
  );
  if (look.code !== 0) throw new AppError('SSH_DISCONNECTED', `The project folder on ${host.label} could not be looked at: ${look.stderr.trim().slice(-300) || `exit ${look.code}`}.`);
  const home = /^@@home (.+)$/m.exec(look.stdout)?.[1]?.trim();
  if (!home) throw new AppError('SSH_DISCONNECTED', `${host.label} did not say where its home folder is.`);
  const remoteDir = `${home}/.agentswarm/projects/${name}/${manifest.hash}`;
  if (/^@@complete$/m.test(look.stdout)) return { remoteDir, hash: manifest.hash, sent: 0, reused: 0, complete: true };

  const known = new Map<string, string>();
  for (const line of look.stdout.split('\n')) {
    const m = /^([0-9a-f]{64}) {2}(\/.+)$/.exec(line);
    if (m && !known.has(m[1]!)) known.set(m[1]!, m[2]!);
  }
  const staging = `${remoteDir}.partial-${randomBytes(4).toString('hex')}`;
  const dirs = new Set<string>(['']);
  for (const f of manifest.files) {
    const parts = f.rel.split('/');
    for (let i = 1; i < parts.length; i += 1) dirs.add(parts.slice(0, i).join('/'));
  }
  const reused = manifest.files.filter((f) => known.has(f.sha256));
  const toSend = manifest.files.filter((f) => !known.has(f.sha256));
  // One script (through stdin: no path list on a command line) makes the folders and copies what the host has.
  const prepare = [
    'set -e',
    `s=${shellQuote(staging)}`,
    ...[...dirs].sort().map((d) => `mkdir -p "$s"/${shellQuote(d)}`),
    ...reused.map((f) => `cp ${shellQuote(known.get(f.sha256)!)} "$s"/${shellQuote(f.rel)}`),
    ...manifest.files.filter((f) => f.executable && known.has(f.sha256)).map((f) => `chmod +x "$s"/${shellQuote(f.rel)}`),
  ].join('\n');
  const prepared = await host.exec('sh -s', { stdin: `${prepare}\n`, timeoutMs: 300_000 });
  if (prepared.code !== 0) throw new AppError('SSH_DISCONNECTED', `The project folder on ${host.label} could not be prepared: ${prepared.stderr.trim().slice(-300) || `exit ${prepared.code}`}.`);

  if (toSend.length > 0) {
    const sftp = await openSftp();
    try {
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < toSend.length) {
          const f = toSend[next++]!;
          await new Promise<void>((resolve, reject) =>
            sftp.fastPut(join(manifest.root, ...f.rel.split('/')), `${staging}/${f.rel}`, { mode: f.executable ? 0o755 : 0o644 }, (error) => (error ? reject(error) : resolve())),
          );
        }
      };
      await Promise.all([lane(), lane(), lane(), lane()]);
    } catch (error) {
      await host.exec(`rm -rf ${shellQuote(staging)}`).catch(() => undefined);
      throw new AppError('SSH_DISCONNECTED', `Copying the project to ${host.label} failed: ${(error as Error).message}.`, { cause: error });
    } finally {
      sftp.end();
    }
  }
  // Complete only once every file is there: a copy cut short is never taken for this version.
  const done = await host.exec(
    [`s=${shellQuote(staging)}`, `d=${shellQuote(remoteDir)}`, `: >"$s/${COMPLETE_MARK}"`, 'if [ -d "$d" ]; then rm -rf "$s"; else mv "$s" "$d"; fi'].join('\n'),
  );
  if (done.code !== 0) throw new AppError('SSH_DISCONNECTED', `The project folder on ${host.label} could not be finished: ${done.stderr.trim().slice(-300)}.`);
  return { remoteDir, hash: manifest.hash, sent: toSend.length, reused: reused.length, complete: false };
}
