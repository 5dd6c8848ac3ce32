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
/**
 * A quiet output is read less often, up to every 5 polls (each read is an SSH command on the login node, a shell and
 * a `tail`: 60 a minute per followed job at a fixed 1 s); the first new line brings the pace back to `pollMs`.
 */
const IDLE_FACTOR = 5;

/** A path as a shell word: `~/x` keeps $HOME expanding on the host. */
export function pathWord(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellQuote(path.slice(2))}` : shellQuote(path);
}

/**
 * One poll: `@@follow - <size>`, then at most `maxLines` lines from byte `offset`. A queued job has no file yet:
 * size 0. It asks Slurm nothing: whether the job still writes comes from the engine's shared queue answer
 * (`jobEnded` in followJobOutput), not from an `squeue -j` a second (177 of the 201 controller requests a minute
 * one watched job cost, measured with sdiag).
 */
export function followChunkScript(path: string, offset: number, maxLines: number): string {
  return [
    `f=${pathWord(path)}`,
    'if [ -f "$f" ]; then n=$(wc -c <"$f" | tr -d \' \'); else n=0; fi',
    'echo "@@follow - $n"',
    `[ -f "$f" ] && tail -c +${Math.floor(offset) + 1} "$f" | head -n ${Math.floor(maxLines)}`,
    'exit 0',
  ].join('\n');
}

function lineOffsetScript(path: string, lines: number): string {
  return `f=${pathWord(path)}\n[ -f "$f" ] && head -n ${Math.floor(lines)} "$f" | wc -c | tr -d ' '\nexit 0`;
}

/**
 * Follows job `jobId`'s output until the job has ended and everything is read, or `signal` aborts.
 * Complete lines only; a last line without a newline is delivered once the job has ended. `jobEnded` is asked
 * before each read (so "ended" means the output is complete); the engine answers it from its queue poll's newest
 * answer, so following costs the controller nothing of its own. A job Slurm no longer lists has ended.
 */
export function followJobOutput(
  run: (script: string) => Promise<HostExecResult>,
  jobEnded: () => Promise<boolean>,
  path: string,
  options: FollowLogOptions,
  pollMs = POLL_MS,
): Promise<void> {
  return followFileByOffset(
    run,
    {
      chunk: (offset, maxLines) => followChunkScript(path, offset, maxLines),
      lineOffset: (lines) => lineOffsetScript(path, lines),
      ended: () => false,
      askEnded: jobEnded,
    },
    options,
    pollMs,
    pollMs * IDLE_FACTOR,
  );
}
