import type { LogExcerpt } from '../../shared/schemas';

const MAX_LINE = 300;
const TRACEBACK_START = /^\s*Traceback \(most recent call last\):/;
/** `ModuleNotFoundError: No module named 'vllm'`, `torch.OutOfMemoryError: …`, `KeyError: 'x'`. */
const EXCEPTION_LINE = /^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)(?::|$)/;
/** The last line of a traceback: any exception name at column 0 (`SystemExit: 1`, `KeyboardInterrupt`). */
const TRACEBACK_END = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?::\s.*)?$/;
/**
 * Error-level lines of the loggers upstream uses: loguru (`… | ERROR    | mod:fn:12 - msg`), Python
 * logging (`ERROR:root:…`, `[ERROR] …`), Ray (`(raylet) … ERROR …`) and plain `Error: …`.
 */
const ERROR_LEVEL = /\|\s*(?:ERROR|CRITICAL)\s*\||^\s*(?:ERROR|CRITICAL|FATAL)\b|\[(?:ERROR|CRITICAL|FATAL)\]|^\s*(?:Error|Fatal):/;
const FRAME_LINE = /^\s*File ".*", line \d+/;

function clip(line: string): string {
  const plain = line.trimEnd();
  return plain.length > MAX_LINE ? `${plain.slice(0, MAX_LINE)}…` : plain;
}

/**
 * Picks the lines of a log tail that explain a failure: for each Python traceback its last frame
 * and its exception line, and error-level log lines; the newest `max` of those, oldest first. A log
 * without any falls back to its last lines, marked as not explaining (upstream's last lines are
 * its start-up banner, which explains nothing).
 */
export function pickExplainingLines(lines: readonly string[], max = 4): LogExcerpt {
  const picked: string[] = [];
  let inTraceback = false;
  let lastFrame: string | null = null;
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (TRACEBACK_START.test(line)) {
      inTraceback = true;
      lastFrame = null;
      continue;
    }
    if (inTraceback) {
      if (FRAME_LINE.test(line)) {
        lastFrame = line.trim();
        continue;
      }
      if (TRACEBACK_END.test(line) || EXCEPTION_LINE.test(line)) {
        if (lastFrame) picked.push(lastFrame);
        picked.push(line.trim());
        inTraceback = false;
        continue;
      }
      // Source lines under a frame are indented; anything else ends a traceback we cannot read.
      if (/^\s/.test(raw) || line === '') continue;
      inTraceback = false;
    }
    if (ERROR_LEVEL.test(line) || EXCEPTION_LINE.test(line)) picked.push(line.trim());
  }
  const unique = picked.filter((line, index) => picked.lastIndexOf(line) === index);
  if (unique.length > 0) return { lines: unique.slice(-max).map(clip), explains: true };
  return { lines: lines.filter((l) => l.trim() !== '').slice(-Math.min(max, 3)).map(clip), explains: false };
}
