import type { TrainingPoint } from '../../../../../electron/shared/schemas-profiles';

/**
 * Pure readings of a run's series (`training:series` → points, one per completed global step, in
 * step order): what the reward chart, its table and the per-step figures show, and what another
 * page (a fleet overview's sparkline) can reuse. A point with `batch: 'unobserved'` is a step that
 * happened without the app seeing its batch: its numbers are null, never zeros.
 */

export function sortedPoints(points: readonly TrainingPoint[]): TrainingPoint[] {
  return [...points].sort((a, b) => a.step - b.step);
}

/** The reward means per step for a small chart: null where the step was not observed (a gap, not 0). */
export function rewardSparkline(points: readonly TrainingPoint[]): { step: number; mean: number | null }[] {
  return sortedPoints(points).map((p) => ({ step: p.step, mean: p.rewardMean }));
}

/**
 * The y range of the reward chart, from the data: min and max over every drawn value (min, max,
 * mean ± std), padded by a tenth of the span; a flat series gets ±0.5 around its value (or ±10 %
 * of a large one). No data: 0..1.
 */
export function rewardRange(points: readonly TrainingPoint[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const p of points) {
    const values = [p.rewardMin, p.rewardMax, p.rewardMean, p.rewardMean !== null ? p.rewardMean - (p.rewardStd ?? 0) : null, p.rewardMean !== null ? p.rewardMean + (p.rewardStd ?? 0) : null];
    for (const v of values) {
      if (v === null || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (lo === Infinity) return [0, 1];
  if (hi - lo < 1e-9) {
    const pad = Math.max(0.5, Math.abs(lo) * 0.1);
    return [lo - pad, hi + pad];
  }
  const pad = (hi - lo) * 0.1;
  return [lo - pad, hi + pad];
}

/** The x range: whole steps, half a step of room either side (one point is not a zero-width axis). */
export function stepRange(points: readonly TrainingPoint[]): [number, number] {
  if (points.length === 0) return [0, 1];
  const steps = points.map((p) => p.step);
  return [Math.min(...steps) - 0.5, Math.max(...steps) + 0.5];
}

/**
 * Integer tick positions for the step axis between `min` and `max`, at most about `maxTicks` of them,
 * at a "nice" stride (1, 2, 5, 10, 20, 50, …): never a fractional step.
 */
export function stepTicks(min: number, max: number, maxTicks: number): number[] {
  const first = Math.ceil(min);
  const last = Math.floor(max);
  if (last < first) return [];
  const span = last - first;
  let stride = 1;
  for (let magnitude = 1; ; magnitude *= 10) {
    const found = [1, 2, 5].map((m) => m * magnitude).find((s) => Math.floor(span / s) + 1 <= Math.max(1, maxTicks));
    if (found !== undefined) {
      stride = found;
      break;
    }
  }
  const ticks: number[] = [];
  for (let s = Math.ceil(first / stride) * stride; s <= last; s += stride) ticks.push(s);
  return ticks;
}

/** What a trainer watches besides reward, over the newest `window` steps; null where the data does not exist. */
export interface StepSummary {
  /** Steps completed per hour, from the steps' end times (counts unobserved steps too: they happened). */
  stepsPerHour: number | null;
  /** Median time per step (s), from the steps whose start and end were seen. */
  secondsPerStep: number | null;
  /** Mean finished episodes per observed step. */
  episodesPerStep: number | null;
  /** Mean LLM tokens per step; null: the server does not report them. */
  tokensPerStep: number | null;
  /** Mean failed episodes per step; null: the server does not report them. */
  failuresPerStep: number | null;
  /** Steps in the window whose batch was not observed. */
  unobserved: number;
  /** Steps the figures are over. */
  steps: number;
}

const mean = (values: number[]): number | null => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function stepSummary(points: readonly TrainingPoint[], window = 20): StepSummary {
  const recent = sortedPoints(points).slice(-window);
  const first = recent[0];
  const last = recent.at(-1);
  let stepsPerHour: number | null = null;
  if (first && last && last.step > first.step) {
    const ms = Date.parse(last.at) - Date.parse(first.at);
    if (ms > 0) stepsPerHour = ((last.step - first.step) * 3_600_000) / ms;
  }
  const durations = recent.flatMap((p) => (p.seconds !== null ? [p.seconds] : []));
  let secondsPerStep = median(durations);
  if (secondsPerStep === null && stepsPerHour !== null) secondsPerStep = 3600 / stepsPerHour;
  const known = <K extends 'episodes' | 'llmTokens' | 'failures'>(key: K) => recent.flatMap((p) => (p[key] !== null && p.batch !== 'unobserved' ? [p[key] as number] : []));
  return {
    stepsPerHour,
    secondsPerStep,
    episodesPerStep: mean(known('episodes')),
    tokensPerStep: mean(known('llmTokens')),
    failuresPerStep: mean(known('failures')),
    unobserved: recent.filter((p) => p.batch === 'unobserved').length,
    steps: recent.length,
  };
}
