import { z } from 'zod';
import { ContainerId, EngineId, EngineKind, EngineProblem, QueuePlace, SwarmContainer, SwarmExit, SwarmStatus } from './schemas';

/**
 * One truth per swarm server (issue 31): what the backend knows of one server, whatever runs it
 * (Docker, Podman, a native process, a Slurm job, the dry run), as one snapshot. Every surface
 * (profile card, container row, jobs panel, wizard, dashboard header, status bar, notifications)
 * renders this and only this; the renderer's `server-words.ts` is the one place that words it.
 *
 * `phase` is the lifecycle decided once, in `services/server-state/derive.ts`:
 * - `not-started`: created, never started (Docker's `created` outside a scheduler);
 * - `queued`: a batch job waiting in the scheduler's queue (`queue` says why and where);
 * - `starting`: running, its HTTP API has not answered yet;
 * - `booting`: the engine loads (ENGINE.BOOTING);
 * - `ready`: the API answers and the engine waits for a client (ENGINE.OFFLINE), `problem` says
 *   when it failed to boot or ended;
 * - `training`: the engine runs (ROLLING, WEIGHT_SYNCING…);
 * - `unreachable`: running, but its API stopped answering (`status.lastError` says why);
 * - `stopping`: the app's Stop is on its way;
 * - `ended`: not running any more; `end` says how (also after a reload and an app restart).
 */
export const ServerPhase = z.enum(['not-started', 'queued', 'starting', 'booting', 'ready', 'training', 'unreachable', 'stopping', 'ended']);

export const ServerState = z.object({
  /** `engineId:containerId`: two engines may share an id space. */
  key: z.string(),
  engineId: EngineId,
  engineKind: EngineKind,
  containerId: ContainerId,
  phase: ServerPhase,
  /** When the phase began (ISO), as far as the backend saw it: "booting for 2 min", "queued for 5 min". */
  phaseSince: z.string(),
  /** The engine's status (ENGINE.*) and since when it has said it (ISO); null before the API answered. */
  engineStatus: z.string().nullable(),
  engineSince: z.string().nullable(),
  /** What went wrong with a running server's engine (failed, stuck or slow boot; an engine that ended). */
  problem: EngineProblem.shape.kind.nullable(),
  /** Where a queued job stands; null unless `queued`. */
  queue: QueuePlace.nullable(),
  /** How it ended; null unless `ended` (or ended, not yet described). */
  end: SwarmExit.nullable(),
  /** What the engine lists: name, image, port, times, exit code, profile. */
  container: SwarmContainer,
  /** The monitor's latest word on its API and engine (the link, step, history, log lines); null when never watched. */
  status: SwarmStatus.nullable(),
  /** What the user may do now, so surfaces need no engine-kind branches. */
  actions: z.object({ stop: z.boolean(), remove: z.boolean(), logs: z.boolean() }),
  /** When this snapshot was made (ISO). */
  updatedAt: z.string(),
});

export const ServerStateRemoved = z.object({ key: z.string(), engineId: EngineId, containerId: ContainerId });

export type ServerPhase = z.infer<typeof ServerPhase>;
export type ServerState = z.infer<typeof ServerState>;
export type ServerStateRemoved = z.infer<typeof ServerStateRemoved>;

/** The key of a server in every map of the app: statuses, states, training views. */
export function serverKey(engineId: string, containerId: string): string {
  return `${engineId}:${containerId}`;
}
