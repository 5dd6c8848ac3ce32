import { SWARM_DEFAULT_IMAGE } from '../../../electron/shared/defaults';
import type { Profile } from '../../../electron/shared/schemas-profiles';
import { SLURM_CUSTOM_PRESETS, SLURM_DEFAULT_WARN_SECONDS, type SlurmJobOptionsInput } from '../../../electron/shared/schemas-slurm';

/**
 * The Slurm section of the profile form (a profile on a Slurm login node): the batch job's options as
 * typed (strings, so a half-typed value is not lost). Checked by the backend's own SlurmJobOptions
 * schema through `checkProfileDraft`, whose messages appear as the fields' errors.
 */
export interface SlurmDraft {
  partition: string;
  account: string;
  qos: string;
  timeLimit: string;
  /** `gres`: --gres=gpu[:type]:N (every Slurm); `gpus`: --gpus=[type:]N (cons_tres); `none`: no GPUs. */
  gpuFlag: 'none' | 'gres' | 'gpus';
  gpuCount: string;
  gpuType: string;
  cpusPerTask: string;
  memoryGb: string;
  warnBeforeLimitSeconds: string;
  /** `custom`: the user's own lines (Apptainer, enroot, …) in place of the native or Podman part. */
  runMode: 'native' | 'podman' | 'custom';
  activate: string;
  image: string;
  customScript: string;
  workDir: string;
}

export type SlurmField = 'slurmPartition' | 'slurmAccount' | 'slurmQos' | 'slurmTimeLimit' | 'slurmGpus' | 'slurmCpus' | 'slurmMemory' | 'slurmWarn' | 'slurmRun' | 'slurmWorkDir';

/** The order the Slurm fields' errors are focused in (after the profile's own label and port). */
export const SLURM_FIELD_ORDER: SlurmField[] = ['slurmPartition', 'slurmAccount', 'slurmQos', 'slurmTimeLimit', 'slurmGpus', 'slurmCpus', 'slurmMemory', 'slurmWarn', 'slurmRun', 'slurmWorkDir'];

/** SlurmJobOptions' keys → the form field showing their errors. */
const FIELD_OF_OPTION: Record<string, SlurmField> = {
  partition: 'slurmPartition',
  account: 'slurmAccount',
  qos: 'slurmQos',
  timeLimit: 'slurmTimeLimit',
  gpus: 'slurmGpus',
  cpusPerTask: 'slurmCpus',
  memoryGb: 'slurmMemory',
  warnBeforeLimitSeconds: 'slurmWarn',
  run: 'slurmRun',
  workDir: 'slurmWorkDir',
};

export function slurmFieldOf(path: readonly PropertyKey[]): SlurmField {
  return FIELD_OF_OPTION[String(path[1] ?? '')] ?? 'slurmRun';
}

export function emptySlurmDraft(): SlurmDraft {
  return {
    partition: '',
    account: '',
    qos: '',
    timeLimit: '',
    // Training needs a GPU: one by the classic flag every Slurm knows.
    gpuFlag: 'gres',
    gpuCount: '1',
    gpuType: '',
    cpusPerTask: '',
    memoryGb: '',
    warnBeforeLimitSeconds: String(SLURM_DEFAULT_WARN_SECONDS),
    runMode: 'native',
    activate: '',
    image: SWARM_DEFAULT_IMAGE,
    customScript: SLURM_CUSTOM_PRESETS.apptainer,
    workDir: '',
  };
}

/**
 * The profile's job options as the form shows them; a profile without any (made on another engine)
 * gets what the Slurm engine would derive: its mode, activate line or image, and its GPUs as a count.
 */
export function slurmDraftOf(p: Profile): SlurmDraft {
  const empty = emptySlurmDraft();
  const s = p.slurm;
  if (!s) {
    const count = p.gpus.mode === 'ids' ? p.gpus.ids.length : 1;
    return {
      ...empty,
      gpuFlag: p.gpus.mode === 'none' ? 'none' : 'gres',
      gpuCount: String(count),
      runMode: p.mode === 'native' ? 'native' : 'podman',
      activate: p.nativeActivate ?? '',
      image: p.image,
    };
  }
  return {
    partition: s.partition ?? '',
    account: s.account ?? '',
    qos: s.qos ?? '',
    timeLimit: s.timeLimit ?? '',
    gpuFlag: s.gpus?.flag ?? 'none',
    gpuCount: String(s.gpus?.count ?? 1),
    gpuType: s.gpus?.type ?? '',
    cpusPerTask: s.cpusPerTask === null ? '' : String(s.cpusPerTask),
    memoryGb: s.memoryGb === null ? '' : String(s.memoryGb),
    warnBeforeLimitSeconds: String(s.warnBeforeLimitSeconds),
    runMode: s.run.mode,
    activate: s.run.mode === 'native' ? (s.run.activate ?? '') : '',
    image: s.run.mode === 'podman' ? s.run.image : p.image,
    customScript: s.run.mode === 'custom' ? s.run.script : empty.customScript,
    workDir: s.workDir ?? '',
  };
}

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());
const num = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN);
const numOrNull = (text: string) => (text.trim() === '' ? null : num(text));

/** The draft as SlurmJobOptions' input (the schema checks it; empty text means "the cluster's default"). */
export function slurmInputOf(d: SlurmDraft): SlurmJobOptionsInput {
  return {
    partition: orNull(d.partition),
    account: orNull(d.account),
    qos: orNull(d.qos),
    timeLimit: orNull(d.timeLimit),
    gpus: d.gpuFlag === 'none' ? null : { flag: d.gpuFlag, count: num(d.gpuCount), type: orNull(d.gpuType) },
    cpusPerTask: numOrNull(d.cpusPerTask),
    memoryGb: numOrNull(d.memoryGb),
    warnBeforeLimitSeconds: num(d.warnBeforeLimitSeconds),
    workDir: orNull(d.workDir),
    run:
      d.runMode === 'native'
        ? { mode: 'native', activate: orNull(d.activate) }
        : d.runMode === 'custom'
          ? { mode: 'custom', script: d.customScript }
          : { mode: 'podman', image: d.image },
  };
}
