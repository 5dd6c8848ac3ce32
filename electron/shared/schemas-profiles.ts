import { z } from 'zod';
import { SWARM_DEFAULT_NETWORK_MODE, SWARM_DEFAULT_PORT, SWARM_DEFAULT_SHM_GB } from './defaults';
import { ContainerId, EngineId, ImageRef, NetworkMode, Port, ShmSizeGb, SwarmContainer } from './schemas';
import { AbsolutePath, EnvName, HostPath, ProfileId } from './schemas-profile-fields';
import { SlurmJobOptions } from './schemas-slurm';
import { SecretId } from './schemas-vault';
import { AutoStop } from './schemas-fleet';
import { PortHolder } from './port-holder';

export * from './schemas-training';

/**
 * Swarm server profiles (issue 13): everything needed to start one swarm server on one engine, saved
 * in `<data>/swarm-profiles.json`. No secrets: an env variable that holds one is listed by name only
 * (`secretEnv`) and its value is typed for the session (until the credentials vault lands).
 */

// The field types the Slurm job options share (kept apart, so schemas-slurm and this file do not import each other).
export { AbsolutePath, EnvName, HostPath, ProfileId } from './schemas-profile-fields';

/** All GPUs, some by index or UUID (`docker run --gpus '"device=0,1"'`), or none. */
export const GpuSelection = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('all') }),
  z.object({
    mode: z.literal('ids'),
    ids: z
      .array(z.string().regex(/^(\d{1,3}|GPU-[0-9a-fA-F-]{8,64}|MIG-[0-9a-fA-F-]{8,64})$/, 'a GPU is an index (0, 1, …) or a GPU-/MIG- UUID'))
      .min(1, 'name at least one GPU, or choose "all" or "none"')
      .max(64),
  }),
  z.object({ mode: z.literal('none') }),
]);

/** `--shm-size=<n>g`, or `--ipc=host` (the host's /dev/shm, what NCCL wants on multi-GPU hosts). */
export const ShmSelection = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('size'), gb: ShmSizeGb }),
  z.object({ mode: z.literal('ipc-host') }),
]);

export const ProfileMode = z.enum([
  /** The swarm image in a container on the engine (the documented `docker run`). */
  'container',
  /** `ajet-swarm start` run directly on the engine's host (venv / conda), detached, found by its pid file. */
  'native',
]);

export const ProfileEnvVar = z.object({ name: EnvName, value: z.string().max(4096) });

export const ProfileInput = z.object({
  label: z.string().trim().min(1, 'name is required').max(80),
  engineId: EngineId,
  mode: ProfileMode.default('container'),
  image: ImageRef,
  port: Port.default(SWARM_DEFAULT_PORT),
  networkMode: NetworkMode.default(SWARM_DEFAULT_NETWORK_MODE),
  gpus: GpuSelection.default({ mode: 'all' }),
  shm: ShmSelection.default({ mode: 'size', gb: SWARM_DEFAULT_SHM_GB }),
  /** The model on the host, mounted read-only at `containerPath` (what the job's `model` must name). */
  model: z.object({ hostPath: HostPath, containerPath: AbsolutePath }).nullable().default(null),
  /** Host folders for /workspace/log, /workspace/saved_experiments, /workspace/saved_checkpoints. */
  logDir: HostPath.nullable().default(null),
  experimentsDir: HostPath.nullable().default(null),
  checkpointsDir: HostPath.nullable().default(null),
  /** Plain env (e.g. NCCL_NVLS_ENABLE=0). Never a secret: the form says so, and names like *_KEY are refused here. */
  env: z.array(ProfileEnvVar).max(64).default([]),
  /** Env variables whose value is a secret (SWANLAB_API_KEY): names only; values are given per session. */
  secretEnv: z.array(EnvName).max(16).default([]),
  /**
   * Secret env names whose value comes from the credentials vault, by secret id (never a value):
   * `{SWANLAB_API_KEY: 'swanlab-main'}`. At Start a value typed in the start dialog wins, else the
   * vault's, else the one typed earlier in this run. Names not in `secretEnv` are ignored.
   */
  secretRefs: z.record(EnvName, SecretId).default({}),
  /** Native mode only: a shell line that makes `ajet-swarm` available (e.g. `source ~/venv/bin/activate`). */
  nativeActivate: z.string().max(512).nullable().default(null),
  /**
   * The batch job's options when the engine is a Slurm cluster (partition, time limit, GPUs, how the server runs);
   * null: the Slurm engine derives them from the mode, activate line and GPUs above. Other engines ignore it.
   */
  slurm: SlurmJobOptions.nullable().default(null),
  /** Auto-stop (issue 33, off by default): stop the server once its GPUs-idle alert has held this many more minutes. */
  autoStop: AutoStop.default({ enabled: false, minutes: 30 }),
});

export const Profile = ProfileInput.extend({
  id: ProfileId,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ProfileRef = z.object({ profileId: ProfileId });
export const ProfileUpdate = z.object({ profileId: ProfileId, profile: ProfileInput });

/**
 * Start (or restart) a profile. `secrets`: values for the profile's `secretEnv` names, kept in the
 * backend's memory for this run only (restart reuses them). `skipDoctor`: start although the doctor
 * failed (the UI asks first). `replaceDrifted`: a running container with another config hash is
 * stopped and replaced; without it such a start fails with PROFILE_DRIFTED.
 */
export const ProfileStartRequest = z.object({
  profileId: ProfileId,
  secrets: z.record(EnvName, z.string().min(1).max(4096)).default({}),
  skipDoctor: z.boolean().default(false),
  replaceDrifted: z.boolean().default(false),
});

/** What the profile's server is doing, from its (one) container. */
export const ProfileRuntime = z.object({
  container: SwarmContainer.nullable(),
  /** The running container was made from another config (hash label differs from the profile's). */
  drifted: z.boolean(),
  /** The hash of the profile now, and the one the container carries (null: no container). */
  configHash: z.string(),
  containerConfigHash: z.string().nullable(),
  /** Names of `secretEnv` whose value the backend holds for this run (never the values). */
  secretsKnown: z.array(EnvName),
});

export const ProfileView = z.object({ profile: Profile, runtime: ProfileRuntime });

/** "Show the command": the equivalent `docker run` (or native command line), secrets masked. */
export const ProfileCommand = z.object({ command: z.string(), notes: z.array(z.string()) });

// ---------------------------------------------------------------- doctor

export const DoctorCheckId = z.enum([
  'engine-reachable',
  'socket-permission',
  'docker-desktop-vm',
  'gpu-host',
  'gpu-runtime',
  /** Podman: a CDI spec names the NVIDIA GPUs (Podman has no NVIDIA runtime path; `gpu-runtime` is Docker's). */
  'podman-cdi',
  'disk-space',
  'image',
  'model-dir',
  'host-dirs',
  'port',
  'shm',
  /** Podman: catatonit (or an init_path) for the container's init. */
  'podman-init',
  /** Rootless Podman: the user's processes outlive their logins (loginctl lingering). */
  'podman-linger',
  /** Rootless Podman: XDG_RUNTIME_DIR in the app's session on the host. */
  'podman-runtime-dir',
  /** Rootless Podman: the storage driver (vfs is slow). */
  'podman-storage',
  /** Rootless Podman: publish networking needs slirp4netns (or pasta) and /dev/net/tun. */
  'podman-network',
  'native-ajet',
  /** Slurm login node: sinfo answers (the engine's health). */
  'slurm-login',
  /** Slurm: the profile's partition (or the default one) exists and is up. */
  'slurm-partition',
  /** Slurm: the GPUs asked for exist on one node of the partition. */
  'slurm-gpus',
  /** Slurm: the time limit is set and within the partition's maximum. */
  'slurm-time',
  /** Slurm: `sbatch --test-only` with the profile's options (the scheduler's own verdict, nothing submitted). */
  'slurm-submit',
  /** Slurm: the job folder in the login user's home is writable. */
  'slurm-home',
]);

/**
 * Which checks a report lists depends on the engine, so that nobody reads advice for another engine:
 * a Docker report leaves out Podman's checks; a Podman report leaves out Docker's NVIDIA runtime and
 * Docker Desktop checks, and lists the rootless ones only when Podman runs rootless (or may).
 */
export const DOCKER_ONLY_DOCTOR_CHECKS = ['docker-desktop-vm', 'gpu-runtime'] as const satisfies readonly DoctorCheckId[];
export const PODMAN_DOCTOR_CHECKS = ['podman-cdi', 'podman-init'] as const satisfies readonly DoctorCheckId[];
/** A Slurm login node's report lists these only: no compute node is chosen before the job runs, so no host check applies. */
export const SLURM_DOCTOR_CHECKS = ['slurm-login', 'slurm-partition', 'slurm-gpus', 'slurm-time', 'slurm-submit', 'slurm-home'] as const satisfies readonly DoctorCheckId[];
export const ROOTLESS_PODMAN_DOCTOR_CHECKS = ['podman-linger', 'podman-runtime-dir', 'podman-storage', 'podman-network'] as const satisfies readonly DoctorCheckId[];

export const DoctorCheck = z.object({
  id: DoctorCheckId,
  /** `skip`: does not apply (GPUs "none", native mode for image checks) or could not run; detail says which. */
  status: z.enum(['pass', 'warn', 'fail', 'skip']),
  /** One plain sentence: what was found. */
  detail: z.string(),
  /** What to do about it (null on pass). */
  fix: z.string().nullable(),
  /** A command the user can copy and run where `commandWhere` says. */
  command: z.string().nullable(),
  commandWhere: z.enum(['server', 'local']).nullable(),
  /** `port` only: who holds the profile's port on this computer (e.g. the app's own dry run), for the renderer to word. */
  portHolder: PortHolder.optional(),
  /**
   * The detail as data, for the renderer to word in the user's language (`doctor.say.<key>` with
   * `params`; `host: ''` means this computer). Absent for cases not worded there yet: `detail`
   * (English) is shown then.
   */
  say: z.object({ key: z.string().regex(/^[a-z][a-zA-Z-]*$/), params: z.record(z.string(), z.union([z.string(), z.number()])) }).optional(),
});

export const DoctorReport = z.object({
  profileId: ProfileId,
  engineId: EngineId,
  ranAt: z.string(),
  durationMs: z.number().int().nonnegative(),
  /** The worst status of the checks (skip counts as pass). */
  verdict: z.enum(['pass', 'warn', 'fail']),
  /** The checks that apply to the engine (see DOCKER_ONLY_DOCTOR_CHECKS), in the order of `DoctorCheckId`. */
  checks: z.array(DoctorCheck),
});

// ---------------------------------------------------------------- image pull

export const PullRequest = z.object({ engineId: EngineId, image: ImageRef });
export const PullRef = z.object({ pullId: z.string().regex(/^[a-z0-9-]{1,64}$/) });

/** One pull, aggregated over its layers in the backend and sent as a view model. */
export const PullView = z.object({
  pullId: z.string(),
  engineId: EngineId,
  image: z.string(),
  phase: z.enum(['resolving', 'downloading', 'extracting', 'done', 'failed', 'cancelled']),
  /** 0–100 over all layers' bytes (download and extract each half); null until sizes are known. */
  percent: z.number().min(0).max(100).nullable(),
  layersDone: z.number().int().nonnegative(),
  layersTotal: z.number().int().nonnegative(),
  bytesDone: z.number().nonnegative(),
  bytesTotal: z.number().nonnegative(),
  /** Seconds left at the recent rate; null while unknown. */
  etaSeconds: z.number().nonnegative().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  /** Set when `phase` is failed: IMAGE_NOT_FOUND, IMAGE_PULL_DENIED, ENGINE_UNREACHABLE, … */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

// ---------------------------------------------------------------- logs

export const LogRef = z.object({ engineId: EngineId, containerId: ContainerId });

export const LogLine = z.object({
  /** 0-based index of the line in the container's whole log (as the app stored it). */
  n: z.number().int().nonnegative(),
  stream: z.enum(['stdout', 'stderr']),
  /** Engine's timestamp (ISO) when known. */
  time: z.string().nullable(),
  text: z.string(),
});

export const LogFilter = z.object({
  /** Case-insensitive substring, or a regular expression when `regex`. Empty: no text filter. */
  text: z.string().max(500).default(''),
  regex: z.boolean().default(false),
  stream: z.enum(['all', 'stdout', 'stderr']).default('all'),
});

/**
 * A window of the log: `from` and `count` index the lines that pass the filter (without a filter,
 * line numbers). `from: -1` means "the last `count`".
 */
export const LogReadRequest = LogRef.extend({
  from: z.number().int().min(-1).default(-1),
  count: z.number().int().min(1).max(5000).default(500),
  filter: LogFilter.default({ text: '', regex: false, stream: 'all' }),
});

export const LogWindow = z.object({
  /** Lines in the whole log, and lines that pass the filter. */
  total: z.number().int().nonnegative(),
  matching: z.number().int().nonnegative(),
  /** Index (among matching lines) of the first line returned. */
  from: z.number().int().nonnegative(),
  lines: z.array(LogLine),
  /** True while the app follows the container's output. */
  following: z.boolean(),
});

/** New lines arrived (throttled): the last few, so a viewer at the bottom needs no round trip. */
export const LogAppended = LogRef.extend({ total: z.number().int().nonnegative(), lines: z.array(LogLine) });

export const LogExported = z.object({ path: z.string(), lines: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() });

/** The tail of /workspace/log/swarm_server.log inside the container (or the native run's log). */
export const ServerLogTail = z.object({ path: z.string(), found: z.boolean(), lines: z.array(z.string()) });
export const ServerLogRequest = LogRef.extend({ lines: z.number().int().min(1).max(2000).default(200) });

export type ProfileInput = z.infer<typeof ProfileInput>;
export type ProfileInputRaw = z.input<typeof ProfileInput>;
export type Profile = z.infer<typeof Profile>;
export type ProfileView = z.infer<typeof ProfileView>;
export type ProfileRuntime = z.infer<typeof ProfileRuntime>;
export type ProfileStartRequest = z.infer<typeof ProfileStartRequest>;
export type ProfileCommand = z.infer<typeof ProfileCommand>;
export type GpuSelection = z.infer<typeof GpuSelection>;
export type ShmSelection = z.infer<typeof ShmSelection>;
export type DoctorCheck = z.infer<typeof DoctorCheck>;
export type DoctorCheckId = z.infer<typeof DoctorCheckId>;
export type DoctorReport = z.infer<typeof DoctorReport>;
export type PullView = z.infer<typeof PullView>;
export type LogLine = z.infer<typeof LogLine>;
export type LogFilter = z.infer<typeof LogFilter>;
export type LogReadRequest = z.infer<typeof LogReadRequest>;
export type LogWindow = z.infer<typeof LogWindow>;
export type LogAppended = z.infer<typeof LogAppended>;
export type LogExported = z.infer<typeof LogExported>;
export type ServerLogTail = z.infer<typeof ServerLogTail>;
