import type { PoolStart, WorkerPlacementData } from '../../shared/schemas-workers';
import type { WorkerNote } from '../../shared/schemas-workers';

/**
 * Where a worker runs: this computer (the job runner) or an SSH host (a copied project, detached).
 * The pool drives both the same way: start, poll (new log lines, still alive?), stop.
 */
export interface WorkerStartSpec {
  poolId: string;
  index: number;
  request: PoolStart;
  placement: WorkerPlacementData;
  /** The share and progress settings: plain values, never secrets. */
  shareEnv: Record<string, string>;
  label: string;
  /** Workers started together under a tag (a Slurm array added or restarted): their run folder is named by it, so it is new. */
  runTag?: string;
}

/** What the pool keeps of a started worker (persisted: found again after an app restart). */
export interface WorkerHandle {
  pid: number | null;
  jobId: string | null;
  /** SSH workers: the run folder on the host (~/.agentswarm/workers/<pool>-<index>). */
  runDir: string | null;
  /** SSH workers: bytes of the remote log read so far. */
  logOffset: number;
  /** Something to tell the user about this start (the reverse tunnel's cost), in English. */
  note: string | null;
  /** The same as data (worker-notes.ts), for the renderer's words. */
  notes?: WorkerNote[];
  /** SSH workers through a reverse tunnel: the port on the worker's host (served again after an app restart). */
  tunnelPort: number | null;
}

export interface WorkerEnd {
  exitCode: number | null;
  signal: string | null;
  /** Could not start at all (preflight, copy, spawn): the message says why. */
  startError: string | null;
}

export interface WorkerPoll {
  lines: string[];
  /** Set once the worker's process is gone. */
  end: WorkerEnd | null;
}

export interface WorkerBackend {
  /** Resolves once the process runs (or throws an AppError saying why it cannot). */
  start(spec: WorkerStartSpec): Promise<WorkerHandle>;
  /** Several workers of one placement at once (a Slurm job array: one submission); one handle per spec, in order. */
  startGroup?(specs: WorkerStartSpec[]): Promise<WorkerHandle[]>;
  poll(handle: WorkerHandle, spec: WorkerStartSpec): Promise<WorkerPoll>;
  /** Ends the worker (its process tree on its host, by pid only); resolves once it is gone. */
  stop(handle: WorkerHandle, spec: WorkerStartSpec): Promise<void>;
  /** How to name the host in the table. */
  where(placement: WorkerPlacementData): string;
}
