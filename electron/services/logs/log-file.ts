import { createWriteStream } from 'node:fs';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LogLine } from '../../shared/schemas-profiles';
import type { EngineLogLine } from '../engines/container-engine';
import { LineIndex, LineList } from './line-index';
import type { LinePredicate } from './log-filter';

/** Lines kept parsed in memory for fast tails and `logs:appended`. */
export const RING_LINES = 5000;
/** Bytes read at once while scanning the file (index at open, filters, export). */
const SCAN_BYTES = 4 * 1024 * 1024;
/** Filters whose matching lines are remembered per log (the search box's last few). */
const FILTER_CACHES = 4;

/** Where a follow resumes: the newest timestamp stored, and how many lines carry it. */
export interface LogCursor {
  timestamp: string;
  linesAtTimestamp: number;
}

/**
 * Stored format, one line per log line: `o` or `e` (stream), tab, Docker's timestamp (empty when
 * unknown), tab, the text. Text never holds a newline (lines are split on it), so the file is its
 * own index and its own cursor: the last line's timestamp is where a follow resumes, so the cursor
 * can never disagree with what was stored (no separate cursor file to be stale after a crash).
 */
function encode(line: EngineLogLine): string {
  return `${line.stream === 'stderr' ? 'e' : 'o'}\t${line.timestamp ?? ''}\t${line.text}\n`;
}

/**
 * A stored cursor is Docker's RFC 3339 time, or (native servers, whose log file has no times) a
 * line cursor like `line:000000000042`: only a time is shown as one.
 */
export function timeOfCursor(cursor: string | null | undefined): string | null {
  return cursor && /^\d{4}-\d\d-\d\dT/.test(cursor) ? cursor : null;
}

function decode(n: number, raw: string): LogLine {
  const first = raw.indexOf('\t');
  const second = raw.indexOf('\t', first + 1);
  const time = raw.slice(first + 1, second);
  return { n, stream: raw.charCodeAt(0) === 101 ? 'stderr' : 'stdout', time: timeOfCursor(time), text: raw.slice(second + 1) };
}

interface FilterCache {
  key: string;
  matches: LineList;
  scanned: number;
  /** The scan running on this cache, if any: `scanned` moves only once its matches are in. */
  pending: Promise<void> | null;
}

/**
 * One container's stored log: an append-only file, a line index (offsets and streams in typed
 * arrays), the newest lines parsed in a ring, and the matching lines of recent filters. Appends
 * are serialised; reads see only lines already written.
 */
export class LogFile {
  private readonly ring: LogLine[] = [];
  private caches: FilterCache[] = [];
  private chain: Promise<void> = Promise.resolve();
  cursor: LogCursor | null = null;

  private constructor(
    readonly path: string,
    private handle: FileHandle,
    private readonly index: LineIndex,
  ) {}

  /** Opens (or creates) the file and indexes it; a last line cut short by a crash is dropped. */
  static async open(path: string): Promise<LogFile> {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, 'a+', 0o600);
    const index = new LineIndex();
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(SCAN_BYTES, Math.max(1, size)));
    let position = 0;
    while (position < size) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - position), position);
      if (bytesRead === 0) break;
      let start = 0;
      for (let newline = buffer.indexOf(10, 0); newline >= 0 && newline < bytesRead; newline = buffer.indexOf(10, start)) {
        index.add(newline + 1 - start, buffer[start] === 101);
        start = newline + 1;
      }
      // A line longer than the buffer would never finish: grow past it (rare, long single lines).
      if (start === 0 && bytesRead === buffer.length) throw new Error(`a stored log line is longer than ${SCAN_BYTES} bytes: ${path}`);
      position += start === 0 ? bytesRead : start;
      if (start === 0) break;
    }
    if (index.bytes < size) await handle.truncate(index.bytes);
    const file = new LogFile(path, handle, index);
    await file.loadRing();
    return file;
  }

  get total(): number {
    return this.index.count;
  }

  /** Appends lines in order (serialised with other appends); resolves once they are written. */
  append(lines: EngineLogLine[]): Promise<void> {
    const run = this.chain.then(() => this.write(lines));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async write(lines: EngineLogLine[]): Promise<void> {
    if (lines.length === 0) return;
    const encoded = lines.map(encode);
    const joined = encoded.join('');
    const buffer = Buffer.from(joined, 'utf8');
    await this.handle.write(buffer, 0, buffer.length, this.index.bytes);
    // All ASCII (the usual log): characters are bytes, no second encoding per line.
    const ascii = buffer.length === joined.length;
    for (let i = 0; i < lines.length; i += 1) {
      const line = lines[i]!;
      const n = this.index.count;
      this.index.add(ascii ? encoded[i]!.length : Buffer.byteLength(encoded[i]!, 'utf8'), line.stream === 'stderr');
      this.ring.push({ n, stream: line.stream, time: timeOfCursor(line.timestamp), text: line.text });
    }
    if (this.ring.length > RING_LINES * 1.2) this.ring.splice(0, this.ring.length - RING_LINES);
    this.advanceCursor(lines);
  }

  /** The newest timestamp among `lines` (in order) and how many lines carry it, counting earlier batches. */
  private advanceCursor(lines: readonly { timestamp?: string | null; time?: string | null }[]): void {
    let last: string | null = null;
    let count = 0;
    for (let i = lines.length - 1; i >= 0; i -= 1) {
      const stamp = lines[i]!.timestamp ?? lines[i]!.time ?? null;
      if (!stamp) continue;
      if (last === null) last = stamp;
      if (stamp !== last) break;
      count += 1;
    }
    if (last === null) return;
    // Every line of this batch at `last` was counted; earlier batches may end at the same time.
    const allAtLast = lines.every((line) => !(line.timestamp ?? line.time) || (line.timestamp ?? line.time) === last);
    const before = allAtLast && this.cursor?.timestamp === last ? this.cursor.linesAtTimestamp : 0;
    this.cursor = { timestamp: last, linesAtTimestamp: before + count };
  }

  private async loadRing(): Promise<void> {
    const from = Math.max(0, this.total - RING_LINES);
    const lines = await this.readRange(from, this.total);
    this.ring.length = 0;
    this.ring.push(...lines);
    this.cursor = null;
    this.advanceCursor(lines);
  }

  /** Lines `from` (inclusive) to `to` (exclusive) by line number, from the ring when it has them. */
  async readRange(from: number, to: number): Promise<LogLine[]> {
    to = Math.min(to, this.total);
    if (from >= to) return [];
    const ringStart = this.ring.length > 0 ? this.ring[0]!.n : Number.POSITIVE_INFINITY;
    if (from >= ringStart) return this.ring.slice(from - ringStart, to - ringStart);
    const start = this.index.start(from);
    const length = this.index.start(to) - start;
    const buffer = Buffer.alloc(length);
    await this.handle.read(buffer, 0, length, start);
    const text = buffer.toString('utf8');
    const out: LogLine[] = [];
    let offset = 0;
    for (let n = from; n < to; n += 1) {
      const end = text.indexOf('\n', offset);
      out.push(decode(n, text.slice(offset, end)));
      offset = end + 1;
    }
    return out;
  }

  /** Calls `visit` with every stored line from `from`, block by block (a few MB each). */
  private async scan(from: number, visit: (lines: LogLine[]) => Promise<void> | void): Promise<void> {
    const total = this.total;
    let n = from;
    while (n < total) {
      let to = n + 1;
      // As many whole lines as fit in one block (at least one).
      let low = n + 1;
      let high = total;
      while (low <= high) {
        const mid = (low + high) >> 1;
        if (this.index.start(mid) - this.index.start(n) <= SCAN_BYTES) {
          to = mid;
          low = mid + 1;
        } else high = mid - 1;
      }
      await visit(await this.readRange(n, to));
      n = to;
    }
  }

  /** How many lines pass `predicate`, and the line numbers of the matching ones at `[from, from+count)`. */
  async filtered(predicate: LinePredicate, from: number, count: number): Promise<{ matching: number; lines: number[] }> {
    if (predicate.textFree && predicate.stream === 'all') {
      const lines: number[] = [];
      for (let n = from; n < Math.min(this.total, from + count); n += 1) lines.push(n);
      return { matching: this.total, lines };
    }
    const cache = await this.matchesOf(predicate);
    const lines: number[] = [];
    for (let i = from; i < Math.min(cache.matches.count, from + count); i += 1) lines.push(cache.matches.at(i));
    return { matching: cache.matches.count, lines };
  }

  private async matchesOf(predicate: LinePredicate): Promise<FilterCache> {
    let cache = this.caches.find((c) => c.key === predicate.key);
    if (!cache) {
      cache = { key: predicate.key, matches: new LineList(), scanned: 0, pending: null };
      this.caches = [cache, ...this.caches].slice(0, FILTER_CACHES);
    }
    const total = this.total;
    const wantStream = (n: number) => predicate.stream === 'all' || (predicate.stream === 'stderr') === this.index.isStderr(n);
    if (predicate.textFree) {
      for (let n = cache.scanned; n < total; n += 1) if (wantStream(n)) cache.matches.push(n);
    } else {
      const target = cache;
      // Two reads of one filter (two windows, or typing in the search box): the second waits for the
      // first's scan, so it never sees `scanned` ahead of `matches`; a scan that fails moves nothing.
      while (target.pending) await target.pending.catch(() => undefined);
      const start = target.scanned;
      if (start >= total) return target;
      const scan = (async () => {
        const found: number[] = [];
        await this.scan(start, (lines) => {
          for (const line of lines) if (line.n < total && wantStream(line.n) && predicate.matchesText(line.text)) found.push(line.n);
        });
        for (const n of found) target.matches.push(n);
        target.scanned = total;
      })();
      target.pending = scan.finally(() => {
        target.pending = null;
      });
      await target.pending;
      return target;
    }
    cache.scanned = total;
    return cache;
  }

  /** Writes the whole log as plain text (`<time> [stderr] <text>`); says how many lines and bytes. */
  async exportTo(path: string): Promise<{ lines: number; bytes: number }> {
    const out = createWriteStream(path, { mode: 0o600 });
    let bytes = 0;
    let lines = 0;
    await this.scan(0, async (block) => {
      lines += block.length;
      const text = block.map((line) => `${line.time ?? ''}${line.time ? ' ' : ''}${line.stream === 'stderr' ? '[stderr] ' : ''}${line.text}\n`).join('');
      bytes += Buffer.byteLength(text, 'utf8');
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    });
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return { lines, bytes };
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle.close().catch(() => undefined);
  }

  async remove(): Promise<void> {
    await this.close();
    await rm(this.path, { force: true });
  }
}
