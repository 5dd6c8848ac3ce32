import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { groupAlive, groupMembers, killTree, procStat, spawnInGroup } from '../../../../electron/services/jobs/process-tree';

/** Real processes (Debian's python3 and sh): the group, its members and the kill escalation are kernel facts. */
const PYTHON = '/usr/bin/python3';

describe('spawnInGroup', () => {
  it('reads stdout and stderr line by line (CRLF too, a last line without newline) and resolves with the exit code', async () => {
    const lines: string[] = [];
    const run = spawnInGroup({
      file: PYTHON,
      args: ['-c', 'import sys; print("a"); sys.stdout.write("b\\r\\n"); sys.stdout.flush(); print("e", file=sys.stderr); sys.stdout.write("last"); sys.exit(4)'],
      cwd: '/',
      env: { PATH: process.env.PATH },
      onLine: (stream, line) => lines.push(`${stream}:${line}`),
    });
    expect(run.pid).toEqual(expect.any(Number));
    expect(await run.ended).toEqual({ exitCode: 4, signal: null, spawnError: null });
    expect(lines.filter((l) => l.startsWith('out:'))).toEqual(['out:a', 'out:b', 'out:last']);
    expect(lines).toContain('err:e');
  });

  it('starts the process as the leader of its own group, so its children share that group', async () => {
    const lines: string[] = [];
    const run = spawnInGroup({
      file: PYTHON,
      args: ['-c', 'import subprocess, sys, time; c = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]); print("child", c.pid, flush=True); time.sleep(30)'],
      cwd: '/',
      env: { PATH: process.env.PATH },
      onLine: (_stream, line) => lines.push(line),
    });
    const pid = run.pid!;
    await new Promise<void>((resolve) => {
      const check = () => (lines.some((l) => l.startsWith('child ')) ? resolve() : setTimeout(check, 20));
      check();
    });
    const child = Number(lines.find((l) => l.startsWith('child '))!.split(' ')[1]);
    expect(procStat(pid)).toMatchObject({ pgrp: pid, ppid: process.pid });
    expect(procStat(child)).toMatchObject({ pgrp: pid, ppid: pid });
    expect(groupMembers(pid)?.sort()).toEqual([pid, child].sort());
    // Python's default SIGINT handler ends both: the first step of the escalation suffices.
    expect(await killTree(pid, { intMs: 3000, termMs: 3000 })).toBe('SIGINT');
    expect(groupAlive(pid)).toBe(false);
    // Python ends an uncaught KeyboardInterrupt by dying of SIGINT itself.
    expect(await run.ended).toMatchObject({ signal: 'SIGINT', exitCode: null });
  });

  it('a file that cannot be run resolves with spawnError, not a throw', async () => {
    const run = spawnInGroup({ file: '/nowhere/python3', args: [], cwd: '/', env: {}, onLine: () => undefined });
    const end = await run.ended;
    expect(end.exitCode).toBeNull();
    expect(end.spawnError).toMatch(/ENOENT/);
  });

  it('stops waiting for output drainAfterExitMs after the exit when a leftover process holds the pipes', async () => {
    const t0 = Date.now();
    const run = spawnInGroup({ file: '/bin/sh', args: ['-c', 'sleep 5 & echo started'], cwd: '/', env: { PATH: process.env.PATH }, onLine: () => undefined, drainAfterExitMs: 300 });
    expect(await run.ended).toMatchObject({ exitCode: 0 });
    expect(Date.now() - t0).toBeLessThan(3000);
    await killTree(run.pid!, { intMs: 200, termMs: 200 });
    expect(groupAlive(run.pid!)).toBe(false);
  });
});

describe('killTree and groupAlive', () => {
  it("'gone' when nothing of the group is left, and the callback hears nothing", async () => {
    const run = spawnInGroup({ file: '/bin/true', args: [], cwd: '/', env: {}, onLine: () => undefined });
    await run.ended;
    const heard: string[] = [];
    expect(await killTree(run.pid!, { intMs: 100, termMs: 100 }, (s) => heard.push(s))).toBe('gone');
    expect(heard).toEqual([]);
  });

  it('escalates SIGINT → SIGTERM → SIGKILL for a process that ignores both, reporting each in order', async () => {
    const child = spawn(PYTHON, ['-c', 'import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN); print("ok", flush=True); time.sleep(30)'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    const heard: string[] = [];
    const t0 = Date.now();
    expect(await killTree(child.pid!, { intMs: 200, termMs: 200 }, (s) => heard.push(s))).toBe('SIGKILL');
    expect(heard).toEqual(['SIGINT', 'SIGTERM', 'SIGKILL']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
    expect(groupAlive(child.pid!)).toBe(false);
  });

  it('an orphaned zombie left in the group does not count as alive', async () => {
    // sh starts sleep 0.2 in the background and exits: sleep is orphaned; once it ends it is a zombie
    // until some init reaps it (in a container often never). kill(-pgid, 0) would still succeed.
    const lines: string[] = [];
    const run = spawnInGroup({ file: '/bin/sh', args: ['-c', 'sleep 0.2 >/dev/null 2>&1 & echo $!'], cwd: '/', env: { PATH: process.env.PATH }, onLine: (_s, l) => lines.push(l) });
    await run.ended;
    const sleepPid = Number(lines[0]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const stat = procStat(sleepPid);
    expect(stat === null || stat.state === 'Z').toBe(true);
    expect(groupAlive(run.pid!)).toBe(false);
    expect(await killTree(run.pid!, { intMs: 100, termMs: 100 })).toBe('gone');
  });

  it('procStat reads a command name with spaces and parentheses', async () => {
    const child = spawn(PYTHON, ['-c', 'import ctypes, time; ctypes.CDLL(None).prctl(15, b"a) b (c", 0, 0, 0); print("ok", flush=True); time.sleep(30)'], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    expect(procStat(child.pid!)).toMatchObject({ state: expect.stringMatching(/^[RS]$/), ppid: process.pid });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(procStat(child.pid!)).toBeNull();
  });
});
