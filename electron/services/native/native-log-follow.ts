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

/**
 * Follows a native run's server.log by polling byte offsets (`tail -c +N | head -n`), so each poll
 * costs what is new, not the whole file. Complete lines only; a last line without a newline is
 * delivered once the server has ended. Resolves when the server has ended and everything is read,
 * or when `signal` aborts. stdout and stderr share server.log: every line is `stdout`.
 */
export async function followNativeLog(
  run: (script: string) => Promise<HostExecResult>,
  name: string,
  options: FollowLogOptions,
): Promise<void> {
  const { signal, onLines } = options;
  // Each line has its own cursor: the line at it was seen unless the caller says none was (skipAtSince 0).
  const since = lineOfCursor(options.sinceTimestamp);
  let line = since === null ? 0 : options.skipAtSince === 0 ? Math.max(0, since - 1) : since;
  let offset = 0;
  if (line > 0) offset = Number((await run(lineOffsetScript(name, line))).stdout.trim()) || 0;
  while (!signal.aborted) {
    const { stdout } = await run(followChunkScript(name, offset, MAX_LINES_PER_POLL));
    if (signal.aborted) return;
    const headerEnd = stdout.indexOf('\n');
    const [, alive, sizeText] = (headerEnd < 0 ? stdout : stdout.slice(0, headerEnd)).split(' ');
    const size = Number(sizeText) || 0;
    const data = headerEnd < 0 ? '' : stdout.slice(headerEnd + 1);
    const end = data.lastIndexOf('\n');
    const complete = end >= 0 ? data.slice(0, end) : null;
    let count = 0;
    if (complete !== null) {
      const lines = asLines(complete, line + 1);
      count = lines.length;
      onLines(lines);
      line += count;
      offset += Buffer.byteLength(complete, 'utf8') + 1;
    }
    if (alive === '0') {
      const rest = end >= 0 ? data.slice(end + 1) : data;
      if (offset + Buffer.byteLength(rest, 'utf8') >= size) {
        if (rest !== '') onLines(asLines(rest, line + 1));
        return;
      }
    }
    if (count < MAX_LINES_PER_POLL) await sleep(POLL_MS, signal);
  }
}
