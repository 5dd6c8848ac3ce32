import { randomBytes } from 'node:crypto';
import { AppError } from '../../shared/errors';
import { shellQuote } from '../engines/container-engine';

/**
 * POSIX sh scripts that run a native swarm server (`ajet-swarm start` without Docker) on an engine's
 * host, all built here as pure functions so their quoting is unit-tested. Layout on the host:
 *
 *   ~/.agentswarm/run/<name>/spec.json   labels, port, cmd, activate line, env NAMES, created time
 *                           launch.sh    the wrapper: activates, runs cmd, records pid and exit code
 *                           env          `export NAME='value'` lines, mode 0600, deleted by launch.sh on start
 *                           server.log   stdout+stderr of the server (appended)
 *                           pid          the server's pid; pidstart: its start time (/proc stat field 22)
 *                           started      "<epoch s> <server.log size at start>"; exit: "<code> <epoch s>"
 *
 * Secret values never appear in a script (scripts are argv of `sh -c`, visible in ps): they go to
 * the env file through stdin.
 */

/** Names of run directories (and so of native containers): no slash, no leading dot, no quoting surprises. */
const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Exit codes of our scripts that mean something (others are failures of the shell itself). */
export const EXIT = {
  notFound: 44,
  notInstalled: 43,
  exists: 45,
  running: 46,
  didNotAppear: 47,
  noHome: 48,
} as const;

export function assertRunName(name: string): string {
  if (!RUN_NAME.test(name)) {
    throw new AppError('VALIDATION_FAILED', `"${name}" cannot name a native swarm server: use letters, digits, ".", "_" or "-" (at most 100).`);
  }
  return name;
}

/**
 * Where a native run lives on its host, as a user would type it (for "Show the command" and help
 * texts): the run directory of container `name`, its log, pid and exit files.
 */
export function nativeRunPaths(name: string): { dir: string; log: string; pid: string; exit: string } {
  const dir = `~/.agentswarm/run/${assertRunName(name)}`;
  return { dir, log: `${dir}/server.log`, pid: `${dir}/pid`, exit: `${dir}/exit` };
}

/** What create() stores on the host; secrets are in `env`, never here. */
export interface NativeRunSpec {
  version: 1;
  name: string;
  labels: Record<string, string>;
  port: number | null;
  cmd: string[];
  activate: string | null;
  /** Names of the env variables given to the server; their values went to the env file. */
  envNames: string[];
  /** The process that counts as the server must mention this in its command line (pid reuse guard). */
  marker: string;
  createdAt: string;
}

/** The run directory as a shell word: $HOME expands on the host, the name is quoted. */
function runDir(name: string): string {
  return `"$HOME"/.agentswarm/run/${shellQuote(assertRunName(name))}`;
}

/**
 * `alive <dir>`: true while the pid file names a live process that is still this server: kill -0
 * answers, its command line mentions the marker, and (where /proc exists) its start time is the one
 * recorded at launch. A reused pid (another process after a reboot or wrap-around) fails the check,
 * so it is neither reported running nor signalled.
 */
const ALIVE_FUNCTION = `
alive() {
  _ap=$(cat "$1/pid" 2>/dev/null) || return 1
  case $_ap in ''|*[!0-9]*) return 1 ;; esac
  kill -0 "$_ap" 2>/dev/null || return 1
  if [ -r "/proc/$_ap/cmdline" ]; then _aa=$(tr '\\000' ' ' <"/proc/$_ap/cmdline" 2>/dev/null); else _aa=$(ps -o args= -p "$_ap" 2>/dev/null); fi
  _am=$(sed -n 's/.*"marker":"\\([^"]*\\)".*/\\1/p' "$1/spec.json" 2>/dev/null)
  [ -n "$_am" ] || _am=ajet-swarm
  case $_aa in *"$_am"*) ;; *) return 1 ;; esac
  _aw=$(cat "$1/pidstart" 2>/dev/null)
  if [ -n "$_aw" ] && [ -r "/proc/$_ap/stat" ]; then
    _ah=$(sed 's/^.*) //' "/proc/$_ap/stat" | cut -d' ' -f20)
    [ "$_ah" = "$_aw" ] || return 1
  fi
  return 0
}
wrapper_alive() {
  _wp=$(cat "$1/wrapper" 2>/dev/null) || return 1
  case $_wp in ''|*[!0-9]*) return 1 ;; esac
  kill -0 "$_wp" 2>/dev/null || return 1
  if [ -r "/proc/$_wp/cmdline" ]; then _wa=$(tr '\\000' ' ' <"/proc/$_wp/cmdline" 2>/dev/null); else _wa=$(ps -o args= -p "$_wp" 2>/dev/null); fi
  case $_wa in *launch.sh*) return 0 ;; *) return 1 ;; esac
}`;

/** `now`: epoch seconds with a fraction where date knows %N (GNU), whole seconds elsewhere (macOS). */
const NOW_FUNCTION = `
now() { t=$(date +%s.%N 2>/dev/null); case $t in *N*|'') date +%s ;; *) echo "$t" ;; esac; }`;

function prelude(): string {
  return `[ -n "$HOME" ] || { echo 'HOME is not set on this host' >&2; exit ${EXIT.noHome}; }${ALIVE_FUNCTION}`;
}

function heredoc(file: string, content: string): string {
  const end = `AGENTSWARM_EOF_${randomBytes(6).toString('hex')}`;
  return `cat >${file} <<'${end}'\n${content}\n${end}`;
}

/** The env file's text: one `export NAME='value'` per variable (written through stdin, never argv). */
export function envFileText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!ENV_NAME.test(name)) throw new AppError('VALIDATION_FAILED', `"${name}" is not a valid environment variable name.`);
      return `export ${name}=${shellQuote(value)}\n`;
    })
    .join('');
}

/**
 * The wrapper the host runs detached. It reads (and deletes) the env file, goes to $HOME (so
 * saved_experiments never lands in the run directory that remove deletes), runs the activate line,
 * starts the server, records its pid and start time, waits, and records the exit code.
 */
export function launchScript(spec: NativeRunSpec): string {
  const cmd = spec.cmd.map(shellQuote).join(' ');
  return [
    '# Written by AgentSwarm Desktop: runs one native swarm server and records its pid and exit code.',
    'dir=$(cd "$(dirname "$0")" && pwd) || exit 1',
    'echo "$$" >"$dir/wrapper"',
    'if [ -f "$dir/env" ]; then . "$dir/env"; rm -f "$dir/env"; fi',
    'cd "$HOME" 2>/dev/null || cd /',
    spec.activate ? spec.activate : ':',
    `${cmd} &`,
    'child=$!',
    `sed 's/^.*) //' "/proc/$child/stat" 2>/dev/null | cut -d' ' -f20 >"$dir/pidstart"`,
    'echo "$child" >"$dir/pid.tmp" && mv "$dir/pid.tmp" "$dir/pid"',
    'wait "$child"',
    'code=$?',
    NOW_FUNCTION,
    'echo "$code $(now)" >"$dir/exit.tmp" && mv "$dir/exit.tmp" "$dir/exit"',
    '',
  ].join('\n');
}

/** Makes the run directory with spec.json, launch.sh and the env file (stdin: `envFileText`). */
export function createScript(spec: NativeRunSpec): string {
  const dir = runDir(spec.name);
  return [
    prelude(),
    `d=${dir}`,
    `[ -e "$d" ] && { echo "a native swarm server named ${spec.name} already exists" >&2; exit ${EXIT.exists}; }`,
    'mkdir -p "$HOME/.agentswarm/run" && mkdir -m 700 "$d" || exit 1',
    'umask 077',
    'cat >"$d/env" || exit 1',
    heredoc('"$d/spec.json"', JSON.stringify(spec)),
    heredoc('"$d/launch.sh"', launchScript(spec)),
    ': >>"$d/server.log"',
  ].join('\n');
}

/**
 * Starts the run detached (own session, stdin from /dev/null, output appended to server.log) once
 * `command -v <cmd>` succeeds after the activate line; then waits until the server process runs
 * (or has already ended: its exit code tells why). Running already: nothing to do.
 */
/**
 * Where `command` is after the activate line, in a shell like the one launch.sh runs in (bash where
 * there is one: activate lines are often bash, `source` or conda). Prints the path; exits
 * EXIT.notInstalled with the activate line's last output lines on stderr when it is not found.
 */
export function whichScript(activate: string | null, command = 'ajet-swarm'): string {
  const check = `${activate ?? ':'}\ncommand -v ${shellQuote(command)}`;
  return [
    '[ -n "$HOME" ] || exit 1',
    'sh_=$(command -v bash 2>/dev/null || echo /bin/sh)',
    `out=$(cd "$HOME" && "$sh_" -c ${shellQuote(check)} 2>&1 </dev/null) || { printf '%s\\n' "$out" | tail -n 5 >&2; exit ${EXIT.notInstalled}; }`,
    `printf '%s\\n' "$out" | tail -n 1`,
  ].join('\n');
}

export function startScript(spec: NativeRunSpec, waitSeconds = 10): string {
  const dir = runDir(spec.name);
  return [
    prelude(),
    `d=${dir}`,
    `[ -f "$d/spec.json" ] || exit ${EXIT.notFound}`,
    'alive "$d" && exit 0',
    whichScript(spec.activate, spec.cmd[0] ?? 'ajet-swarm'),
    'rm -f "$d/pid" "$d/pidstart" "$d/exit"',
    ': >>"$d/server.log"',
    NOW_FUNCTION,
    'echo "$(now) $(wc -c <"$d/server.log" | tr -d \' \')" >"$d/started"',
    'if command -v setsid >/dev/null 2>&1; then',
    '  setsid "$sh_" "$d/launch.sh" </dev/null >>"$d/server.log" 2>&1 &',
    'else',
    '  nohup "$sh_" "$d/launch.sh" </dev/null >>"$d/server.log" 2>&1 &',
    'fi',
    'i=0',
    `while [ $i -lt ${waitSeconds * 10} ]; do`,
    '  alive "$d" && exit 0',
    '  [ -f "$d/exit" ] && exit 0',
    '  sleep 0.1; i=$((i + 1))',
    'done',
    `echo "the server process did not appear within ${waitSeconds} s" >&2`,
    `exit ${EXIT.didNotAppear}`,
  ].join('\n');
}

/** One record per run directory (all of them, or one): single lines, so the parser stays trivial. */
export function describeScript(name?: string): string {
  const loop = name === undefined ? 'for d in "$HOME"/.agentswarm/run/*; do' : `for d in ${runDir(name)}; do`;
  return [
    prelude(),
    loop,
    '  [ -f "$d/spec.json" ] || continue',
    '  if alive "$d"; then a=1; else a=0; fi',
    // Just died: its wrapper writes the exit code a moment later. Wait for it while the wrapper
    // lives, so nobody reads "exited, code unknown" (a wrapper that is gone never writes it).
    '  if [ $a = 0 ] && [ ! -f "$d/exit" ] && wrapper_alive "$d"; then',
    '    i=0; while [ $i -lt 20 ] && [ ! -f "$d/exit" ]; do sleep 0.05; i=$((i + 1)); done',
    '  fi',
    '  echo "@@run $a|$(cat "$d/pid" 2>/dev/null)|$(cat "$d/started" 2>/dev/null)|$(cat "$d/exit" 2>/dev/null)"',
    '  echo "@@spec $(cat "$d/spec.json")"',
    'done',
    'exit 0',
  ].join('\n');
}

/** SIGTERM to the recorded pid only (if it is still our server), SIGKILL after the timeout, then wait for the exit code. */
export function stopScript(name: string, timeoutSeconds: number): string {
  return [
    prelude(),
    `d=${runDir(name)}`,
    `[ -f "$d/spec.json" ] || exit ${EXIT.notFound}`,
    'alive "$d" || exit 0',
    'p=$(cat "$d/pid")',
    'kill -TERM "$p" 2>/dev/null',
    'i=0',
    `while [ $i -lt ${Math.max(1, Math.round(timeoutSeconds * 10))} ] && alive "$d"; do sleep 0.1; i=$((i + 1)); done`,
    'alive "$d" && kill -KILL "$p" 2>/dev/null',
    'i=0',
    'while [ $i -lt 30 ] && [ ! -f "$d/exit" ]; do sleep 0.1; i=$((i + 1)); done',
    'exit 0',
  ].join('\n');
}

/** Deletes the run directory; a running server is killed first only when `force` (like docker rm -f). */
export function removeScript(name: string, force: boolean): string {
  return [
    prelude(),
    `d=${runDir(name)}`,
    `[ -d "$d" ] || exit ${EXIT.notFound}`,
    'if alive "$d"; then',
    force ? '  kill -KILL "$(cat "$d/pid")" 2>/dev/null; i=0; while [ $i -lt 30 ] && alive "$d"; do sleep 0.1; i=$((i + 1)); done' : `  exit ${EXIT.running}`,
    'fi',
    'rm -rf "$d"',
  ].join('\n');
}

/** The newest `tail` lines of server.log, from `fromByte` on (the current run's start) when given. */
export function readLogScript(name: string, tail: number, fromByte?: number): string {
  const source = fromByte ? `tail -c +${Math.floor(fromByte) + 1} "$d/server.log"` : 'cat "$d/server.log"';
  return [`d=${runDir(name)}`, `[ -f "$d/server.log" ] || exit ${EXIT.notFound}`, `${source} | tail -n ${Math.max(1, Math.floor(tail))}`].join('\n');
}

/** Byte offset just after the first `lines` lines of server.log (resuming a follow at a line cursor). */
export function lineOffsetScript(name: string, lines: number): string {
  return [`d=${runDir(name)}`, `[ -f "$d/server.log" ] || exit ${EXIT.notFound}`, `head -n ${Math.floor(lines)} "$d/server.log" | wc -c | tr -d ' '`].join('\n');
}

/**
 * One poll of a follow: `@@follow <alive> <size>` (alive checked before reading, so a dead server's
 * log is complete), then at most `maxLines` lines from byte `offset` on.
 */
export function followChunkScript(name: string, offset: number, maxLines: number): string {
  return [
    prelude(),
    `d=${runDir(name)}`,
    `[ -f "$d/server.log" ] || exit ${EXIT.notFound}`,
    'if alive "$d"; then a=1; else a=0; fi',
    'echo "@@follow $a $(wc -c <"$d/server.log" | tr -d \' \')"',
    `tail -c +${Math.floor(offset) + 1} "$d/server.log" | head -n ${Math.floor(maxLines)}`,
  ].join('\n');
}

/**
 * The last `maxBytes` of a file on the host: the run's server.log stands in for the container's
 * /workspace/log/swarm_server.log; relative paths are under $HOME (the server's working directory).
 */
export function readFileScript(name: string, path: string, maxBytes: number): string {
  const file = /(^|\/)swarm_server\.log$/.test(path) ? '"$d/server.log"' : path.startsWith('/') ? shellQuote(path) : `"$HOME"/${shellQuote(path)}`;
  return [
    `d=${runDir(name)}`,
    `[ -d "$d" ] || exit ${EXIT.notFound}`,
    `f=${file}`,
    '[ -f "$f" ] || { echo "@@absent"; exit 0; }',
    'echo "@@present"',
    `tail -c ${Math.max(1, Math.floor(maxBytes))} "$f"`,
  ].join('\n');
}
