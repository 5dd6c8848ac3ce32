import type { SwarmExit, SwarmStatus } from '../../shared/schemas';
import type { Visibility } from '../app/visibility';
import type { ContainerEvent } from '../engines/container-engine';
import type { EventSink } from '../events';
import type { EngineStatusReading, SwarmHttpError } from './swarm-http-client';
import type { OwnStops } from './own-stops';
import type { Logger } from '../util/logger';

export interface WatchTarget {
  engineId: string;
  containerId: string;
  url: string;
}

/** Through what the app reaches a swarm server's HTTP port (`SwarmStatus.via`). */
export type LinkVia = NonNullable<SwarmStatus['via']>;

/**
 * What happened to a watched server, for the services that follow the same servers (logs, training
 * monitor): `watch` (new, or its URL changed after a reconnect), `ended` (not running any more, with
 * why), `forgotten` (removed).
 */
export type TargetEvent =
  | { kind: 'watch'; target: WatchTarget }
  | { kind: 'ended'; target: WatchTarget; status: SwarmStatus }
  | { kind: 'forgotten'; engineId: string; containerId: string };

/**
 * One poll of a watched server, fanned out to whoever needs the server's engine status (training
 * monitor, tunnel probe, wizard) so that nobody asks the server a second time.
 */
export interface SwarmReading {
  target: WatchTarget;
  /** When the poll was sent (ms since the epoch). */
  at: number;
  /** The answer of /get_engine_status; null when the poll failed. */
  engine: EngineStatusReading | null;
  /** Why the poll failed; `kind` 'not-found' means this server has no /get_engine_status. */
  error: { message: string; kind: SwarmHttpError['kind'] | 'other' } | null;
  /** How long the answer took (ms); null when none came. */
  latencyMs: number | null;
}

/** Statuses are keyed by engine and container: two engines may share an id space. */
export function statusKey(engineId: string, containerId: string): string {
  return `${engineId}:${containerId}`;
}

export interface SwarmMonitorOptions {
  events: EventSink;
  /** Poll interval while a window shows the app (default 1000, AgentJet's own client's cadence). */
  intervalMs?: number;
  /**
   * Poll interval while no window shows anything (default four intervals: 4 s in the app, under
   * uvicorn's 5 s keep-alive so the one pooled connection stays open; 15 requests a minute per server).
   */
  hiddenIntervalMs?: number;
  /** Longest wait between two polls of a server that does not answer (default 30 s; doubling up to it). */
  maxBackoffMs?: number;
  /** Per-request timeout (default three intervals, between 0.5 and 3 s). */
  timeoutMs?: number;
  /** Whether any window shows the app; absent: always shown (tests, tools). */
  visibility?: Visibility;
  /** Through what a target is reached, named in its status and in "no answer" errors (default 'direct'). */
  viaOf?: (target: WatchTarget) => LinkVia;
  /** First retry delay while a fresh server has not answered yet; doubles up to the interval (default 50). */
  firstRetryMs?: number;
  /** Asked after a failed poll: is the container still running? Lets us say "stopped", not "unreachable". */
  isContainerRunning: (target: WatchTarget) => Promise<boolean>;
  onContainerGone?: (target: WatchTarget) => void;
  /**
   * Why a container is not running (exit code, explaining log lines); `requested` when the app
   * stopped it; `'gone'` when it was removed (then its status is announced once and not kept).
   */
  describeExit?: (target: WatchTarget, requested: boolean) => Promise<SwarmExit | null | 'gone'>;
  /** The app's own stops kept across restarts (own-stops.ts): an end read again later is still "stopped by you". */
  ownStops?: Pick<OwnStops, 'add' | 'drop' | 'has'>;
  /** Where a poll whose answer could not be handled is reported (the polls go on). */
  logger?: Pick<Logger, 'warn'>;
  /** The newest lines of the running container's log, oldest first (default: none). */
  readLog?: (target: WatchTarget, options: { tail: number; sinceMs?: number }) => Promise<string[]>;
  /** How long a fresh server may stay silent before we call it unreachable (default 60 s). */
  startGraceMs?: number;
  /** A boot that lasts longer than this points at the log (default 5 min: models load for minutes). */
  bootWarnAfterMs?: number;
  /** How often the log is read while the engine boots (default 2 s). */
  bootLogEveryMs?: number;
  /**
   * Subscribes to the engines' container events (Docker's event stream), so a crash ends its watch
   * at once instead of at the next failed poll; returns the unsubscribe.
   */
  subscribeEvents?: (onEvent: (engineId: string, event: ContainerEvent) => void) => () => void;
}
