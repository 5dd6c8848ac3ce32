import type { ContainerState, EngineHealth, EngineSummary } from '../../shared/schemas';
import type { EngineWording } from './engine-wording';

/** Labels that mark a container as ours, so the app finds it again after a restart. */
export const LABEL_MANAGED = 'io.agentswarm.managed';
export const LABEL_ROLE = 'io.agentswarm.role';
export const LABEL_PORT = 'io.agentswarm.port';
export const LABEL_NETWORK = 'io.agentswarm.network';
export const LABEL_APP_VERSION = 'io.agentswarm.app-version';

export interface PortBinding {
  containerPort: number;
  hostIp: string;
  hostPort: number;
}

/** Engine-neutral description of a container to create; each engine maps it to its own API. */
export interface ContainerSpec {
  name: string;
  image: string;
  cmd: string[];
  env: Record<string, string>;
  labels: Record<string, string>;
  network: { mode: 'host' } | { mode: 'publish'; ports: PortBinding[] };
  /** Run an init process as PID 1 so SIGTERM stops the server in milliseconds, not after a kill. */
  init: boolean;
  gpus: boolean;
  shmSizeBytes: number;
}

export interface ContainerSummary {
  id: string;
  name: string;
  image: string;
  state: ContainerState;
  /** Docker-style text computed from state and timestamps when read (see `containerStatusText`). */
  statusText: string;
  labels: Record<string, string>;
  createdAt: string;
  /** ISO times of the last start and finish; null when the container never did either. */
  startedAt: string | null;
  finishedAt: string | null;
  /** Known once the container is not running; null while running or when it never ran. */
  exitCode: number | null;
  /** The kernel's OOM killer ended it (then exit code 137 means out of memory, not a kill). */
  oomKilled: boolean;
}

export interface LogReadOptions {
  /** At most this many lines, the newest ones. */
  tail: number;
  /** Only lines written at or after this time (ms since the epoch, engine host's clock). */
  sinceMs?: number;
}

/**
 * What the app needs from a container engine. Local Docker implements it today; Docker over SSH,
 * Podman and Slurm-backed engines implement the same interface, so swarm logic never changes.
 */
export interface ContainerEngine {
  readonly summary: EngineSummary;
  /** How this engine words its fixes; engine-neutral logic builds its errors with it. */
  readonly wording: EngineWording;
  health(): Promise<EngineHealth>;
  /** Containers carrying every given label (`key=value`). */
  listContainers(labels: Record<string, string>): Promise<ContainerSummary[]>;
  inspectContainer(id: string): Promise<ContainerSummary>;
  imageExists(image: string): Promise<boolean>;
  createContainer(spec: ContainerSpec): Promise<string>;
  /** `hint.port` lets a "port already allocated" error name the port Docker does not name. */
  startContainer(id: string, hint?: { port?: number }): Promise<void>;
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  /** The newest lines of the container's stdout and stderr, oldest first; works while it runs. */
  readLog(id: string, options: LogReadOptions): Promise<string[]>;
  /** Whether nothing listens on `port` on the engine's host loopback. */
  isHostPortFree(port: number): Promise<boolean>;
  /** The URL under which the app reaches `port` of the engine's host (a tunnel for remote engines). */
  urlForHostPort(port: number): Promise<string>;
  /**
   * The app no longer needs `port`'s URL (its server was stopped or removed): a remote engine closes
   * the tunnel it opened, so an idle tunnel neither holds a local port nor reports a dead swarm API.
   */
  releaseHostPort?(port: number): Promise<void>;
  dispose(): Promise<void>;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Docker's own wording of a duration (go-units HumanDuration), so our text matches `docker ps`. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.floor(seconds / 60);
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return plural(Math.floor(hours / 24), 'day');
  if (hours < 24 * 30 * 2) return plural(Math.floor(hours / 24 / 7), 'week');
  if (hours < 24 * 365 * 2) return plural(Math.floor(hours / 24 / 30), 'month');
  return plural(Math.floor(hours / 24 / 365), 'year');
}

/**
 * One wording of a container's state for every answer (list, start, stop), computed from state and
 * timestamps at the time it is read, so it never freezes at "Up Less than a second".
 */
export function containerStatusText(
  c: Pick<ContainerSummary, 'state' | 'startedAt' | 'finishedAt' | 'exitCode'>,
  now = Date.now(),
): string {
  const since = (iso: string | null) => (iso ? Math.max(0, now - Date.parse(iso)) : null);
  const up = since(c.startedAt);
  const down = since(c.finishedAt);
  switch (c.state) {
    case 'running':
      return up === null ? 'Up' : `Up ${humanDuration(up)}`;
    case 'paused':
      return up === null ? 'Up (Paused)' : `Up ${humanDuration(up)} (Paused)`;
    case 'restarting':
      return down === null ? 'Restarting' : `Restarting (${c.exitCode ?? 0}) ${humanDuration(down)} ago`;
    case 'exited':
      return down === null ? `Exited (${c.exitCode ?? 0})` : `Exited (${c.exitCode ?? 0}) ${humanDuration(down)} ago`;
    case 'created':
      return 'Created';
    case 'removing':
      return 'Removal In Progress';
    case 'dead':
      return 'Dead';
    default:
      return 'Unknown';
  }
}
