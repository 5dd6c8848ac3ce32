import type { ContainerState, EngineHealth, EngineSummary } from '../../shared/schemas';
import type { SlurmJobOptions } from '../../shared/schemas-slurm';
import type { EngineWording } from './engine-wording';

/** Labels that mark a container as ours, so the app finds it again after a restart. */
export const LABEL_MANAGED = 'io.agentswarm.managed';
export const LABEL_ROLE = 'io.agentswarm.role';
export const LABEL_PORT = 'io.agentswarm.port';
export const LABEL_NETWORK = 'io.agentswarm.network';
export const LABEL_APP_VERSION = 'io.agentswarm.app-version';
/**
 * Docker's label filter (`--filter label=k=v`), for the engines and views that filter themselves (Slurm jobs, native
 * runs, the dry run, a scoped app): whether `labels` carries every `key=value` of `filter`.
 */
export function carriesLabels(labels: Record<string, string>, filter: Record<string, string>): boolean {
  return Object.entries(filter).every(([key, value]) => labels[key] === value);
}
/** The swarm profile a container was started from (one container per profile). */
export const LABEL_PROFILE = 'io.agentswarm.profile';
/** Hash of the profile's container-relevant settings at start: differs from the profile's → drifted. */
export const LABEL_CONFIG_HASH = 'io.agentswarm.config-hash';

export interface PortBinding {
  containerPort: number;
  hostIp: string;
  hostPort: number;
}

/** `-v hostPath:containerPath[:ro]`. */
export interface BindMount {
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
}

/** `--gpus all`, `--gpus '"device=0,2"'`, or no GPU request at all. */
export type GpuRequest = { mode: 'all' } | { mode: 'ids'; ids: string[] } | { mode: 'none' };

/** `--shm-size=<bytes>` or `--ipc=host`. */
export type ShmRequest = { mode: 'size'; bytes: number } | { mode: 'ipc-host' };

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
  gpus: GpuRequest;
  shm: ShmRequest;
  binds: BindMount[];
  /**
   * `native`: no container; the engine's host runs `cmd` directly (AgentJet installed there), detached,
   * with a pid file and a log file in a run directory. Engines without native support refuse it.
   * Image, network, GPUs, shm and binds then do not apply (the host's own are used).
   */
  runtime?: 'container' | 'native';
  /** Native only: a shell line run before `cmd` (e.g. `source ~/venv/bin/activate`). */
  nativeActivate?: string | null;
  /** Slurm engines only: the batch job's options (partition, time limit, GPUs, how the server runs); Docker engines ignore it. */
  batch?: SlurmJobOptions;
}

/** Ids of native "containers" (processes the app started on an engine's host) start with this. */
export const NATIVE_ID_PREFIX = 'native-';

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
  /**
   * A batch scheduler ended it (Slurm's TIMEOUT, NODE_FAIL, PREEMPTED, or a scancel the app did not
   * send): named whatever the exit code. Absent: no scheduler, or the job ended by itself.
   */
  schedulerEnd?: 'time-limit' | 'node-failure' | 'preempted' | 'cancelled';
  /** The engine knows the app itself stopped it (the in-app dry run): its end is a stop on request. */
  stoppedByApp?: boolean;
  /** A batch job still waiting in the scheduler's queue: Slurm's reason and its place. */
  queue?: { reason: string | null; position: number | null };
}

/** What an engine's own GPU check found (see ContainerEngine.verifyGpus). */
export type EngineGpuCheck =
  | { status: 'skipped'; reason: string }
  | { status: 'passed'; detail: string }
  /** `problem`: what was asked and what was given; `fix`: what to change, in the engine's words. */
  | { status: 'failed'; problem: string; fix: string };

export interface LogReadOptions {
  /** At most this many lines, the newest ones. */
  tail: number;
  /** Only lines written at or after this time (ms since the epoch, engine host's clock). */
  sinceMs?: number;
}

/** What the engine says about itself (`docker info` essentials), for the preflight doctor. */
export interface EngineInfo {
  /** e.g. "Docker Desktop", "Debian GNU/Linux 12 (bookworm)" (docker info OperatingSystem). */
  operatingSystem: string;
  /** "linux", "windows". */
  osType: string;
  serverVersion: string;
  /** Docker's data root, e.g. /var/lib/docker (where images land: the disk the doctor checks). */
  rootDir: string;
  /** Runtime names (runc, nvidia, …) and the default one. */
  runtimes: string[];
  defaultRuntime: string;
  /** CDI device names the engine knows (e.g. nvidia.com/gpu=0); empty when none or not reported. */
  cdiDevices: string[];
  /** Rootless engine (security options name "rootless"). */
  rootless: boolean;
}

/** An image present on the engine. */
export interface ImageInfo {
  id: string;
  /** repo@sha256:… digests (empty for an image never pushed or pulled). */
  repoDigests: string[];
  sizeBytes: number;
}

/** One progress message of a pull, as the Docker API streams it (per layer). */
export interface PullEvent {
  /** Layer id, or undefined for whole-image messages ("Pulling from …", "Digest: …", "Status: …"). */
  id?: string;
  /** "Pulling fs layer", "Downloading", "Extracting", "Pull complete", "Already exists", … */
  status: string;
  progressDetail?: { current?: number; total?: number };
}

/** A line of a container's output as the engine streams it. */
export interface EngineLogLine {
  stream: 'stdout' | 'stderr';
  /** The engine's timestamp: RFC 3339 with nanoseconds, as Docker sends it (`--timestamps`); the resume cursor. */
  timestamp: string | null;
  text: string;
}

export interface FollowLogOptions {
  /** Only lines with a timestamp after this one (Docker `since` with nanoseconds); from the start when absent. */
  sinceTimestamp?: string;
  /**
   * Several lines can share a timestamp: how many lines AT `sinceTimestamp` were already seen (skip
   * those, deliver the rest). Absent: every line at that time was seen.
   */
  skipAtSince?: number;
  /** Stop following; the promise resolves. */
  signal: AbortSignal;
  /** Called with lines in order, in batches. */
  onLines: (lines: EngineLogLine[]) => void;
}

/** A container event the app acts on (Docker's events API, filtered to our labels). */
export interface ContainerEvent {
  containerId: string;
  action: 'start' | 'die' | 'oom' | 'stop' | 'destroy';
  /** `die` carries the exit code. */
  exitCode: number | null;
  /** ms since the epoch (engine's clock). */
  at: number;
  labels: Record<string, string>;
}

/** What running a command on the engine's host gave. */
export interface HostExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * What a command run inside a container gave (`docker exec`). `code` is null when it did not end
 * within the caller's timeout: nothing was killed, the app stopped waiting. Each stream is capped.
 */
export interface ContainerExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The machine the engine runs on, for what the engine API cannot say: `nvidia-smi`, free disk, a
 * model folder, native `ajet-swarm` processes. Local: this computer's `sh`; SSH: an exec channel on
 * the server's current connection. Scripts are POSIX sh; callers quote every value with `shellQuote`.
 */
export interface EngineHost {
  readonly kind: 'local' | 'ssh';
  /** How to name the host in messages: "this computer", "gpu-1 (alice@10.0.0.5)". */
  readonly label: string;
  /** Runs `sh -c script`; `stdin` is written and closed (never pass secrets in `script`: it may show in ps). */
  exec(script: string, options?: { timeoutMs?: number; stdin?: string }): Promise<HostExecResult>;
}

/** Quotes a value for POSIX sh: 'it'"'"'s'. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'"'"'`)}'`;
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
  /** `docker info` essentials (runtimes, CDI devices, data root, OS) for the doctor. */
  info(): Promise<EngineInfo>;
  /** The image if present, null if not. */
  inspectImage(image: string): Promise<ImageInfo | null>;
  /** Pulls `image`, calling `onEvent` per progress message; rejects with IMAGE_NOT_FOUND / IMAGE_PULL_DENIED / IMAGE_PULL_FAILED, or an AbortError on `signal`. */
  pullImage(image: string, onEvent: (event: PullEvent) => void, signal: AbortSignal): Promise<void>;
  /** Follows stdout+stderr (demultiplexed) from `sinceTimestamp` until the container stops or `signal` aborts. */
  followLog(id: string, options: FollowLogOptions): Promise<void>;
  /** Calls `onEvent` for events of containers carrying every label; returns the unsubscribe. Reconnects by itself. */
  watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void): () => void;
  /** The last `maxBytes` of a file inside the container (Docker's archive API: needs no tools in the image); null if absent. */
  readContainerFile(id: string, path: string, maxBytes: number): Promise<string | null>;
  /**
   * Runs `cmd` (an argv, no shell) inside the running container `id` and returns its exit code and
   * output, each stream capped (the post-start GPU check runs `nvidia-smi -L` this way). Past
   * `timeoutMs` the app stops waiting (code null) and kills nothing. Rejects with an AppError when
   * the engine refuses: container gone or not running, or no exec on this engine.
   */
  execInContainer(id: string, cmd: string[], options: { timeoutMs: number }): Promise<ContainerExecResult>;
  /** The engine's host, where the app can run commands; null where it cannot (e.g. Docker on Windows, a remote TCP socket). */
  readonly host: EngineHost | null;
  /** Whether nothing listens on `port` on the engine's host loopback. */
  isHostPortFree(port: number): Promise<boolean>;
  /** The URL under which the app reaches `port` of the engine's host (a tunnel for remote engines). */
  urlForHostPort(port: number): Promise<string>;
  /**
   * The app no longer needs `port`'s URL (its server was stopped or removed): a remote engine closes
   * the tunnel it opened, so an idle tunnel neither holds a local port nor reports a dead swarm API.
   */
  releaseHostPort?(port: number): Promise<void>;
  /**
   * A batch scheduler (Slurm): Start may return a server still waiting in its queue (`created`, "queued: …") or
   * running without its address yet, or one that ended at once (kept, with its output); the swarm services adopt
   * such a server when its `start` event arrives. Absent: a container engine, whose started container serves.
   */
  readonly queuesJobs?: boolean;
  /** Why the post-start GPU check could not see GPUs the engine gave the server another way (a native job's --gres); null: nothing to add. */
  gpusNotChecked?(spec: Pick<ContainerSpec, 'gpus' | 'batch'>): string | null;
  /**
   * The engine's own post-start GPU check, in place of nvidia-smi inside the container: a scheduler checks what the
   * job was given (Slurm: the job's allocation). Its failure names the request and the scheduler's fix.
   */
  verifyGpus?(containerId: string, spec: Pick<ContainerSpec, 'gpus' | 'runtime' | 'batch'>): Promise<EngineGpuCheck>;
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
