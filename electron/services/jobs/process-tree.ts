import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { execa } from 'execa';

const IS_WINDOWS = process.platform === 'win32';

export interface SpawnedRun {
  pid: number | null;
  /** Resolves once the process exited and its output was read to the end (or the grace after exit passed). */
  ended: Promise<{ exitCode: number | null; signal: string | null; spawnError: string | null }>;
}

export interface SpawnOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment (never merged with ours again: what is here is what the process gets). */
  env: Readonly<Record<string, string | undefined>>;
  onLine: (stream: 'out' | 'err', line: string) => void;
  /**
   * How long to keep reading after the process exited: a grandchild that outlived it may hold the
   * pipes open forever; its late lines are not worth a run that never ends.
   */
  drainAfterExitMs?: number;
}

/**
 * Starts a process in a new process group (`detached`), so the whole tree it starts can be
 * signalled at once by `signalTree`. Its stdout and stderr are read line by line.
 */
export function spawnInGroup(options: SpawnOptions): SpawnedRun {
  const child = execa(options.file, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    // Its own group (POSIX setsid), so SIGINT reaches its children too; we end it ourselves (cancel, dispose).
    detached: true,
    cleanup: false,
    stdin: 'ignore',
    buffer: false,
    reject: false,
    windowsHide: true,
  });
  const readers: Promise<void>[] = [];
  for (const [stream, source] of [['out', child.stdout], ['err', child.stderr]] as const) {
    if (!source) continue;
    source.setEncoding('utf8');
    const lines = createInterface({ input: source, crlfDelay: Infinity });
    lines.on('line', (line) => options.onLine(stream, line));
    readers.push(new Promise((resolve) => lines.once('close', () => resolve())));
  }
  const exited = new Promise<{ exitCode: number | null; signal: string | null; spawnError: string | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ exitCode: code, signal: signal ?? null, spawnError: null }));
    // execa settles (never rejects: reject false) also when the spawn itself failed (ENOENT, EACCES), with no `exit`.
    void child.then((result) => {
      if (result.failed && result.exitCode === undefined && result.signal === undefined) {
        resolve({ exitCode: null, signal: null, spawnError: result.originalMessage ?? result.shortMessage ?? 'spawn failed' });
      }
    });
  });
  const ended = exited.then(async (end) => {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.drainAfterExitMs ?? 2000);
    });
    await Promise.race([Promise.all(readers), grace]);
    clearTimeout(timer);
    child.stdout?.destroy();
    child.stderr?.destroy();
    return end;
  });
  return { pid: child.pid ?? null, ended };
}

/**
 * The live processes of the group `pgid` on Linux (from /proc), zombies left out: an orphaned
 * zombie stays in its group until some init reaps it, and a container's PID 1 often never does;
 * it runs nothing and holds nothing, so it must not keep a cancel escalating. Null where there is
 * no /proc (macOS): then only the kernel's answer to `kill(-pgid, 0)` is known.
 */
export function groupMembers(pgid: number): number[] | null {
  if (process.platform !== 'linux') return null;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const members: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') members.push(Number(name));
  }
  return members;
}

/** State and process group of one process from /proc/<pid>/stat; null when it is gone. */
export function procStat(pid: number): { state: string; ppid: number; pgrp: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ")": fields start after the last ")".
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

/** Whether any process of the group `pgid` is still alive (zombies do not count where /proc tells them apart). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(IS_WINDOWS ? pgid : -pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const members = groupMembers(pgid);
  return members === null || members.length > 0;
}

/** Sends `signal` to every process of the group; false when none was left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(IS_WINDOWS ? pgid : -pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export interface TreeKillTimeouts {
  /** After SIGINT (Python's KeyboardInterrupt: `finally` blocks and `abort_episode` get their chance). */
  intMs: number;
  /** After SIGTERM, before SIGKILL. */
  termMs: number;
}

export const DEFAULT_KILL_TIMEOUTS: TreeKillTimeouts = { intMs: 5000, termMs: 3000 };

export type TreeSignal = 'SIGINT' | 'SIGTERM' | 'SIGKILL';

/**
 * Ends the whole process tree: SIGINT, then SIGTERM after `intMs`, then SIGKILL after `termMs`,
 * each to the process group, until no process of the group is left. A child that left the group
 * on purpose (its own setsid) is out of reach, as with a terminal's Ctrl+C. `onSignal` hears each
 * signal as it is sent (the job log says how the cancel went). Resolves with the last signal sent,
 * or 'gone' when nothing was left to signal.
 */
export async function killTree(pid: number, timeouts: TreeKillTimeouts = DEFAULT_KILL_TIMEOUTS, onSignal: (signal: TreeSignal) => void = () => undefined): Promise<TreeSignal | 'gone'> {
  if (IS_WINDOWS) return killWindowsTree(pid);
  if (!groupAlive(pid)) return 'gone';
  const steps: [TreeSignal, number][] = [
    ['SIGINT', timeouts.intMs],
    ['SIGTERM', timeouts.termMs],
    // SIGKILL cannot be ignored: the wait is for the kernel to tear the processes down.
    ['SIGKILL', 5000],
  ];
  let last: TreeSignal | 'gone' = 'gone';
  for (const [signal, waitMs] of steps) {
    // The group ended between the check and this signal: the previous one did it.
    if (!signalGroup(pid, signal)) return last;
    onSignal(signal);
    last = signal;
    if (await waitGroupGone(pid, waitMs)) return signal;
  }
  return last;
}

/** Polls the group (kill(0) and /proc, no process started) until it is empty or the time is up. */
async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  return !groupAlive(pgid);
}

/** Windows has no process groups to signal: taskkill /T ends the tree (first politely, then /F). */
async function killWindowsTree(pid: number): Promise<'SIGTERM' | 'SIGKILL'> {
  await execa('taskkill', ['/pid', String(pid), '/T'], { reject: false, timeout: 5000 });
  if (!groupAlive(pid)) return 'SIGTERM';
  await execa('taskkill', ['/pid', String(pid), '/T', '/F'], { reject: false, timeout: 5000 });
  return 'SIGKILL';
}
