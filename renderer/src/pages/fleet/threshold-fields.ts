import { AlertThresholds, type AlertRule } from '../../../../electron/shared/schemas-fleet';

export type ThresholdKey = keyof AlertThresholds;
export type ThresholdUnit = 'percent' | 'minutes' | 'times' | 'steps';

export interface ThresholdField {
  key: ThresholdKey;
  rule: AlertRule;
  unit: ThresholdUnit;
  /** The range as the user types it (the backend schema's, scaled); checked here so the error is worded in the page's language. */
  min: number;
  max: number;
  /** Whole numbers only (a step count). */
  integer?: boolean;
  /** The schema keeps a fraction (0.5) where the user types a percentage (50). */
  scale?: number;
}

/** Every threshold the user may change, grouped by the alert it belongs to (the form's fieldsets, in this order). */
export const THRESHOLD_FIELDS: readonly ThresholdField[] = [
  { key: 'idlePct', rule: 'gpus-idle', unit: 'percent', min: 0, max: 100 },
  { key: 'idleMinutes', rule: 'gpus-idle', unit: 'minutes', min: 0, max: 1440 },
  { key: 'stallFactor', rule: 'training-stalled', unit: 'times', min: 1, max: 100 },
  { key: 'stallMinMinutes', rule: 'training-stalled', unit: 'minutes', min: 1, max: 1440 },
  { key: 'noClientMinutes', rule: 'no-client', unit: 'minutes', min: 1, max: 1440 },
  { key: 'rewardDropFraction', rule: 'reward', unit: 'percent', min: 0, max: 100, scale: 100 },
  { key: 'rewardWindow', rule: 'reward', unit: 'steps', min: 1, max: 1000, integer: true },
  { key: 'diskPct', rule: 'disk', unit: 'percent', min: 1, max: 100 },
];

/** The rules with thresholds, in the order of their fieldsets. */
export const THRESHOLD_RULES: readonly AlertRule[] = [...new Set(THRESHOLD_FIELDS.map((f) => f.rule))];

/** The form as typed: text, so a half-typed number is not lost. */
export type ThresholdDraft = Record<ThresholdKey, string>;

/** What went wrong with one field: not a number, or outside its range (worded by the page). */
export type ThresholdError = { kind: 'number' } | { kind: 'range'; min: number; max: number } | { kind: 'integer' };

/** A number as the form shows it: a fraction as a percentage, no float noise (0.5 → "50", 0.1 + 0.2 → "0.3"). */
function shown(value: number, scale = 1): string {
  return String(Number((value * scale).toPrecision(12)));
}

export function draftOf(values: AlertThresholds): ThresholdDraft {
  return Object.fromEntries(THRESHOLD_FIELDS.map((f) => [f.key, shown(values[f.key], f.scale)])) as ThresholdDraft;
}

/**
 * The draft checked field by field (the same ranges as the backend's schema, which checks again): the errors,
 * or the values to save (fractions where the schema keeps them).
 */
export function checkThresholdDraft(draft: ThresholdDraft): { errors: Partial<Record<ThresholdKey, ThresholdError>>; values: AlertThresholds | null } {
  const errors: Partial<Record<ThresholdKey, ThresholdError>> = {};
  const typed: Partial<Record<ThresholdKey, number>> = {};
  for (const field of THRESHOLD_FIELDS) {
    const text = draft[field.key].trim().replace(',', '.');
    const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(value)) errors[field.key] = { kind: 'number' };
    else if (value < field.min || value > field.max) errors[field.key] = { kind: 'range', min: field.min, max: field.max };
    else if (field.integer && !Number.isInteger(value)) errors[field.key] = { kind: 'integer' };
    else typed[field.key] = field.scale ? value / field.scale : value;
  }
  if (Object.keys(errors).length > 0) return { errors, values: null };
  const parsed = AlertThresholds.safeParse(typed);
  return parsed.success ? { errors, values: parsed.data } : { errors: { [String(parsed.error.issues[0]?.path[0] ?? 'idlePct')]: { kind: 'number' } }, values: null };
}
