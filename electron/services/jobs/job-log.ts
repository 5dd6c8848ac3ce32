import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

export type LogStream = 'out' | 'err' | 'app';

export interface LogLine {
  n: number;
  stream: LogStream;
  text: string;
}

/** Lines kept in memory per running job; older ones are read back from the file. */
export const DEFAULT_BUFFER_LINES = 5000;
/** A longer line (a progress bar without newlines, a dumped tensor) is cut: the log stays readable. */
export const MAX_LINE_CHARS = 16 * 1024;

/**
 * The file format, one line per output line: `out <text>`, `err <text>` or `app <text>`. The prefix
 * is what `jobs:log` reads back for old runs; a person reading the file sees which stream it was.
 */
export function formatLine(stream: LogStream, text: string): string {
  return `${stream} ${text}\n`;
}

export function parseLine(raw: string, n: number): LogLine {
  const stream = raw.slice(0, 3);
  if ((stream === 'out' || stream === 'err' || stream === 'app') && raw[3] === ' ') return { n, stream, text: raw.slice(4) };
  // Not ours (a file edited by hand): shown as it is.
  return { n, stream: 'out', text: raw };
}

/**
 * One run's log: every line (already redacted by the caller) appended to `<data>/jobs/<id>.log`, the
 * newest `bufferLines` kept in memory for the live view, and windows by line number from either.
 */
export class JobLog {
  private readonly buffer: LogLine[] = [];
  private total = 0;
  private file: WriteStream | null;
  private closed: Promise<void> | null = null;

  constructor(
    readonly path: string,
    private readonly bufferLines = DEFAULT_BUFFER_LINES,
    onFileError: (error: Error) => void = () => undefined,
  ) {
    this.file = createWriteStream(path, { flags: 'a', mode: 0o600 });
    // A full disk must not end the run: the memory buffer still serves the live view.
    this.file.on('error', (error) => {
      onFileError(error);
      this.file = null;
    });
  }

  get lines(): number {
    return this.total;
  }

  append(stream: LogStream, text: string): void {
    const cut = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… [line cut]` : text;
    this.buffer.push({ n: this.total, stream, text: cut });
    this.total += 1;
    if (this.buffer.length > this.bufferLines) this.buffer.splice(0, this.buffer.length - this.bufferLines);
    this.file?.write(formatLine(stream, cut));
  }

  /** The texts in memory (stdout and stderr), oldest first: what the failure classification reads. */
  tail(streams: readonly LogStream[] = ['out', 'err']): string[] {
    return this.buffer.filter((l) => streams.includes(l.stream)).map((l) => l.text);
  }

  /** Lines `from`…`from + limit`: from memory when they are still there, else from the file. */
  async window(from: number, limit: number): Promise<LogLine[]> {
    const first = this.buffer[0]?.n ?? this.total;
    if (from >= first) return this.buffer.slice(from - first, from - first + limit);
    await this.flush();
    return readLogWindow(this.path, from, limit);
  }

  /** Resolves once everything appended so far is in the file. */
  private flush(): Promise<void> {
    const file = this.file;
    if (!file || file.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => file.write('', () => resolve()));
  }

  close(): Promise<void> {
    this.closed ??= new Promise((resolve) => {
      const file = this.file;
      this.file = null;
      if (!file) return resolve();
      file.end(() => resolve());
      file.once('error', () => resolve());
    });
    return this.closed;
  }
}

/** Lines of a log file by number (an ended run's, or lines older than a running job's buffer). */
export async function readLogWindow(path: string, from: number, limit: number): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  const input = createReadStream(path, { encoding: 'utf8' });
  const reader = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const raw of reader) {
      if (n >= from) lines.push(parseLine(raw, n));
      n += 1;
      if (lines.length >= limit) break;
    }
  } finally {
    reader.close();
    input.destroy();
  }
  return lines;
}
