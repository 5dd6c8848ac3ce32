import { followFileByOffset } from '../../native/native-log-follow';
import { shellQuote, type FollowLogOptions, type HostExecResult } from '../container-engine';

/**
 * Following a job's output file (`out/<id>.out`, stdout and stderr together) through the login node.
 * The file has no per-line times (only the job script's own `[agentswarm]` lines carry one), so, as for
 * native runs, a line's `timestamp` (followLog's resume cursor) is its line number: `line:000000000042`
 * (native-log-follow.ts's form, so the log service resumes both the same way). Each poll reads from a
 * byte offset, so it costs what is new, not the whole file.
 */

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

/**
 * Follows job `jobId`'s output until the job has ended and everything is read, or `signal` aborts.
 * Complete lines only; a last line without a newline is delivered once the job has ended.
 */
export function followJobOutput(
  run: (script: string) => Promise<HostExecResult>,
  jobId: string,
  path: string,
  options: FollowLogOptions,
  pollMs = POLL_MS,
): Promise<void> {
  return followFileByOffset(
    run,
    {
      chunk: (offset, maxLines) => followChunkScript(jobId, path, offset, maxLines),
      lineOffset: (lines) => lineOffsetScript(path, lines),
      // Anything but "1": ended, or squeue no longer knows the job.
      ended: (alive) => alive !== '1',
    },
    options,
    pollMs,
  );
}
