import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { GpuSample } from '../../shared/schemas-fleet';
import type { JobViewData } from '../../shared/schemas-jobs';
import type { GpuSelection } from '../../shared/schemas-profiles';
import type { RunScript } from '../../shared/schemas-runs';
import type { ServerState } from '../../shared/server-state';
import { redactRunText } from './run-redact';

/** Biggest synced YAML kept (upstream's full Hydra config is tens of kilobytes). */
export const MAX_YAML_BYTES = 512 * 1024;
/** Biggest copy of one script, and how many scripts a run keeps. */
export const MAX_SCRIPT_BYTES = 256 * 1024;
export const MAX_SCRIPTS = 8;
/** Where upstream's server writes the synced config before it starts the trainer (reference §4 paths, boot-outcomes' trainer command). */
export const YAML_BACKUP_NAME = 'yaml_backup.yaml';

export interface ProfileFacts {
  label: string;
  image: string;
  gpus: GpuSelection;
}

/** How the run recorder reaches what the app already knows; nothing here polls. */
export interface RunContextPorts {
  profile(profileId: string): ProfileFacts | undefined;
  /** repo@sha256:… of the image on that engine (or its local id); null when unknown. */
  imageDigest(engineId: string, image: string): Promise<string | null>;
  /** The server's `GET /get_server_experiment_dir` (null: not started, or no such route). */
  experimentDir(url: string): Promise<string | null>;
  /** A file inside the server's container (or the native run's host, the Slurm job's node). */
  readServerFile(engineId: string, containerId: string, path: string, maxBytes: number): Promise<string | null>;
  /** The dry run's synced YAML (the app's own server knows it exactly); null for any other server. */
  syncedYaml?(engineId: string, containerId: string): string | null;
  jobs(): readonly Pick<JobViewData, 'kind' | 'cwd' | 'script' | 'swarm' | 'startedAt'>[];
  /** The wizard's generated files (path), when it generated some. */
  wizardFiles(): Promise<readonly { name: string; path: string }[]>;
  readLocalFile(path: string, maxBytes: number): Promise<Buffer | null>;
  gpuSamples(): readonly GpuSample[];
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The names a run keeps of its server: the profile's label where it has one, else the container's name. */
export function serverFacts(state: ServerState, profile: ProfileFacts | undefined) {
  const profileId = state.container.profileId ?? null;
  return {
    engineKind: state.engineKind,
    serverName: profile ? profile.label : state.container.name,
    profileId,
    profileLabel: profile?.label ?? null,
    image: state.container.image || profile?.image || null,
  };
}

export interface YamlFacts {
  yaml: string | null;
  yamlPath: string | null;
  yamlSha256: string | null;
  yamlNote: string | null;
}

/**
 * The YAML the run's client synced: the dry run's own copy, else upstream's `<experiment dir>/yaml_backup.yaml`
 * (the server writes it at start_engine and its trainer reads it). Redacted before it is kept.
 */
export async function readSyncedYaml(ports: RunContextPorts, state: ServerState): Promise<YamlFacts> {
  const own = ports.syncedYaml?.(state.engineId, state.containerId) ?? null;
  if (own !== null) return yamlFacts(own, null);
  const url = state.status?.url;
  if (!url) return { yaml: null, yamlPath: null, yamlSha256: null, yamlNote: 'the server has no address the app can ask' };
  let dir: string | null;
  try {
    dir = await ports.experimentDir(url);
  } catch (error) {
    return { yaml: null, yamlPath: null, yamlSha256: null, yamlNote: `the experiment folder could not be asked: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!dir) return { yaml: null, yamlPath: null, yamlSha256: null, yamlNote: 'the server does not name its experiment folder yet' };
  const path = `${dir.replace(/\/+$/, '')}/${YAML_BACKUP_NAME}`;
  let text: string | null;
  try {
    text = await ports.readServerFile(state.engineId, state.containerId, path, MAX_YAML_BYTES);
  } catch (error) {
    return { yaml: null, yamlPath: path, yamlSha256: null, yamlNote: `could not read it: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (text === null) return { yaml: null, yamlPath: path, yamlSha256: null, yamlNote: 'the server has not written it' };
  return yamlFacts(text, path);
}

function yamlFacts(text: string, path: string | null): YamlFacts {
  // Hashed as synced (two runs of the same YAML match), kept redacted.
  return { yaml: redactRunText(text), yamlPath: path, yamlSha256: sha256(text), yamlNote: null };
}

/**
 * The scripts that drove the run: each train job's script aimed at this server that began before the run
 * ended, and the wizard's generated files in that job's folder. Copied (redacted) and hashed as they are now.
 */
export async function collectScripts(ports: RunContextPorts, engineId: string, containerId: string, untilMs: number): Promise<RunScript[]> {
  const jobs = ports.jobs().filter((j) => j.kind === 'train' && j.swarm?.engineId === engineId && j.swarm.containerId === containerId && Date.parse(j.startedAt) <= untilMs);
  if (jobs.length === 0) return [];
  const paths: string[] = [];
  const wizard = await ports.wizardFiles().catch(() => []);
  for (const job of jobs.slice(-2)) {
    const script = job.script.startsWith('/') || /^[A-Za-z]:[\\/]/.test(job.script) ? job.script : `${job.cwd.replace(/[\\/]+$/, '')}/${job.script}`;
    paths.push(script);
    for (const file of wizard) if (file.path.startsWith(`${job.cwd.replace(/[\\/]+$/, '')}/`) || file.path.startsWith(`${job.cwd.replace(/[\\/]+$/, '')}\\`)) paths.push(file.path);
  }
  const scripts: RunScript[] = [];
  for (const path of [...new Set(paths)].slice(0, MAX_SCRIPTS)) {
    const data = await ports.readLocalFile(path, MAX_SCRIPT_BYTES).catch(() => null);
    if (data === null) continue;
    scripts.push({ name: basename(path), path, sha256: sha256(data), bytes: data.length, text: redactRunText(data.toString('utf8')) });
  }
  return scripts;
}

/** The GPU sample that covers a server: its Slurm job's allocation, else its engine's host. */
export function sampleFor(state: Pick<ServerState, 'key' | 'engineId' | 'engineKind'>, samples: readonly GpuSample[]): GpuSample | undefined {
  if (state.engineKind === 'slurm') return samples.find((s) => s.key === state.key);
  return samples.find((s) => s.containerId === null && s.engineIds.includes(state.engineId));
}

/**
 * How many GPUs the run held: what nvidia-smi saw on its host (or in its Slurm allocation), narrowed by the
 * profile's choice (`device=0,1` holds two; "none" holds none). Without a sample only a profile that names
 * its GPUs tells; the dry run holds none.
 */
export function countGpus(state: ServerState, profile: ProfileFacts | undefined, samples: readonly GpuSample[]): { gpus: number | null; source: 'sample' | 'profile' | 'none' | null } {
  if (state.engineKind === 'dry-run') return { gpus: 0, source: 'none' };
  const selection = profile?.gpus;
  if (selection?.mode === 'none') return { gpus: 0, source: 'profile' };
  const sample = sampleFor(state, samples);
  const seen = sample && sample.error === null ? sample.gpus.length : null;
  if (selection?.mode === 'ids') return seen !== null ? { gpus: Math.min(seen, selection.ids.length), source: 'sample' } : { gpus: selection.ids.length, source: 'profile' };
  return seen !== null ? { gpus: seen, source: 'sample' } : { gpus: null, source: null };
}
