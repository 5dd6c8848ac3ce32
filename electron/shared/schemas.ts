import { z } from 'zod';
import {
  PORT_MAX,
  PORT_MIN,
  SHM_GB_MAX,
  SHM_GB_MIN,
  SWARM_DEFAULT_GPUS,
  SWARM_DEFAULT_NETWORK_MODE,
  SWARM_DEFAULT_PORT,
  SWARM_DEFAULT_SHM_GB,
} from './defaults';
import { ErrorCodes } from './errors';

/** Engine ids are short slugs chosen by the app ("local", later "ssh-<name>"). */
export const EngineId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'engine id must be lowercase letters, digits, ".", "_" or "-"');

/**
 * A Docker image reference such as `ghcr.io/modelscope/agentjet:main` or `127.0.0.1:5000/x/y:1`.
 * Deliberately permissive on the path but strict on characters, so shell-ish input is refused early.
 */
export const ImageRef = z
  .string()
  .trim()
  .min(1, 'image is required, e.g. ghcr.io/modelscope/agentjet:main')
  .max(255)
  .regex(
    /^[a-z0-9]+([._:/-][a-zA-Z0-9]+)*(@sha256:[a-f0-9]{64})?$/,
    'image must look like registry/name:tag, e.g. ghcr.io/modelscope/agentjet:main',
  );

export const Port = z
  .number({ error: `port must be a number between ${PORT_MIN} and ${PORT_MAX}` })
  .int('port must be a whole number')
  .min(PORT_MIN, `port must be ${PORT_MIN} or higher (ports below need root)`)
  .max(PORT_MAX, `port must be ${PORT_MAX} or lower`);

/** Shared memory for the swarm container, in whole GiB. */
export const ShmSizeGb = z.number().int().min(SHM_GB_MIN).max(SHM_GB_MAX);

/**
 * An engine's id for a container or job: Docker's 64 hex characters (or a 12+ prefix), but also a
 * Slurm job id (`12345`, `12345_7`) or a Podman id. Strict on characters, so it can never smuggle a
 * path or an option into an engine call.
 */
export const ContainerId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/,
    'container id must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

/**
 * How the swarm port reaches the user's machine. `publish` binds it on the engine host's loopback
 * only (the safe default: the swarm API has no authentication). `host` shares the host network,
 * needed where the engine has no bridge network (our test bed) or for multi-node setups.
 */
export const NetworkMode = z.enum(['publish', 'host']);

/**
 * Every request that acts on an engine names it: no default, so a caller that forgets `engineId`
 * gets VALIDATION_FAILED naming the field instead of silently acting on the local engine.
 */
export const SwarmStartRequest = z.object({
  engineId: EngineId,
  image: ImageRef,
  port: Port.default(SWARM_DEFAULT_PORT),
  networkMode: NetworkMode.default(SWARM_DEFAULT_NETWORK_MODE),
  /** On by default (see `SWARM_DEFAULT_GPUS`). */
  gpus: z.boolean().default(SWARM_DEFAULT_GPUS),
  shmSizeGb: ShmSizeGb.default(SWARM_DEFAULT_SHM_GB),
});

export const EngineRef = z.object({ engineId: EngineId });

export const ContainerRef = z.object({
  engineId: EngineId,
  containerId: ContainerId,
});

export const ContainerState = z.enum([
  'created',
  'running',
  'paused',
  'restarting',
  'removing',
  'exited',
  'dead',
  'unknown',
]);

/** Where a waiting batch job stands: Slurm's reason code ("Resources", "Priority", "JobHeldUser") and position. */
export const QueuePlace = z.object({ reason: z.string().nullable(), position: z.number().int().positive().nullable() });

export const SwarmContainer = z.object({
  id: ContainerId,
  name: z.string(),
  engineId: EngineId,
  image: z.string(),
  state: ContainerState,
  /**
   * Docker-style text ("Up 3 seconds", "Exited (143) 2 minutes ago"), computed when this object
   * was read. The UI derives its own, ticking text from the timestamps below.
   */
  statusText: z.string(),
  port: Port,
  networkMode: NetworkMode,
  createdAt: z.string(),
  /** When the container last started / finished (ISO); null when it never did. */
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** Exit code once it is not running; null while running or never started. */
  exitCode: z.number().int().nullable(),
  /** The swarm profile it was started from (its label); absent for a quick start without a profile. */
  profileId: z.string().optional(),
  /** A batch job still waiting in the scheduler's queue: why (Slurm's reason) and its place; absent otherwise. */
  queue: QueuePlace.optional(),
});

export const EngineStatusName = z.string();

/** Lines picked from a container's log. */
export const LogExcerpt = z.object({
  /** Oldest first, each at most a few hundred characters. */
  lines: z.array(z.string()),
  /** True: tracebacks or error-level lines that explain; false: only the last output (no error seen). */
  explains: z.boolean(),
});

/**
 * How a swarm server ended, the one list every surface words: `stopped`: by the app's Stop;
 * `stopped-outside`: a stop the app did not ask for (`docker stop` in a terminal: SIGTERM, 143);
 * `killed`: SIGKILL (137) without OOM; `out-of-memory`; `unexpected-stop`: exit code 0, although
 * the server is meant to run until stopped; `crashed`: any other exit code. A batch scheduler's
 * ends, whatever the code: `time-limit` (TIMEOUT), `node-failure` (NODE_FAIL), `preempted`,
 * `cancelled` (scancel outside the app).
 */
export const SwarmExitKind = z.enum([
  'stopped',
  'stopped-outside',
  'killed',
  'out-of-memory',
  'unexpected-stop',
  'crashed',
  'time-limit',
  'node-failure',
  'preempted',
  'cancelled',
]);

/** Why a swarm container is no longer running, from the engine's inspect (exit code, OOM flag) and the log. */
export const SwarmExit = z.object({
  kind: SwarmExitKind,
  code: z.number().int().nullable(),
  finishedAt: z.string().nullable(),
  log: LogExcerpt,
  /** The last lines of the log (up to 50, oldest first), for the crash report; absent on a requested stop. */
  tail: z.array(z.string()).optional(),
});

/**
 * Something about the training engine the raw status does not say. `boot-failed`: the status went
 * BOOTING → OFFLINE (upstream's trainer died while booting); `boot-errors`: still BOOTING but the
 * log shows errors since the boot began (upstream stays BOOTING when start_engine fails early);
 * `boot-slow`: BOOTING for longer than the monitor's threshold; `engine-ended`: OFFLINE with
 * global_step 0, the mark upstream's failure and exit hooks leave (seen after an app restart).
 */
export const EngineProblem = z.object({
  kind: z.enum(['boot-failed', 'boot-errors', 'boot-slow', 'engine-ended']),
  /** When the app noticed it (ISO). */
  since: z.string(),
  log: LogExcerpt,
});

/** What the app knows about one swarm server right now, from polling its HTTP API. */
export const SwarmStatus = z.object({
  engineId: EngineId,
  containerId: ContainerId,
  url: z.string(),
  /** `starting` until the first good answer after start, `unreachable` after that on failure. */
  connection: z.enum(['starting', 'online', 'unreachable', 'stopped']),
  /** e.g. ENGINE.OFFLINE, ENGINE.ROLLING, as the server said; null until it answered, and once stopped. */
  engineStatus: EngineStatusName.nullable(),
  /** The detail and step of the engine that runs now: null unless it is past booting, and never 0. */
  engineStatusDetail: z.string().nullable(),
  globalStep: z.number().int().nullable(),
  /**
   * History: the last step and detail an engine reached before it went OFFLINE (upstream keeps
   * them after stop_engine). Shown as "last step 5", never as current progress.
   */
  lastGlobalStep: z.number().int().nullable(),
  lastEngineStatusDetail: z.string().nullable(),
  /** When the current boot began (ISO): the server's booting_start_time, else when the app saw it. */
  bootingSince: z.string().nullable(),
  engineProblem: EngineProblem.nullable(),
  /** Set once the container is no longer running (connection `stopped`), also after an app restart. */
  exit: SwarmExit.nullable(),
  /** Why the last poll failed (connection text); null when the last poll worked. */
  lastError: z.string().nullable(),
  checkedAt: z.string(),
  /**
   * When the server last answered (ISO), null before its first answer. While `online` the monitor
   * keeps confirming without an event per poll (ask `swarm:statuses` for the newest); once
   * `unreachable` it is the age of what is shown. Optional: sources other than the monitor omit it.
   */
  confirmedAt: z.string().nullable().optional(),
  /**
   * Through what the app reaches the server's HTTP port, so "unreachable" can name the failing link:
   * `direct` (a local engine's port), `ssh-tunnel` (an SSH server's tunnel), `login-node` (a Slurm
   * job, through its login node).
   */
  via: z.enum(['direct', 'ssh-tunnel', 'login-node']).optional(),
});

/** `dry-run`: the in-app dry-run swarm (issue 15), one pseudo-container while it runs; shown by its own card. */
export const EngineKind = z.enum(['local-docker', 'ssh-docker', 'podman', 'slurm', 'dry-run']);

export const EngineSummary = z.object({
  id: EngineId,
  kind: EngineKind,
  label: z.string(),
  /** Where the engine is, e.g. "unix:///var/run/docker.sock". Never holds credentials. */
  endpoint: z.string(),
});

/** What answers on an engine's API: Docker, or Podman (its `/version` names "Podman Engine"). */
export const EngineProduct = z.enum(['docker', 'podman']);

export const EngineHealth = z.object({
  id: EngineId,
  reachable: z.boolean(),
  version: z.string().nullable(),
  apiVersion: z.string().nullable(),
  /** Known once the engine answered; absent for engines that are not container engines (dry run). */
  product: EngineProduct.nullable().optional(),
  /** Rootless Docker or Podman; null when not known. */
  rootless: z.boolean().nullable().optional(),
  /**
   * What the engine says of GPUs for containers (`docker info`: an NVIDIA runtime or NVIDIA CDI
   * devices), so a first start form does not tick "Use all GPUs" on a laptop without any. `devices`
   * counts the CDI GPUs; null when the engine does not list them (the NVIDIA runtime does not).
   * Absent or null when not known.
   */
  gpus: z.object({ runtime: z.boolean(), devices: z.number().int().min(0).nullable() }).nullable().optional(),
  error: z.object({ code: z.enum(ErrorCodes), message: z.string() }).nullable(),
});

export const Language = z.enum(['en', 'zh-CN']);

export const SwarmDefaults = z.object({
  image: ImageRef,
  port: Port,
  networkMode: NetworkMode,
  gpus: z.boolean(),
  shmSizeGb: ShmSizeGb,
});

export const Settings = z.object({
  language: Language,
  /**
   * True once the user picked a language in Settings. Until then the renderer follows the OS or
   * browser language (navigator.language), so a first launch on a Chinese system opens in zh-CN.
   */
  languageChosen: z.boolean().optional(),
  swarm: SwarmDefaults,
});

/** Each section of `Shape` optional; an object section field by field (every field optional too). */
type PatchShape<Shape extends z.ZodRawShape> = {
  [K in keyof Shape]: z.ZodOptional<
    Shape[K] extends z.ZodObject<infer Inner> ? z.ZodObject<{ [P in keyof Inner]: z.ZodOptional<Inner[P]> }> : Shape[K]
  >;
};

/**
 * The patch schema of an object schema, derived section by section, so a feature that adds a
 * settings section adds it to `Settings` and nowhere else (the merge in services/util/merge.ts
 * is generic too).
 */
export function patchSchemaOf<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>): z.ZodObject<PatchShape<Shape>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    shape[key] = (field instanceof z.ZodObject ? field.partial() : (field as z.ZodType)).optional();
  }
  // The loop builds exactly PatchShape<Shape>, which the compiler cannot follow through
  // Object.entries; test/unit/shared/contract.spec.ts pins the derived type.
  return z.object(shape) as unknown as z.ZodObject<PatchShape<Shape>>;
}

export const SettingsPatch = patchSchemaOf(Settings);

/**
 * What happened when a JSON file of the app (settings.json) was read. `problem` is null when all
 * is well; otherwise the UI shows the file, what was done and where the original went.
 */
export const StoreStatus = z.object({
  /** Absolute path of the file, shown to the user so they can find it. */
  file: z.string(),
  /**
   * `unreadable`: could not be read (a folder, no permission, data folder is a file); defaults in
   * use and the file is never written over. `moved-aside`: not a JSON object; moved to `movedTo`,
   * defaults in use. `fields-reset`: some fields were invalid and use their defaults; the original
   * file is copied to `movedTo` before the first save. `not-writable`: a test write in its folder
   * (or the last save) failed — read-only, full disk, no permission; `detail` says which.
   */
  problem: z.enum(['unreadable', 'moved-aside', 'fields-reset', 'not-writable']).nullable(),
  /** False while saving would write over a file that could not be read, or the folder takes no write. */
  writable: z.boolean(),
  /** English detail, e.g. "EACCES: no permission to read it". */
  detail: z.string().nullable(),
  movedTo: z.string().nullable(),
  resetFields: z.array(z.string()),
});

export const LogTailRequest = z.object({ lines: z.number().int().min(1).max(500).default(200) });

/** The app log's location and its last lines (redacted), for the Settings page. */
export const LogTail = z.object({
  path: z.string(),
  lines: z.array(z.string()),
  /** Why the log file cannot be written, if it cannot (entries then go to stderr). */
  problem: z.string().nullable(),
  /** True where the app can open the file in the system's viewer (Electron), false in a browser. */
  canOpen: z.boolean(),
});

/** `app:open-log` succeeded: the system's viewer was asked to open this file. */
export const LogOpened = z.object({ opened: z.literal(true), path: z.string() });

export const AppInfo = z.object({
  version: z.string(),
  host: z.enum(['electron', 'browser']),
  platform: z.string(),
  /**
   * Electron only: how the shell's own store (window place, last page, password-store choice) was
   * read. A `problem` means the user is told (e.g. a corrupt file kept at `movedTo`, defaults in
   * use). Null in the browser host; optional so older answers stay valid.
   */
  shellStore: StoreStatus.nullable().optional(),
});

export const Empty = z.object({}).strict().default({});

export type SwarmStartRequest = z.infer<typeof SwarmStartRequest>;
export type SwarmStartInput = z.input<typeof SwarmStartRequest>;
export type EngineRef = z.infer<typeof EngineRef>;
export type ContainerRef = z.infer<typeof ContainerRef>;
export type ContainerState = z.infer<typeof ContainerState>;
export type SwarmContainer = z.infer<typeof SwarmContainer>;
export type SwarmStatus = z.infer<typeof SwarmStatus>;
export type LogExcerpt = z.infer<typeof LogExcerpt>;
export type SwarmExit = z.infer<typeof SwarmExit>;
export type EngineProblem = z.infer<typeof EngineProblem>;
export type EngineSummary = z.infer<typeof EngineSummary>;
export type EngineProduct = z.infer<typeof EngineProduct>;
export type EngineHealth = z.infer<typeof EngineHealth>;
export type EngineKind = z.infer<typeof EngineKind>;
export type NetworkMode = z.infer<typeof NetworkMode>;
export type Language = z.infer<typeof Language>;
export type Settings = z.infer<typeof Settings>;
export type SettingsPatch = z.infer<typeof SettingsPatch>;
export type AppInfo = z.infer<typeof AppInfo>;
export type StoreStatus = z.infer<typeof StoreStatus>;
export type LogTail = z.infer<typeof LogTail>;
export type LogOpened = z.infer<typeof LogOpened>;
