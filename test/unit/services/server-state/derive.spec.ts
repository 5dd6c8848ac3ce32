import { describe, expect, it } from 'vitest';
import type { SwarmContainer, SwarmExit, SwarmStatus } from '../../../../electron/shared/schemas';
import { deriveServerState, phaseOf, sameState } from '../../../../electron/services/server-state/derive';
import { makeStatus } from '../../../renderer/fake-api';

const T0 = Date.parse('2026-12-05T10:00:00Z');

function container(over: Partial<SwarmContainer> = {}): SwarmContainer {
  return {
    id: 'c1',
    name: 'agentswarm-x',
    engineId: 'local',
    image: 'ghcr.io/modelscope/agentjet:main',
    state: 'running',
    statusText: 'Up 3 seconds',
    port: 10086,
    networkMode: 'publish',
    createdAt: '2026-12-05T09:59:00Z',
    startedAt: '2026-12-05T09:59:30Z',
    finishedAt: null,
    exitCode: null,
    ...over,
  };
}

/** The monitor's status as it sends it (the renderer tests' builder), checked at a fixed time. */
const status = (over: Partial<SwarmStatus> = {}): SwarmStatus => makeStatus('c1', { checkedAt: '2026-12-05T10:00:00Z', ...over });

const crash: SwarmExit = { kind: 'crashed', code: 1, finishedAt: '2026-12-05T10:00:05Z', log: { lines: ["ModuleNotFoundError: No module named 'verl'"], explains: true } };
const exited = (over: Partial<SwarmContainer> = {}) => container({ state: 'exited', exitCode: 1, finishedAt: '2026-12-05T10:00:05Z', ...over });

describe('the phase of a server, decided in one place', () => {
  // Every row: what the engine lists, what the monitor said, whether the app is stopping it → the phase.
  const table: [string, SwarmContainer, SwarmStatus | undefined, boolean, string][] = [
    ['created, never started', container({ state: 'created', startedAt: null }), undefined, false, 'not-started'],
    ['a batch job waiting in the queue', container({ state: 'created', startedAt: null, queue: { reason: 'Resources', position: 1 } }), undefined, false, 'queued'],
    ['cancelling a queued job', container({ state: 'created', startedAt: null, queue: { reason: 'Priority', position: 2 } }), undefined, true, 'stopping'],
    ['running, not watched yet', container(), undefined, false, 'starting'],
    ['running, API not answering yet', container(), status({ connection: 'starting', engineStatus: null }), false, 'starting'],
    ['API answers, engine waits for a client', container(), status(), false, 'ready'],
    ['engine booting', container(), status({ engineStatus: 'ENGINE.BOOTING', bootingSince: '2026-12-05T09:59:50Z' }), false, 'booting'],
    ['engine rolling', container(), status({ engineStatus: 'ENGINE.ROLLING', globalStep: 3 }), false, 'training'],
    ['engine syncing weights', container(), status({ engineStatus: 'ENGINE.WEIGHT_SYNCING' }), false, 'training'],
    ['API stopped answering', container(), status({ connection: 'unreachable', lastError: 'ECONNRESET' }), false, 'unreachable'],
    ['the app stops it', container(), status({ engineStatus: 'ENGINE.ROLLING' }), true, 'stopping'],
    ['exited, the monitor knows why', exited(), status({ connection: 'stopped', engineStatus: null, exit: crash }), false, 'ended'],
    ['the monitor saw the end before the listing did', container(), status({ connection: 'stopped', engineStatus: null, exit: crash }), false, 'ended'],
    ['exited, never watched (found after a restart)', exited(), undefined, false, 'ended'],
    ['a stop that already ended it', exited({ exitCode: 143 }), status({ connection: 'stopped', engineStatus: null }), true, 'ended'],
  ];
  it.each(table)('%s', (_name, c, s, stopping, phase) => {
    expect(phaseOf({ container: c, status: s, stopping })).toBe(phase);
  });
});

describe('deriveServerState', () => {
  it('keeps when a phase and an engine status began across snapshots', () => {
    const booting = status({ engineStatus: 'ENGINE.BOOTING', bootingSince: '2026-12-05T09:59:50Z' });
    const first = deriveServerState({ engineKind: 'local-docker', container: container(), status: booting, stopping: false }, undefined, T0);
    expect(first.phase).toBe('booting');
    expect(first.phaseSince).toBe('2026-12-05T09:59:50Z');
    expect(first.engineSince).toBe('2026-12-05T09:59:50Z');
    const later = deriveServerState({ engineKind: 'local-docker', container: container(), status: { ...booting, checkedAt: 'later' }, stopping: false }, first, T0 + 60_000);
    expect(later.phaseSince).toBe(first.phaseSince);
    const rolling = deriveServerState({ engineKind: 'local-docker', container: container(), status: status({ engineStatus: 'ENGINE.ROLLING' }), stopping: false }, later, T0 + 90_000);
    expect(rolling.phase).toBe('training');
    expect(rolling.phaseSince).toBe(new Date(T0 + 90_000).toISOString());
    expect(rolling.engineSince).toBe(new Date(T0 + 90_000).toISOString());
  });

  it('carries the end, its time, and no engine once ended; Stop is no longer offered', () => {
    const s = deriveServerState({ engineKind: 'ssh-docker', container: exited(), status: status({ connection: 'stopped', engineStatus: null, exit: crash }), stopping: false }, undefined, T0);
    expect(s).toMatchObject({ phase: 'ended', phaseSince: crash.finishedAt, end: crash, engineStatus: null, problem: null, actions: { stop: false, remove: true, logs: true } });
  });

  it('names a problem only while the server answers', () => {
    const problem = { kind: 'boot-failed' as const, since: '2026-12-05T10:00:00Z', log: { lines: ['boom'], explains: true } };
    const online = deriveServerState({ engineKind: 'podman', container: container(), status: status({ engineProblem: problem }), stopping: false }, undefined, T0);
    expect(online).toMatchObject({ phase: 'ready', problem: 'boot-failed' });
    const unreachable = deriveServerState({ engineKind: 'podman', container: container(), status: status({ engineProblem: problem, connection: 'unreachable' }), stopping: false }, undefined, T0);
    expect(unreachable).toMatchObject({ phase: 'unreachable', problem: null });
  });

  it('offers Stop on a queued job (it cancels it) and keeps its place', () => {
    const queued = container({ state: 'created', startedAt: null, queue: { reason: 'Resources', position: 1 } });
    const s = deriveServerState({ engineKind: 'slurm', container: queued, status: undefined, stopping: false }, undefined, T0);
    expect(s).toMatchObject({ phase: 'queued', queue: { reason: 'Resources', position: 1 }, phaseSince: queued.createdAt, actions: { stop: true, remove: true, logs: false } });
    expect(deriveServerState({ engineKind: 'slurm', container: queued, status: undefined, stopping: true }, s, T0).actions).toEqual({ stop: false, remove: false, logs: false });
  });

  it('calls two snapshots the same when only the check time and Docker\'s uptime text moved', () => {
    const a = deriveServerState({ engineKind: 'local-docker', container: container(), status: status(), stopping: false }, undefined, T0);
    const b = deriveServerState({ engineKind: 'local-docker', container: container({ statusText: 'Up 9 seconds' }), status: status({ checkedAt: 'x' }), stopping: false }, a, T0 + 5000);
    expect(sameState(a, b)).toBe(true);
    const c = deriveServerState({ engineKind: 'local-docker', container: container(), status: status({ engineStatus: 'ENGINE.ROLLING' }), stopping: false }, a, T0 + 5000);
    expect(sameState(a, c)).toBe(false);
  });
});
