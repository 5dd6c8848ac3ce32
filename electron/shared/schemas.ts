import { z } from 'zod';

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
  .number({ error: 'port must be a number between 1024 and 65535' })
  .int('port must be a whole number')
  .min(1024, 'port must be 1024 or higher (ports below need root)')
  .max(65535, 'port must be 65535 or lower');

export const ContainerId = z
  .string()
  .regex(/^[a-f0-9]{12,64}$/, 'container id must be 12 to 64 hex characters');

/**
 * How the swarm port reaches the user's machine. `publish` binds it on the engine host's loopback
 * only (the safe default: the swarm API has no authentication). `host` shares the host network,
 * needed where the engine has no bridge network (our test bed) or for multi-node setups.
 */
export const NetworkMode = z.enum(['publish', 'host']);

export const SwarmStartRequest = z.object({
  engineId: EngineId.default('local'),
  image: ImageRef,
  port: Port.default(10086),
  networkMode: NetworkMode.default('publish'),
  /** On by default: the swarm server cannot train without GPUs, so fail fast where none exist. */
  gpus: z.boolean().default(true),
  /** Shared memory in GiB; the AgentJet docs use 32 (vLLM/NCCL need a large /dev/shm). */
  shmSizeGb: z.number().int().min(1).max(1024).default(32),
});

export const EngineRef = z.object({ engineId: EngineId.default('local') });

export const ContainerRef = z.object({
  engineId: EngineId.default('local'),
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

export const SwarmContainer = z.object({
  id: ContainerId,
  name: z.string(),
  engineId: EngineId,
  image: z.string(),
  state: ContainerState,
  /** Docker's human text, e.g. "Up 3 minutes". */
  statusText: z.string(),
  port: Port,
  networkMode: NetworkMode,
  createdAt: z.string(),
});

export const EngineStatusName = z.string();

/** What the app knows about one swarm server right now, from polling its HTTP API. */
export const SwarmStatus = z.object({
  engineId: EngineId,
  containerId: ContainerId,
  url: z.string(),
  /** `starting` until the first good /health after start, `unreachable` after that on failure. */
  connection: z.enum(['starting', 'online', 'unreachable', 'stopped']),
  /** e.g. ENGINE.OFFLINE, ENGINE.ROLLING; null until the server answered once. */
  engineStatus: EngineStatusName.nullable(),
  engineStatusDetail: z.string().nullable(),
  globalStep: z.number().int().nullable(),
  lastError: z.string().nullable(),
  checkedAt: z.string(),
});

export const EngineKind = z.enum(['local-docker', 'ssh-docker', 'podman', 'slurm']);

export const EngineSummary = z.object({
  id: EngineId,
  kind: EngineKind,
  label: z.string(),
  /** Where the engine is, e.g. "unix:///var/run/docker.sock". Never holds credentials. */
  endpoint: z.string(),
});

export const EngineHealth = z.object({
  id: EngineId,
  reachable: z.boolean(),
  version: z.string().nullable(),
  apiVersion: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

export const Language = z.enum(['en', 'zh-CN']);

export const SwarmDefaults = z.object({
  image: ImageRef,
  port: Port,
  networkMode: NetworkMode,
  gpus: z.boolean(),
  shmSizeGb: z.number().int().min(1).max(1024),
});

export const Settings = z.object({
  language: Language,
  swarm: SwarmDefaults,
});

export const SettingsPatch = z.object({
  language: Language.optional(),
  swarm: SwarmDefaults.partial().optional(),
});

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
   * file is copied to `movedTo` before the first save.
   */
  problem: z.enum(['unreadable', 'moved-aside', 'fields-reset']).nullable(),
  /** False while saving would write over a file that could not be read. */
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

export const AppInfo = z.object({
  version: z.string(),
  host: z.enum(['electron', 'browser']),
  platform: z.string(),
});

export const Empty = z.object({}).strict().default({});

export type SwarmStartRequest = z.infer<typeof SwarmStartRequest>;
export type SwarmStartInput = z.input<typeof SwarmStartRequest>;
export type EngineRef = z.infer<typeof EngineRef>;
export type ContainerRef = z.infer<typeof ContainerRef>;
export type ContainerState = z.infer<typeof ContainerState>;
export type SwarmContainer = z.infer<typeof SwarmContainer>;
export type SwarmStatus = z.infer<typeof SwarmStatus>;
export type EngineSummary = z.infer<typeof EngineSummary>;
export type EngineHealth = z.infer<typeof EngineHealth>;
export type EngineKind = z.infer<typeof EngineKind>;
export type NetworkMode = z.infer<typeof NetworkMode>;
export type Language = z.infer<typeof Language>;
export type Settings = z.infer<typeof Settings>;
export type SettingsPatch = z.infer<typeof SettingsPatch>;
export type AppInfo = z.infer<typeof AppInfo>;
export type StoreStatus = z.infer<typeof StoreStatus>;
export type LogTail = z.infer<typeof LogTail>;
