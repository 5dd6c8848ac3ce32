import { SWARM_DEFAULT_IMAGE, SWARM_DEFAULT_PORT, SWARM_DEFAULT_SHM_GB } from '../../../electron/shared/defaults';
import { AutoStop } from '../../../electron/shared/schemas-fleet';
import { ProfileInput, type Profile } from '../../../electron/shared/schemas-profiles';
import { emptySlurmDraft, SLURM_FIELD_ORDER, slurmDraftOf, slurmFieldOf, slurmInputOf, type SlurmDraft, type SlurmField } from './profile-form-slurm';

/** The image and its mirrors (agentjet-swarm.md §4): ghcr.io, and two that answer from mainland China. */
export const IMAGE_CHOICES = [
  SWARM_DEFAULT_IMAGE,
  'ghcr.modelscope.cn/modelscope/agentjet:main',
  'docker.1ms.run/modelscope/agentjet:main',
] as const;

/** The documented fix for ncclUnhandledCudaError, offered as one click. */
export const NCCL_FIX = { name: 'NCCL_NVLS_ENABLE', value: '0' } as const;

/** The form as typed: strings for numbers and lists, so a half-typed value is not lost. */
export interface ProfileDraft {
  label: string;
  mode: 'container' | 'native';
  image: string;
  port: string;
  networkMode: 'publish' | 'host';
  gpuMode: 'all' | 'ids' | 'none';
  gpuIds: string;
  shmMode: 'size' | 'ipc-host';
  shmGb: string;
  modelHostPath: string;
  modelContainerPath: string;
  logDir: string;
  experimentsDir: string;
  checkpointsDir: string;
  env: { name: string; value: string }[];
  secretEnv: string;
  /** Vault secret id per secret env name (null: asked at Start). Names no longer in `secretEnv` are dropped on submit. */
  secretRefs: Record<string, string | null>;
  nativeActivate: string;
  /** The profile's Slurm job options, carried through an edit unchanged when its engine is not a Slurm login node. */
  slurm?: Profile['slurm'];
  /** The Slurm section as typed (used when the profile's engine is a Slurm login node). */
  slurmJob: SlurmDraft;
  /** Auto-stop (issue 33): off by default; minutes as typed. */
  autoStopEnabled: boolean;
  autoStopMinutes: string;
}

export type ProfileField =
  | 'label'
  | 'image'
  | 'port'
  | 'gpus'
  | 'shm'
  | 'model'
  | 'logDir'
  | 'experimentsDir'
  | 'checkpointsDir'
  | 'env'
  | 'secretEnv'
  | 'nativeActivate'
  | 'autoStop'
  | SlurmField
  | 'form';

/** The order errors are focused in (the first one after a submit). */
export const PROFILE_FIELD_ORDER: ProfileField[] = ['label', 'image', 'port', ...SLURM_FIELD_ORDER, 'gpus', 'shm', 'model', 'logDir', 'experimentsDir', 'checkpointsDir', 'env', 'secretEnv', 'nativeActivate', 'autoStop', 'form'];

export function emptyProfileDraft(): ProfileDraft {
  return {
    label: '',
    mode: 'container',
    image: SWARM_DEFAULT_IMAGE,
    port: String(SWARM_DEFAULT_PORT),
    networkMode: 'publish',
    gpuMode: 'all',
    gpuIds: '',
    shmMode: 'size',
    shmGb: String(SWARM_DEFAULT_SHM_GB),
    modelHostPath: '',
    modelContainerPath: '',
    logDir: '~/swarmlog',
    experimentsDir: '~/swarmexp',
    checkpointsDir: '~/swarmckpt',
    env: [],
    secretEnv: '',
    secretRefs: {},
    nativeActivate: '',
    slurmJob: emptySlurmDraft(),
    autoStopEnabled: false,
    autoStopMinutes: String(AUTO_STOP_DEFAULT.minutes),
  };
}

export function draftFromProfile(p: Profile): ProfileDraft {
  return {
    label: p.label,
    mode: p.mode,
    image: p.image,
    port: String(p.port),
    networkMode: p.networkMode,
    gpuMode: p.gpus.mode,
    gpuIds: p.gpus.mode === 'ids' ? p.gpus.ids.join(', ') : '',
    shmMode: p.shm.mode,
    shmGb: p.shm.mode === 'size' ? String(p.shm.gb) : String(SWARM_DEFAULT_SHM_GB),
    modelHostPath: p.model?.hostPath ?? '',
    modelContainerPath: p.model?.containerPath ?? '',
    logDir: p.logDir ?? '',
    experimentsDir: p.experimentsDir ?? '',
    checkpointsDir: p.checkpointsDir ?? '',
    env: p.env.map((e) => ({ ...e })),
    secretEnv: p.secretEnv.join(', '),
    secretRefs: { ...(p.secretRefs ?? {}) },
    nativeActivate: p.nativeActivate ?? '',
    slurm: p.slurm ?? null,
    slurmJob: slurmDraftOf(p),
    autoStopEnabled: p.autoStop.enabled,
    autoStopMinutes: String(p.autoStop.minutes),
  };
}

const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
const orNull = (text: string) => (text.trim() === '' ? null : text.trim());
const num = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN);
const decimal = (text: string) => (/^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN);

/** A profile's auto-stop as the schema fills it in when the profile has none. */
const AUTO_STOP_DEFAULT = AutoStop.parse({});

/** The draft's auto-stop: minutes only matter while it is on (a half-typed number under "off" is not an error). */
function autoStopOfDraft(draft: ProfileDraft): { enabled: boolean; minutes: number } {
  const minutes = decimal(draft.autoStopMinutes);
  if (draft.autoStopEnabled) return { enabled: true, minutes };
  return { enabled: false, minutes: AutoStop.shape.minutes.safeParse(minutes).success ? minutes : AUTO_STOP_DEFAULT.minutes };
}

/** The secret env names of the draft, as the form lists them (for one vault picker each). */
export function secretEnvNames(draft: ProfileDraft): string[] {
  return list(draft.secretEnv);
}

/** The draft's references of the names it still lists, without the "asked at Start" ones. */
function secretRefsOfDraft(draft: ProfileDraft): Record<string, string> {
  const names = new Set(list(draft.secretEnv));
  return Object.fromEntries(Object.entries(draft.secretRefs).flatMap(([name, id]) => (id && names.has(name) ? [[name, id]] : [])));
}

/** Which form field a schema issue belongs to (on a Slurm login node the job's section holds how the server runs). */
function fieldOf(path: readonly PropertyKey[], onSlurm: boolean): ProfileField {
  const head = String(path[0] ?? 'form');
  if (head === 'slurm') return slurmFieldOf(path);
  if (onSlurm && (head === 'image' || head === 'nativeActivate')) return 'slurmRun';
  if (head === 'networkMode' || head === 'mode' || head === 'engineId') return 'form';
  return (PROFILE_FIELD_ORDER as string[]).includes(head) ? (head as ProfileField) : 'form';
}

/**
 * The draft as the backend will take it, checked with the backend's own schema: errors (the
 * schema's English text) by field, or the profile to send. `onSlurm`: the engine is a Slurm login
 * node: the Slurm section gives the job options and how the server runs (native or Podman).
 */
export function checkProfileDraft(draft: ProfileDraft, engineId: string, onSlurm = false): { errors: Partial<Record<ProfileField, string>>; profile: ProfileInput | null } {
  const errors: Partial<Record<ProfileField, string>> = {};
  const job = draft.slurmJob;
  const mode = onSlurm ? (job.runMode === 'native' ? 'native' : 'container') : draft.mode;
  const nativeActivate = onSlurm ? job.activate : draft.nativeActivate;
  const model = draft.modelHostPath.trim() || draft.modelContainerPath.trim() ? { hostPath: draft.modelHostPath, containerPath: draft.modelContainerPath } : null;
  const parsed = ProfileInput.safeParse({
    label: draft.label,
    engineId,
    mode,
    image: onSlurm && job.runMode === 'podman' ? job.image : draft.image,
    port: num(draft.port),
    networkMode: draft.networkMode,
    gpus: draft.gpuMode === 'ids' ? { mode: 'ids', ids: list(draft.gpuIds) } : { mode: draft.gpuMode },
    shm: draft.shmMode === 'size' ? { mode: 'size', gb: num(draft.shmGb) } : { mode: 'ipc-host' },
    model,
    logDir: orNull(draft.logDir),
    experimentsDir: orNull(draft.experimentsDir),
    checkpointsDir: orNull(draft.checkpointsDir),
    env: draft.env.filter((e) => e.name.trim() !== '' || e.value !== '').map((e) => ({ name: e.name.trim(), value: e.value })),
    secretEnv: list(draft.secretEnv),
    secretRefs: secretRefsOfDraft(draft),
    nativeActivate: mode === 'native' ? orNull(nativeActivate) : null,
    slurm: onSlurm ? slurmInputOf(job) : (draft.slurm ?? null),
    autoStop: autoStopOfDraft(draft),
  });
  if (parsed.success) return { errors, profile: parsed.data };
  for (const issue of parsed.error.issues) {
    const field = fieldOf(issue.path, onSlurm);
    errors[field] ??= issue.message;
  }
  return { errors, profile: null };
}
