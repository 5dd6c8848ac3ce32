import { TrainingForm, type SAMPLE_COLLECTION_METHODS, type TrainingFormData, type TrainingFormSuggestionData, type TRAINING_ALGORITHMS } from '../../../../electron/shared/schemas-wizard';
import { tick } from 'svelte';
import type { MessageKey, Params } from '../../lib/i18n';

/**
 * The training form as typed (numbers as text, so "3e-5" and a half-typed value survive), checked
 * with the shared `TrainingForm` schema: the same rules the backend applies, LoRA's included.
 */
export interface TrainingDraft {
  experimentName: string;
  algorithm: (typeof TRAINING_ALGORITHMS)[number];
  grpoN: string;
  epochs: string;
  batchSize: string;
  gpusPerNode: string;
  modelPath: string;
  discardEpisodeTimeout: string;
  sampleCollectionMethod: (typeof SAMPLE_COLLECTION_METHODS)[number];
  loraRank: string;
  loraAlpha: string;
  loraTargetModules: string;
  loraLoadFormat: 'auto' | 'safetensors';
  loraLayeredSummon: boolean;
  loraLr: string;
  forceRestart: boolean;
}

export type TrainingField = keyof TrainingDraft;

/** Form order: the first invalid field in it gets focus. */
export const TRAINING_FIELD_ORDER: readonly TrainingField[] = [
  'experimentName',
  'algorithm',
  'grpoN',
  'epochs',
  'batchSize',
  'gpusPerNode',
  'modelPath',
  'discardEpisodeTimeout',
  'sampleCollectionMethod',
  'loraRank',
  'loraAlpha',
  'loraTargetModules',
  'loraLoadFormat',
  'loraLayeredSummon',
  'loraLr',
  'forceRestart',
];

export interface FieldError {
  key: MessageKey;
  params?: Params;
}

export type TrainingErrors = Partial<Record<TrainingField, FieldError>>;

const shape = TrainingForm.shape;
const loraShape = shape.lora.unwrap().shape;
const LORA_DEFAULTS = shape.lora.parse(undefined);

/** The whole-number fields and their schema's limits (shown in the message). */
const INT_FIELDS = {
  grpoN: shape.grpoN.unwrap(),
  epochs: shape.epochs.unwrap(),
  batchSize: shape.batchSize.unwrap(),
  gpusPerNode: shape.gpusPerNode.unwrap(),
  discardEpisodeTimeout: shape.discardEpisodeTimeout.unwrap(),
  loraRank: loraShape.rank.unwrap(),
  loraAlpha: loraShape.alpha.unwrap(),
} as const;

export function draftFromForm(form: TrainingFormData): TrainingDraft {
  return {
    experimentName: form.experimentName,
    algorithm: form.algorithm,
    grpoN: String(form.grpoN),
    epochs: String(form.epochs),
    batchSize: String(form.batchSize),
    gpusPerNode: String(form.gpusPerNode),
    modelPath: form.modelPath,
    discardEpisodeTimeout: String(form.discardEpisodeTimeout),
    sampleCollectionMethod: form.sampleCollectionMethod,
    loraRank: String(form.lora.rank),
    loraAlpha: String(form.lora.alpha),
    loraTargetModules: form.lora.targetModules,
    loraLoadFormat: form.lora.loadFormat,
    loraLayeredSummon: form.lora.layeredSummon,
    loraLr: form.lora.lr === null ? '' : String(form.lora.lr),
    forceRestart: form.forceRestart,
  };
}

/**
 * A first run is a debug run (issue 32): a small batch, a few epochs and one GPU reach a training step in minutes on a
 * single-GPU server. The schema's defaults are real training's (batch 32, 10,000 epochs, 8 GPUs per node), one click
 * away in the form ("Use real-training values").
 */
export const FIRST_RUN_VALUES = { batchSize: 4, epochs: 3, gpusPerNode: 1 } as const;
export const REAL_TRAINING_VALUES = {
  batchSize: shape.batchSize.parse(undefined),
  epochs: shape.epochs.parse(undefined),
  gpusPerNode: shape.gpusPerNode.parse(undefined),
} as const;

/** Whether the draft still holds the first-run values (the form then offers the real-training ones). */
export function hasFirstRunValues(draft: TrainingDraft): boolean {
  return (
    draft.batchSize === String(FIRST_RUN_VALUES.batchSize) && draft.epochs === String(FIRST_RUN_VALUES.epochs) && draft.gpusPerNode === String(FIRST_RUN_VALUES.gpusPerNode)
  );
}

/** The draft with real training's batch size, epochs and GPUs per node. */
export function withRealTrainingValues(draft: TrainingDraft): TrainingDraft {
  return { ...draft, batchSize: String(REAL_TRAINING_VALUES.batchSize), epochs: String(REAL_TRAINING_VALUES.epochs), gpusPerNode: String(REAL_TRAINING_VALUES.gpusPerNode) };
}

/** Before any code was generated: the first-run values, the schema's other defaults and what the backend suggests. */
export function draftFromSuggestion(suggestion: TrainingFormSuggestionData | null | undefined): TrainingDraft {
  return draftFromForm({
    experimentName: suggestion?.experimentName ?? '',
    algorithm: shape.algorithm.parse(undefined),
    grpoN: shape.grpoN.parse(undefined),
    epochs: FIRST_RUN_VALUES.epochs,
    batchSize: FIRST_RUN_VALUES.batchSize,
    gpusPerNode: FIRST_RUN_VALUES.gpusPerNode,
    modelPath: suggestion?.modelPath ?? '',
    discardEpisodeTimeout: shape.discardEpisodeTimeout.parse(undefined),
    sampleCollectionMethod: shape.sampleCollectionMethod.parse(undefined),
    lora: LORA_DEFAULTS,
    forceRestart: shape.forceRestart.parse(undefined),
  });
}

const whole = (text: string): number => (/^\s*-?\d+\s*$/.test(text) ? Number(text) : Number.NaN);
const decimal = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text.trim()));

function candidate(draft: TrainingDraft): unknown {
  return {
    experimentName: draft.experimentName,
    algorithm: draft.algorithm,
    grpoN: whole(draft.grpoN),
    epochs: whole(draft.epochs),
    batchSize: whole(draft.batchSize),
    gpusPerNode: whole(draft.gpusPerNode),
    modelPath: draft.modelPath,
    discardEpisodeTimeout: whole(draft.discardEpisodeTimeout),
    sampleCollectionMethod: draft.sampleCollectionMethod,
    lora: {
      rank: whole(draft.loraRank),
      alpha: whole(draft.loraAlpha),
      targetModules: draft.loraTargetModules,
      loadFormat: draft.loraLoadFormat,
      layeredSummon: draft.loraLayeredSummon,
      lr: draft.loraLr.trim() === '' ? null : decimal(draft.loraLr),
    },
    forceRestart: draft.forceRestart,
  };
}

const LORA_FIELD: Record<string, TrainingField> = {
  rank: 'loraRank',
  alpha: 'loraAlpha',
  targetModules: 'loraTargetModules',
  loadFormat: 'loraLoadFormat',
  layeredSummon: 'loraLayeredSummon',
  lr: 'loraLr',
};

function errorFor(field: TrainingField, custom: boolean): FieldError {
  if (field in INT_FIELDS) {
    const limits = INT_FIELDS[field as keyof typeof INT_FIELDS];
    return { key: 'wizard.code.error.int', params: { min: limits.minValue ?? 0, max: limits.maxValue ?? 0 } };
  }
  switch (field) {
    case 'experimentName':
      return { key: 'wizard.code.error.experimentName' };
    case 'modelPath':
      return { key: 'wizard.code.error.modelPath' };
    case 'loraTargetModules':
      return { key: 'wizard.code.error.targetModules' };
    case 'loraLoadFormat':
      return { key: 'wizard.code.error.loraLoadFormat' };
    case 'loraLayeredSummon':
      return { key: 'wizard.code.error.loraLayeredSummon' };
    case 'loraLr':
      return { key: custom ? 'wizard.code.error.loraLr' : 'wizard.code.error.lr' };
    default:
      return { key: 'wizard.code.invalid' };
  }
}

/** A valid form of the other fields, so LoRA's rules (a refinement) are checked even while they are wrong. */
const VALID_REST = { experimentName: 'x', modelPath: '/m' };

/** The form to send, or an error per field (the LoRA rules included) that stops it. */
export function checkTrainingDraft(draft: TrainingDraft): { errors: TrainingErrors; form: TrainingFormData | null } {
  const input = candidate(draft) as { lora: unknown };
  const parsed = TrainingForm.safeParse(input);
  if (parsed.success) return { errors: {}, form: parsed.data };
  const errors: TrainingErrors = {};
  const issues = [...parsed.error.issues];
  // zod runs a refinement only on an otherwise valid object: check LoRA alone as well.
  const lora = TrainingForm.safeParse({ ...VALID_REST, lora: input.lora });
  if (!lora.success) issues.push(...lora.error.issues.filter((i) => i.path[0] === 'lora'));
  for (const issue of issues) {
    const [top, inner] = issue.path;
    const field = top === 'lora' ? LORA_FIELD[String(inner)] : (top as TrainingField);
    if (!field || errors[field]) continue;
    errors[field] = errorFor(field, issue.code === 'custom');
  }
  return { errors, form: null };
}

/** After a refused preview or generate: focus the first field (in form order) that stops it. */
export async function focusFirstInvalidField(container: HTMLElement | null | undefined, errors: TrainingErrors): Promise<void> {
  await tick();
  const first = TRAINING_FIELD_ORDER.find((field) => errors[field]);
  container?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus();
}
