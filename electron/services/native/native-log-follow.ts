import type { EngineLogLine, FollowLogOptions, HostExecResult } from '../engines/container-engine';
import { followChunkScript, lineOffsetScript } from './native-scripts';

/**
 * server.log has no timestamps, so a native line's `timestamp` (the resume cursor of followLog) is
 * its line number in server.log: `line:000000000042`. Zero-padded, so cursors also compare as
 * strings. A cursor in another form (an RFC 3339 time) cannot be placed in the file: from the start.
 */
const LINE_CURSOR = /^line:(\d{1,15})$/;

export function lineCursor(line: number): string {
  return `line:${String(line).padStart(12, '0')}`;
}

export function lineOfCursor(cursor: string | undefined): number | null {
  const match = cursor === undefined ? null : LINE_CURSOR.exec(cursor);
  return match ? Number(match[1]) : null;
}

/** At most this many lines per poll: one batch, and the next poll follows at once when it was full. */
const MAX_LINES_PER_POLL = 5000;
const POLL_MS = 500;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function asLines(text: string, firstLine: number): EngineLogLine[] {
  return text.split('\n').map((line, i) => ({ stream: 'stdout' as const, timestamp: lineCursor(firstLine + i), text: line.replace(/\r$/, '') }));
}

/** The two scripts a file follow needs on its host, and when its writer counts as ended. */
export interface FileFollowScripts {
  /** One poll: `@@follow <alive> <size>`, then at most `maxLines` lines from byte `offset` on. */
  chunk(offset: number, maxLines: number): string;
  /** Prints the byte offset where line `lines + 1` starts (to resume after `lines` seen lines). */
  lineOffset(lines: number): string;
  /** The poll's `<alive>` word says the writer has ended (its output is complete). */
  ended(alive: string | undefined): boolean;
  /**
   * For a writer the host script cannot ask about cheaply (a Slurm job: an `squeue` per poll costs the cluster's
   * controller): asked before each read instead of `ended`, so an answer "ended" still means the read is complete.
   */
  askEnded?: () => Promise<boolean>;
}

/**
 * Follows a file without timestamps on an engine's host by polling byte offsets (`tail -c +N | head
 * -n`), so each poll costs what is new, not the whole file. Complete lines only; a last line without
 * a newline is delivered once the writer has ended. Resolves when it has ended and everything is
 * read, or when `signal` aborts. Every line is `stdout` (the files hold both streams). While nothing new comes, the
 * pause doubles up to `maxPollMs` (default `pollMs`: a fixed pace) and is back to `pollMs` with the next line.
 */
export async function followFileByOffset(
  run: (script: string) => Promise<HostExecResult>,
  scripts: FileFollowScripts,
  options: FollowLogOptions,
  pollMs = POLL_MS,
  maxPollMs = pollMs,
): Promise<void> {
  const { signal, onLines } = options;
  // Each line has its own cursor: the line at it was seen unless the caller says none was (skipAtSince 0).
  const since = lineOfCursor(options.sinceTimestamp);
  let line = since === null ? 0 : options.skipAtSince === 0 ? Math.max(0, since - 1) : since;
  let offset = 0;
  if (line > 0) offset = Number((await run(scripts.lineOffset(line))).stdout.trim()) || 0;
  let pause = pollMs;
  while (!signal.aborted) {
    const endedBeforeRead = scripts.askEnded ? await scripts.askEnded() : null;
    if (signal.aborted) return;
    const { stdout } = await run(scripts.chunk(offset, MAX_LINES_PER_POLL));
    if (signal.aborted) return;
    const headerEnd = stdout.indexOf('\n');
    const [, alive, sizeText] = (headerEnd < 0 ? stdout : stdout.slice(0, headerEnd)).split(' ');
    const size = Number(sizeText) || 0;
    const data = headerEnd < 0 ? '' : stdout.slice(headerEnd + 1);
    const end = data.lastIndexOf('\n');
    let count = 0;
    if (end >= 0) {
      const complete = data.slice(0, end);
      const lines = asLines(complete, line + 1);
      count = lines.length;
      onLines(lines);
      line += count;
      offset += Buffer.byteLength(complete, 'utf8') + 1;
    }
    if (endedBeforeRead ?? scripts.ended(alive)) {
      const rest = end >= 0 ? data.slice(end + 1) : data;
      if (offset + Buffer.byteLength(rest, 'utf8') >= size) {
        if (rest !== '') onLines(asLines(rest, line + 1));
        return;
      }
    }
    pause = count > 0 ? pollMs : Math.min(maxPollMs, pause * 2);
    if (count < MAX_LINES_PER_POLL) await sleep(count > 0 ? pollMs : pause, signal);
  }
}

/** A native run's server.log (stdout and stderr share it); `0` from the poll means the server has ended. */
export function followNativeLog(
  run: (script: string) => Promise<HostExecResult>,
  name: string,
  options: FollowLogOptions,
): Promise<void> {
  return followFileByOffset(
    run,
    {
      chunk: (offset, maxLines) => followChunkScript(name, offset, maxLines),
      lineOffset: (lines) => lineOffsetScript(name, lines),
      ended: (alive) => alive === '0',
    },
    options,
  );
}
