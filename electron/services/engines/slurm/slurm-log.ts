import { lineCursor, lineOfCursor } from '../../native/native-log-follow';
import { shellQuote, type EngineLogLine, type FollowLogOptions, type HostExecResult } from '../container-engine';

/**
 * Following a job's output file (`out/<id>.out`, stdout and stderr together) through the login node.
 * The file has no per-line times (only the job script's own `[agentswarm]` lines carry one), so, as for
 * native runs, a line's `timestamp` (followLog's resume cursor) is its line number: `line:000000000042`
 * (native-log-follow.ts's form, so the log service resumes both the same way). Each poll reads from a
 * byte offset, so it costs what is new, not the whole file.
 */

/** At most this many lines per poll; the next poll follows at once when it was full. */
const MAX_LINES_PER_POLL = 5000;
const POLL_MS = 1000;
/** squeue states in which the job may still write to its output. */
const ACTIVE = 'PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|RESIZING|SIGNALING|STAGE_OUT|STOPPED|REQUEUED|REQUEUE_HOLD|REQUEUE_FED|RESV_DEL_HOLD';

/** A path as a shell word: `~/x` keeps $HOME expanding on the host. */
export function pathWord(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellQuote(path.slice(2))}` : shellQuote(path);
}

/**
 * One poll: `@@follow <alive> <size>` (alive asked before reading, so an ended job's output is
 * complete), then at most `maxLines` lines from byte `offset`. A queued job has no file yet: size 0.
 * Plain `squeue -j` (not --json, which ignores -j on 22.05); a forgotten job makes it fail: not alive.
 */
export function followChunkScript(jobId: string, path: string, offset: number, maxLines: number): string {
  return [
    `f=${pathWord(path)}`,
    `s=$(squeue -h -j ${jobId} -o %T 2>/dev/null)`,
    `case "$s" in ${ACTIVE}) a=1 ;; *) a=0 ;; esac`,
    'if [ -f "$f" ]; then n=$(wc -c <"$f" | tr -d \' \'); else n=0; fi',
    'echo "@@follow $a $n"',
    `[ -f "$f" ] && tail -c +${Math.floor(offset) + 1} "$f" | head -n ${Math.floor(maxLines)}`,
    'exit 0',
  ].join('\n');
}

function lineOffsetScript(path: string, lines: number): string {
  return `f=${pathWord(path)}\n[ -f "$f" ] && head -n ${Math.floor(lines)} "$f" | wc -c | tr -d ' '\nexit 0`;
}

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
 * Follows job `jobId`'s output until the job has ended and everything is read, or `signal` aborts.
 * Complete lines only; a last line without a newline is delivered once the job has ended.
 */
export async function followJobOutput(
  run: (script: string) => Promise<HostExecResult>,
  jobId: string,
  path: string,
  options: FollowLogOptions,
  pollMs = POLL_MS,
): Promise<void> {
  const { signal, onLines } = options;
  // Each line has its own cursor: the line at it was seen unless the caller says none was (skipAtSince 0).
  const since = lineOfCursor(options.sinceTimestamp);
  let line = since === null ? 0 : options.skipAtSince === 0 ? Math.max(0, since - 1) : since;
  let offset = 0;
  if (line > 0) offset = Number((await run(lineOffsetScript(path, line))).stdout.trim()) || 0;
  while (!signal.aborted) {
    const { stdout } = await run(followChunkScript(jobId, path, offset, MAX_LINES_PER_POLL));
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
    if (alive !== '1') {
      const rest = end >= 0 ? data.slice(end + 1) : data;
      if (offset + Buffer.byteLength(rest, 'utf8') >= size) {
        if (rest !== '') onLines(asLines(rest, line + 1));
        return;
      }
    }
    if (count < MAX_LINES_PER_POLL) await sleep(pollMs, signal);
  }
}
