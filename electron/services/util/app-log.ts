import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LogMeta, Logger } from './logger';
import { redact, redactValue } from './redact';

export interface AppLogOptions {
  /** Rotate when the current file would grow past this many bytes (default 1 MiB). */
  maxBytes?: number;
  /** Files kept in all, the current one included: app.log, app.log.1, … (default 3). */
  files?: number;
  /** One entry longer than this is cut, so a single huge error cannot flush the whole log. */
  maxEntryChars?: number;
  /** Where entries go when the file cannot be written (default: stderr). */
  fallback?: (line: string) => void;
  now?: () => Date;
}

export const APP_LOG_FILE = 'app.log';

/**
 * The app log: `<dataDir>/app.log`, rotated at a size cap so it never fills a disk, every entry
 * redacted before it is written (secrets never reach the disk, see `redact`). Writes are
 * synchronous and small: entries stay in order and survive a crash right after them. Logging
 * never throws; when the file cannot be written (read-only disk, data folder path is a file) the
 * entry goes to stderr and `problem` says why, so Settings can show it.
 */
export class AppLog implements Required<Logger> {
  readonly path: string;
  private readonly maxBytes: number;
  private readonly files: number;
  private readonly maxEntryChars: number;
  private readonly fallback: (line: string) => void;
  private readonly now: () => Date;
  private size: number | null = null;
  private lastProblem: string | null = null;

  constructor(dataDir: string, options: AppLogOptions = {}) {
    this.path = join(dataDir, APP_LOG_FILE);
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.files = Math.max(1, options.files ?? 3);
    this.maxEntryChars = options.maxEntryChars ?? 16 * 1024;
    this.fallback = options.fallback ?? ((line) => process.stderr.write(line));
    this.now = options.now ?? (() => new Date());
  }

  /** Why the last write failed, or null when the log file is being written. */
  get problem(): string | null {
    return this.lastProblem;
  }

  info(message: string, meta?: LogMeta): void {
    this.write('INFO', message, meta);
  }

  warn(message: string, meta?: LogMeta): void {
    this.write('WARN', message, meta);
  }

  error(message: string, meta?: LogMeta): void {
    this.write('ERROR', message, meta);
  }

  /** The last `count` lines, oldest first, redacted again in case an older build wrote them. */
  tail(count: number): string[] {
    const lines: string[] = [];
    for (let index = 0; index < this.files && lines.length < count; index += 1) {
      const text = readIfThere(this.fileAt(index));
      if (text === null) continue;
      const fileLines = text.split('\n').filter((line) => line !== '');
      lines.unshift(...fileLines.slice(-(count - lines.length)));
    }
    return lines.map(redact);
  }

  private write(level: string, message: string, meta?: LogMeta): void {
    const details = meta && Object.keys(meta).length > 0 ? ` ${safeJson(redactValue(meta))}` : '';
    let entry = `${this.now().toISOString()} ${level} ${redact(message)}${details}`;
    if (entry.length > this.maxEntryChars) entry = `${entry.slice(0, this.maxEntryChars)}… [cut at ${this.maxEntryChars} characters]`;
    // Multi-line texts (stacks, Docker's output) become one entry per line, each marked as a continuation.
    const line = `${entry.replace(/\r?\n/g, '\n    ')}\n`;
    try {
      this.append(line);
      this.lastProblem = null;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      this.lastProblem = `${code}: cannot write ${this.path}${WHY[code] ? ` (${WHY[code]})` : ''}`;
      try {
        this.fallback(line);
      } catch {
        // Nowhere left to write to.
      }
    }
  }

  private append(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.size === null) {
      try {
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      } catch (error) {
        // mkdir says EEXIST when the data folder path is a file; name it as what it is.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        throw Object.assign(new Error(`${dirname(this.path)} is a file, not a folder`), { code: 'ENOTDIR' });
      }
      this.size = sizeOf(this.path);
    }
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    appendFileSync(this.path, line, { encoding: 'utf8', mode: 0o600 });
    this.size += bytes;
  }

  private rotate(): void {
    rmSync(this.fileAt(this.files - 1), { force: true });
    for (let index = this.files - 2; index >= 0; index -= 1) {
      try {
        renameSync(this.fileAt(index), this.fileAt(index + 1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    this.size = 0;
  }

  private fileAt(index: number): string {
    return index === 0 ? this.path : `${this.path}.${index}`;
  }
}

const WHY: Record<string, string> = {
  ENOTDIR: 'the data folder path is a file, not a folder',
  EACCES: 'no permission to write there',
  EPERM: 'no permission to write there',
  EROFS: 'the disk is read-only',
  ENOSPC: 'the disk is full',
  EISDIR: 'a folder stands where the log file should be',
};

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

function readIfThere(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '"[unserialisable]"';
  }
}
