import type { EngineKind, SwarmContainer, SwarmStatus } from '../../shared/schemas';
import { serverKey, type ServerPhase, type ServerState } from '../../shared/server-state';

const BOOTING = 'ENGINE.BOOTING';
const OFFLINE = 'ENGINE.OFFLINE';
/** Container states in which something may still run: removing one kills live work. */
const LIVE_STATES: readonly SwarmContainer['state'][] = ['running', 'restarting', 'paused'];

export interface ServerObservation {
  engineKind: EngineKind;
  /** What the engine lists for it now. */
  container: SwarmContainer;
  /** The monitor's latest status of it; undefined when it was never watched. */
  status: SwarmStatus | undefined;
  /** The app's Stop is running for it. */
  stopping: boolean;
}

/**
 * The lifecycle phase of one server: the only place that decides it. The monitor's word wins
 * over the engine's list where they disagree about an end (a list read just before a crash still
 * says "running"); a live container's phase follows its API and engine.
 */
export function phaseOf(observation: Pick<ServerObservation, 'container' | 'status' | 'stopping'>): ServerPhase {
  const { container, status, stopping } = observation;
  const live = LIVE_STATES.includes(container.state) && status?.connection !== 'stopped';
  const queued = container.state === 'created' && container.queue !== undefined;
  if (stopping && (live || queued)) return 'stopping';
  if (live) {
    if (!status || status.connection === 'starting') return 'starting';
    if (status.connection === 'unreachable') return 'unreachable';
    if (status.engineStatus === BOOTING) return 'booting';
    if (status.engineStatus === null || status.engineStatus === OFFLINE) return 'ready';
    return 'training';
  }
  if (queued) return 'queued';
  if (container.state === 'created') return 'not-started';
  return 'ended';
}

function sinceOfNewPhase(phase: ServerPhase, observation: ServerObservation, nowIso: string): string {
  const { container, status } = observation;
  switch (phase) {
    case 'queued':
    case 'not-started':
      return container.createdAt;
    case 'starting':
      return container.startedAt ?? nowIso;
    case 'booting':
      return status?.bootingSince ?? nowIso;
    case 'ended':
      return status?.exit?.finishedAt ?? container.finishedAt ?? nowIso;
    default:
      return nowIso;
  }
}

/**
 * The snapshot of one server from what was observed, carrying over from `previous` when its phase
 * and engine status began (so "booting for 2 min" survives new snapshots). Pure: tested by table.
 */
export function deriveServerState(observation: ServerObservation, previous: ServerState | undefined, now: number): ServerState {
  const { container, status, engineKind } = observation;
  const nowIso = new Date(now).toISOString();
  const phase = phaseOf(observation);
  const phaseSince = previous && previous.phase === phase ? previous.phaseSince : sinceOfNewPhase(phase, observation, nowIso);
  const running = phase !== 'ended' && phase !== 'queued' && phase !== 'not-started';
  const engineStatus = running ? (status?.engineStatus ?? null) : null;
  let engineSince: string | null = null;
  if (engineStatus !== null) {
    if (previous && previous.engineStatus === engineStatus && previous.engineSince) engineSince = previous.engineSince;
    else engineSince = engineStatus === BOOTING ? (status?.bootingSince ?? nowIso) : nowIso;
  }
  const problem = running && status?.connection === 'online' ? (status.engineProblem?.kind ?? null) : null;
  return {
    key: serverKey(container.engineId, container.id),
    engineId: container.engineId,
    engineKind,
    containerId: container.id,
    phase,
    phaseSince,
    engineStatus,
    engineSince,
    problem,
    queue: phase === 'queued' ? (container.queue ?? null) : null,
    end: phase === 'ended' ? (status?.exit ?? null) : null,
    container,
    status: status ?? null,
    actions: {
      stop: running && phase !== 'stopping' ? true : phase === 'queued',
      remove: phase !== 'stopping',
      logs: container.startedAt !== null,
    },
    updatedAt: nowIso,
  };
}

/** Two snapshots that say the same (the time of the snapshot and of the last check aside). */
export function sameState(a: ServerState | undefined, b: ServerState): boolean {
  if (!a) return false;
  // Docker's "Up 3 seconds" is recomputed at each listing; the renderer ticks its own from the times.
  const strip = (s: ServerState) =>
    JSON.stringify({ ...s, updatedAt: '', container: { ...s.container, statusText: '' }, status: s.status ? { ...s.status, checkedAt: '' } : null });
  return strip(a) === strip(b);
}
