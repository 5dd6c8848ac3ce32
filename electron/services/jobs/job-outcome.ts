import { RESULT_LINE_PREFIX, type JobResultData } from '../../shared/schemas-jobs';
import { redactPayload } from '../util/redact';

export interface JobTraceback {
  file: string;
  line: number;
  exception: string;
  text: string;
}

export interface JobFailureData {
  code: string;
  message: string;
  /** The same facts as data, for the renderer to word (see JobFailure in shared/schemas-jobs.ts). */
  params?: Record<string, string | number>;
  traceback: JobTraceback | null;
}

/** The candidate result lines of a run, kept while it streams (only the last of each kind counts). */
export class ResultCandidates {
  private resultLine: string | null = null;
  private lastOut: string | null = null;

  /** Every stdout line, raw (before redaction: the JSON must stay parseable; the parsed value is redacted). */
  seeOut(line: string): void {
    const trimmed = line.trim();
    if (trimmed.length === 0) return;
    if (trimmed.startsWith(RESULT_LINE_PREFIX.trim())) this.resultLine = trimmed;
    this.lastOut = trimmed;
  }

  /** The result, or null when the run printed none: the last AGENTSWARM_RESULT line, else a last JSON line with a numeric reward. */
  result(): JobResultData | null {
    const fromPrefix = this.resultLine !== null ? parseObject(this.resultLine.slice(RESULT_LINE_PREFIX.trim().length)) : null;
    if (fromPrefix) return toResult(fromPrefix);
    const fallback = this.lastOut !== null ? parseObject(this.lastOut) : null;
    if (fallback && typeof fallback.reward === 'number' && Number.isFinite(fallback.reward)) return toResult(fallback);
    return null;
  }

  /** A result line that was printed but is not a JSON object: named in the failure so the user can fix the print. */
  brokenResultLine(): string | null {
    if (this.resultLine === null) return null;
    return parseObject(this.resultLine.slice(RESULT_LINE_PREFIX.trim().length)) ? null : this.resultLine.slice(0, 200);
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function toResult(raw: Record<string, unknown>): JobResultData {
  // The result is stored in the history and sent to the UI: through the payload redactor like any payload.
  const safe = redactPayload(raw);
  const reward = typeof safe.reward === 'number' && Number.isFinite(safe.reward) ? safe.reward : null;
  const count = typeof safe.count === 'number' && Number.isInteger(safe.count) ? safe.count : null;
  const items = Array.isArray(safe.items) ? safe.items.slice(0, 50) : [];
  return { reward, count, items, raw: safe };
}

const FRAME = /^\s*File "(.+)", line (\d+)(?:, in (.+))?$/;

/**
 * Whether a traceback frame is the user's own code: not the standard library, not an installed
 * package (site-packages / dist-packages), not Python's frozen or generated code.
 */
export function isUserFrame(file: string): boolean {
  if (file.startsWith('<')) return false;
  const normal = file.replace(/\\/g, '/');
  if (/\/(?:site|dist)-packages\//.test(normal)) return false;
  if (/\/lib\/python\d+(?:\.\d+)?\//i.test(normal) || /\/Lib\//.test(normal)) return false;
  return true;
}

/**
 * The last Python traceback in the lines (the one that ended the run; chained exceptions print
 * theirs before it): the innermost frame of the user's code, its exception line and the text.
 */
export function parseTraceback(lines: readonly string[]): JobTraceback | null {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    if (lines[i]!.startsWith('Traceback (most recent call last):')) {
      start = i;
      break;
    }
  }
  if (start < 0) return null;
  const frames: { file: string; line: number }[] = [];
  let exception = '';
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i += 1) {
    const line = lines[i]!;
    const frame = FRAME.exec(line);
    if (frame) {
      frames.push({ file: frame[1]!, line: Number(frame[2]) });
      continue;
    }
    // Frame source lines and carets are indented; the first unindented line is the exception.
    if (line.length > 0 && !/^\s/.test(line)) {
      exception = line.trim();
      end = i + 1;
      break;
    }
  }
  if (frames.length === 0) return null;
  const user = [...frames].reverse().find((f) => isUserFrame(f.file)) ?? frames[frames.length - 1]!;
  const block = lines.slice(start, end);
  // Long recursions print thousands of frames: the head and the tail say what happened.
  const text = block.length > 80 ? [...block.slice(0, 20), `… ${block.length - 60} lines …`, ...block.slice(-40)].join('\n') : block.join('\n');
  return { file: user.file, line: user.line, exception: exception || '(no exception line)', text };
}

export interface RunEnd {
  exitCode: number | null;
  signal: string | null;
  /** stdout and stderr lines (redacted), in order, the tail the runner kept. */
  lines: readonly string[];
  result: JobResultData | null;
  brokenResultLine: string | null;
  swarmUrl: string | null;
  python: string;
  installHint: string;
}

const NO_AJET = /ModuleNotFoundError: No module named '?ajet(?:[.'\s]|$)/;
const SWARM_DOWN = /Unable to connect to swarm server|ENGINE\.CANNOT_CONNECT/i;
const REFUSED = /Connection refused|ConnectionRefusedError|Failed to establish a new connection|\[Errno 111\]|ConnectError/i;
const PORT_TAKEN = /Address already in use|\[Errno 98\]|\[Errno 48\]|EADDRINUSE/i;

/**
 * Why a run that was not cancelled failed, in words the user can act on; null when it succeeded
 * (exit 0 with a result). Known causes are looked for in the output first (a missing `ajet`, an
 * unreachable swarm server, a taken port), then a traceback, then a missing result line.
 */
export function classifyEnd(end: RunEnd): JobFailureData | null {
  const traceback = parseTraceback(end.lines);
  const text = end.lines.join('\n');
  if (end.exitCode === 0 && end.result) return null;
  if (NO_AJET.test(text)) {
    return {
      code: 'AJET_NOT_INSTALLED',
      message: `AgentJet's client (the "ajet" package) is not installed in ${end.python}. ${end.installHint}`,
      params: { reason: 'ajet-missing', python: end.python },
      traceback,
    };
  }
  // A refused connection counts only when the output names the swarm server's address (it may be the LLM's).
  if (SWARM_DOWN.test(text) || (end.swarmUrl !== null && REFUSED.test(text) && text.includes(hostPort(end.swarmUrl)))) {
    const where = end.swarmUrl ?? 'the swarm server';
    return {
      code: 'SWARM_UNREACHABLE',
      message: `The script could not reach the swarm server at ${where}. Start the server (or the dry run) and, for a remote server, bring its tunnel up; then run again.`,
      params: { reason: 'swarm-down', url: end.swarmUrl ?? '—' },
      traceback,
    };
  }
  if (PORT_TAKEN.test(text)) {
    const portMatch = /(?:port|:)\s?(\d{2,5})\b[^\n]*Address already in use|Address already in use[^\n]*?(\d{2,5})/i.exec(text);
    const port = portMatch?.[1] ?? portMatch?.[2];
    return {
      code: 'PORT_IN_USE',
      message: `The script tried to listen on a port${port ? ` (${port})` : ''} that another program already uses ("Address already in use"). Stop that program or choose another port, then run again.`,
      params: { reason: 'port-taken', port: port ?? '?' },
      traceback,
    };
  }
  if (end.exitCode !== 0 || end.signal !== null) {
    const how = end.signal !== null ? `was killed by ${end.signal}${end.signal === 'SIGKILL' ? ' (out of memory?)' : ''}` : `exited with code ${end.exitCode ?? 'unknown'}`;
    const ending: Record<string, string | number> = end.signal !== null ? { signal: end.signal } : { exitCode: end.exitCode ?? '?' };
    if (traceback) {
      return {
        code: 'JOB_CRASHED',
        message: `The script ${how}: ${traceback.exception} at ${traceback.file}, line ${traceback.line}. Fix it there, then run again.`,
        params: { reason: 'crashed-traceback', ...ending, exception: traceback.exception, file: traceback.file, line: traceback.line },
        traceback,
      };
    }
    const last = [...end.lines].reverse().find((l) => l.trim().length > 0)?.trim().slice(0, 300);
    return {
      code: 'JOB_CRASHED',
      message: `The script ${how}.${last ? ` Its last line: ${last}` : ' It printed nothing.'} See the log for more.`,
      params: last ? { reason: 'crashed-output', ...ending, lastLine: last } : { reason: 'crashed-silent', ...ending },
      traceback: null,
    };
  }
  const broken = end.brokenResultLine;
  return {
    code: 'JOB_RESULT_MISSING',
    params: broken ? { reason: 'result-broken', resultLine: broken } : { reason: 'result-missing' },
    message: broken
      ? `The script's result line is not a JSON object: ${broken}. Print exactly one line ${RESULT_LINE_PREFIX}{"reward": <number>} on stdout (json.dumps of a dict).`
      : `The script ended without printing its result. At the end, print one line ${RESULT_LINE_PREFIX}{"reward": <number>} on stdout (print("${RESULT_LINE_PREFIX.trim()}", json.dumps({"reward": reward}))).`,
    traceback,
  };
}

function hostPort(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
