import { describe, expect, it } from 'vitest';
import { AppError } from '../../../electron/shared/errors';
import type { ContainerEngine, ContainerSummary } from '../../../electron/services/engines/container-engine';
import { containerStatusText, humanDuration } from '../../../electron/services/engines/container-engine';
import { describeExit, exitKind } from '../../../electron/services/swarm/exit-reason';

function summary(overrides: Partial<ContainerSummary>): ContainerSummary {
  return {
    id: 'a'.repeat(64),
    name: 'x',
    image: 'i',
    state: 'exited',
    statusText: '',
    labels: {},
    createdAt: '2026-12-02T10:00:00.000Z',
    startedAt: '2026-12-02T10:00:00.000Z',
    finishedAt: '2026-12-02T10:00:10.000Z',
    exitCode: 1,
    oomKilled: false,
    ...overrides,
  };
}

/** TEST DOUBLE: only inspect and log reads, the two things describeExit asks an engine. */
function engineWith(info: ContainerSummary | null, log: string[]): ContainerEngine & { logReads: number } {
  const engine = {
    logReads: 0,
    inspectContainer: async () => {
      if (!info) throw new Error('gone');
      return info;
    },
    readLog: async () => {
      engine.logReads += 1;
      return log;
    },
  };
  return engine as unknown as ContainerEngine & { logReads: number };
}

describe('why a swarm container ended', () => {
  it('names the kind from the exit code: SIGTERM is a stop, 0 an unexpected stop, OOM before 137', () => {
    expect(exitKind({ exitCode: 143, oomKilled: false }, false)).toBe('stopped-outside');
    expect(exitKind({ exitCode: 143, oomKilled: false }, true)).toBe('stopped');
    expect(exitKind({ exitCode: 0, oomKilled: false }, true)).toBe('stopped');
    expect(exitKind({ exitCode: 0, oomKilled: false }, false)).toBe('unexpected-stop');
    expect(exitKind({ exitCode: 137, oomKilled: false }, false)).toBe('killed');
    expect(exitKind({ exitCode: 137, oomKilled: true }, false)).toBe('out-of-memory');
    expect(exitKind({ exitCode: 3, oomKilled: false }, false)).toBe('crashed');
  });

  it("names a scheduler's time limit as such, though the server answered its SIGTERM like a stop", () => {
    expect(exitKind({ exitCode: 143, oomKilled: false, schedulerEnd: 'time-limit' }, false)).toBe('time-limit');
    expect(exitKind({ exitCode: 0, oomKilled: false, schedulerEnd: 'time-limit' }, false)).toBe('time-limit');
    expect(exitKind({ exitCode: 137, oomKilled: true, schedulerEnd: 'time-limit' }, false)).toBe('out-of-memory');
    expect(exitKind({ exitCode: 1, oomKilled: false, schedulerEnd: 'node-failure' }, false)).toBe('node-failure');
    expect(exitKind({ exitCode: 143, oomKilled: false, schedulerEnd: 'cancelled' }, false)).toBe('cancelled');
    expect(exitKind({ exitCode: 143, oomKilled: false, schedulerEnd: 'cancelled' }, true)).toBe('stopped');
    expect(exitKind({ exitCode: 0, oomKilled: false, schedulerEnd: 'preempted' }, false)).toBe('preempted');
  });

  it('reads the explaining lines of the log for a crash, none for a requested stop, nothing while running', async () => {
    const log = ['Interchange server is running', 'Traceback (most recent call last):', '  File "a.py", line 1, in <module>', 'RuntimeError: boom', 'bye'];
    await expect(describeExit(engineWith(summary({ exitCode: 3 }), log), 'a')).resolves.toEqual({
      kind: 'crashed',
      code: 3,
      finishedAt: '2026-12-02T10:00:10.000Z',
      log: { lines: ['File "a.py", line 1, in <module>', 'RuntimeError: boom'], explains: true },
      tail: log,
    });
    // The crash report carries the last 50 lines as they are.
    const long = Array.from({ length: 120 }, (_, i) => `line ${i}`);
    const tail = ((await describeExit(engineWith(summary({ exitCode: 137 }), long), 'a')) as { tail: string[] }).tail;
    expect(tail).toEqual(long.slice(-50));
    const stopped = engineWith(summary({ exitCode: 143 }), log);
    await expect(describeExit(stopped, 'a', true)).resolves.toMatchObject({ kind: 'stopped', log: { lines: [], explains: false } });
    expect(stopped.logReads).toBe(0);
    await expect(describeExit(engineWith(summary({ state: 'running', exitCode: null }), log), 'a')).resolves.toBeNull();
    await expect(describeExit(engineWith(null, log), 'a')).resolves.toBeNull();
  });

  it("says 'gone' for a container removed behind the app's back, so no row is kept for it", async () => {
    const removed = engineWith(null, []);
    removed.inspectContainer = async () => {
      throw new AppError('CONTAINER_NOT_FOUND', 'No such container');
    };
    await expect(describeExit(removed, 'a')).resolves.toBe('gone');
  });
});

describe('container status text', () => {
  const now = Date.parse('2026-12-02T10:05:00.000Z');
  it("words durations as Docker does", () => {
    expect(humanDuration(400)).toBe('Less than a second');
    expect(humanDuration(1000)).toBe('1 second');
    expect(humanDuration(42_000)).toBe('42 seconds');
    expect(humanDuration(90_000)).toBe('About a minute');
    expect(humanDuration(5 * 60_000)).toBe('5 minutes');
    expect(humanDuration(3 * 3600_000)).toBe('3 hours');
    expect(humanDuration(3 * 86400_000)).toBe('3 days');
  });

  it('is computed from the timestamps when read, so it advances and reads the same everywhere', () => {
    const running = summary({ state: 'running', startedAt: '2026-12-02T10:04:57.000Z', finishedAt: null, exitCode: null });
    expect(containerStatusText(running, now)).toBe('Up 3 seconds');
    expect(containerStatusText(running, now + 60_000)).toBe('Up About a minute');
    const exited = summary({ finishedAt: '2026-12-02T10:04:57.000Z', exitCode: 143 });
    expect(containerStatusText(exited, now)).toBe('Exited (143) 3 seconds ago');
    expect(containerStatusText(summary({ state: 'created', startedAt: null, finishedAt: null, exitCode: null }), now)).toBe('Created');
  });
});
