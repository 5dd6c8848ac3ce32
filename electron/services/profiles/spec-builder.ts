import { createHash } from 'node:crypto';
import { GIB } from '../../shared/defaults';
import { AppError } from '../../shared/errors';
import type { Profile } from '../../shared/schemas-profiles';
import {
  LABEL_APP_VERSION,
  LABEL_CONFIG_HASH,
  LABEL_MANAGED,
  LABEL_NETWORK,
  LABEL_PORT,
  LABEL_PROFILE,
  LABEL_ROLE,
  type BindMount,
  type ContainerSpec,
} from '../engines/container-engine';
import { PLAIN_LOG_ENV, SWARM_ROLE, swarmCommand } from '../swarm/swarm-containers';

const HASH_LENGTH = 16;

/** Where the swarm image keeps what a user wants to keep (agentjet-swarm.md §4, "Paths inside the container"). */
export const CONTAINER_LOG_DIR = '/workspace/log';
export const CONTAINER_EXPERIMENTS_DIR = '/workspace/saved_experiments';
export const CONTAINER_CHECKPOINTS_DIR = '/workspace/saved_checkpoints';

/** Native mode's command: `=` form as the issue names it; never `--autokill` (it kills every python process on the host). */
export function nativeSwarmCommand(port: number): string[] {
  return ['ajet-swarm', 'start', `--swarm-port=${port}`];
}

/**
 * The settings that shape the container, in a fixed order, so the hash changes exactly when a
 * restart would give a different server. Not the label (a rename changes nothing), not the app
 * version, and secrets by name only (their values never leave memory, and a new value typed for a
 * session is not a different configuration).
 */
function hashedSettings(profile: Profile): unknown {
  const native = profile.mode === 'native';
  return {
    mode: profile.mode,
    port: profile.port,
    env: [...profile.env].sort((a, b) => a.name.localeCompare(b.name)).map((e) => [e.name, e.value]),
    secretEnv: [...new Set(profile.secretEnv)].sort(),
    // Only when set: a profile without Slurm options keeps the hash its running servers carry.
    ...(profile.slurm ? { slurm: profile.slurm } : {}),
    // What does not apply in native mode must not make a native profile drift.
    ...(native
      ? { nativeActivate: profile.nativeActivate ?? null }
      : {
          image: profile.image,
          networkMode: profile.networkMode,
          gpus: profile.gpus.mode === 'ids' ? { mode: 'ids', ids: [...profile.gpus.ids] } : { mode: profile.gpus.mode },
          shm: profile.shm.mode === 'size' ? { mode: 'size', gb: profile.shm.gb } : { mode: 'ipc-host' },
          model: profile.model ? [profile.model.hostPath, profile.model.containerPath] : null,
          logDir: profile.logDir,
          experimentsDir: profile.experimentsDir,
          checkpointsDir: profile.checkpointsDir,
        }),
  };
}

/** JSON with object keys sorted at every level: equal settings give equal text whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** 16 hex characters of sha256 over the canonical settings: the `io.agentswarm.config-hash` label. */
export function configHashOf(profile: Profile): string {
  return createHash('sha256').update(canonicalJson(hashedSettings(profile))).digest('hex').slice(0, HASH_LENGTH);
}

/** Whether any host path of the profile starts with `~/` (then the engine host's home is needed). */
export function usesHomePaths(profile: Profile): boolean {
  return [profile.model?.hostPath, profile.logDir, profile.experimentsDir, profile.checkpointsDir].some((p) => p?.startsWith('~/'));
}

/**
 * `~/x` → `<home>/x`. Docker never expands `~` (it would make a folder named "~" relative to
 * nothing), so the app does, with the home of the engine's host (the SSH login user's on a server).
 * Without a home the path stays as it is: only "Show the command" does that, where a shell expands it.
 */
export function expandHome(path: string, home: string | null): string {
  if (!path.startsWith('~/') || home === null) return path;
  return `${home.replace(/\/+$/, '')}/${path.slice(2)}`;
}

export interface SpecOptions {
  appVersion: string;
  /** Values of the profile's `secretEnv` names (every name must have one; see `missingSecrets`). */
  secrets: Readonly<Record<string, string>>;
  /** The engine host's `$HOME`, for `~/` paths; null when unknown (the paths are left as typed). */
  home: string | null;
  /** Makes the name unique on the engine (an old container of the profile may still hold the plain one). */
  nameSuffix: string;
}

export function missingSecrets(profile: Profile, secrets: Readonly<Record<string, string>>): string[] {
  return profile.secretEnv.filter((name) => !secrets[name]);
}

function bindsOf(profile: Profile, home: string | null): BindMount[] {
  const binds: BindMount[] = [];
  // The model is read-only: a training run must never be able to damage the weights it starts from.
  if (profile.model) binds.push({ hostPath: expandHome(profile.model.hostPath, home), containerPath: profile.model.containerPath, readOnly: true });
  if (profile.logDir) binds.push({ hostPath: expandHome(profile.logDir, home), containerPath: CONTAINER_LOG_DIR, readOnly: false });
  if (profile.experimentsDir) binds.push({ hostPath: expandHome(profile.experimentsDir, home), containerPath: CONTAINER_EXPERIMENTS_DIR, readOnly: false });
  // Not under the documented volumes (agentjet-swarm.md §4): without this bind, checkpoints die with the container.
  if (profile.checkpointsDir) binds.push({ hostPath: expandHome(profile.checkpointsDir, home), containerPath: CONTAINER_CHECKPOINTS_DIR, readOnly: false });
  return binds;
}

/**
 * The container (or native process) a profile starts, as an engine-neutral spec. Pure: the same
 * profile and options always give the same spec, so it is checked against the documented
 * `docker run` in unit tests and "Show the command" renders exactly what Start creates.
 */
export function buildProfileSpec(profile: Profile, options: SpecOptions): ContainerSpec {
  const missing = missingSecrets(profile, options.secrets);
  if (missing.length > 0) {
    throw new AppError('SECRET_MISSING', `Profile "${profile.label}" needs a value for ${missing.join(', ')} before it can start. Enter it in the start dialog.`);
  }
  const env: Record<string, string> = { ...PLAIN_LOG_ENV };
  for (const { name, value } of profile.env) env[name] = value;
  for (const name of profile.secretEnv) env[name] = options.secrets[name]!;
  const labels: Record<string, string> = {
    [LABEL_MANAGED]: 'true',
    [LABEL_ROLE]: SWARM_ROLE,
    [LABEL_PORT]: String(profile.port),
    [LABEL_NETWORK]: profile.mode === 'native' ? 'host' : profile.networkMode,
    [LABEL_APP_VERSION]: options.appVersion,
    [LABEL_PROFILE]: profile.id,
    [LABEL_CONFIG_HASH]: configHashOf(profile),
  };
  const name = `agentswarm-${profile.id}-${options.nameSuffix}`;
  if (profile.mode === 'native') {
    // The host's own network, GPUs and disks: the native engine ignores these fields.
    return {
      name,
      image: profile.image,
      cmd: nativeSwarmCommand(profile.port),
      env,
      labels,
      network: { mode: 'host' },
      init: false,
      gpus: { mode: 'none' },
      shm: { mode: 'ipc-host' },
      binds: [],
      runtime: 'native',
      nativeActivate: profile.nativeActivate,
      // Read by a Slurm engine only (the job's partition, time limit, GPUs); every other engine ignores it.
      ...(profile.slurm ? { batch: profile.slurm } : {}),
    };
  }
  return {
    name,
    image: profile.image,
    cmd: swarmCommand(profile.port),
    env,
    labels,
    network:
      profile.networkMode === 'host'
        ? { mode: 'host' }
        : // Loopback only: the swarm API has no authentication (agentjet-swarm.md §1).
          { mode: 'publish', ports: [{ containerPort: profile.port, hostIp: '127.0.0.1', hostPort: profile.port }] },
    init: true,
    gpus: profile.gpus.mode === 'ids' ? { mode: 'ids', ids: [...profile.gpus.ids] } : { mode: profile.gpus.mode },
    shm: profile.shm.mode === 'size' ? { mode: 'size', bytes: profile.shm.gb * GIB } : { mode: 'ipc-host' },
    binds: bindsOf(profile, options.home),
    runtime: 'container',
    ...(profile.slurm ? { batch: profile.slurm } : {}),
  };
}
