import type { StatusSpan, TrainingPoint } from '../../../../../electron/shared/schemas-profiles';
import type { MessageKey } from '../../../lib/i18n';

/** A colour class and a label per engine status (the timeline, the status badge). */
export type StateClass = 'offline' | 'booting' | 'rolling' | 'post' | 'syncing' | 'exporting' | 'unknown';

const CLASSES: Record<string, StateClass> = {
  'ENGINE.OFFLINE': 'offline',
  'ENGINE.BOOTING': 'booting',
  'ENGINE.ROLLING': 'rolling',
  'ENGINE.ROLLING_POST': 'post',
  'ENGINE.WEIGHT_SYNCING': 'syncing',
  'ENGINE.WEIGHT_EXPORTING': 'exporting',
};

export function stateClass(status: string | null): StateClass {
  return (status !== null ? CLASSES[status] : undefined) ?? 'unknown';
}

export function stateLabel(status: string | null): MessageKey {
  return `training.state.${stateClass(status)}`;
}

export function isTraining(status: string | null): boolean {
  const c = stateClass(status);
  return c === 'rolling' || c === 'post' || c === 'syncing' || c === 'exporting';
}

export interface Segment {
  status: string;
  cls: StateClass;
  from: number;
  to: number;
  /** Share of the whole timeline, 0..1. */
  fraction: number;
}

/** The timeline as proportional segments; the open last span runs until `now`. */
export function segments(timeline: readonly StatusSpan[], now: number): Segment[] {
  const raw = timeline.map((span) => {
    const from = Date.parse(span.from);
    const to = span.to !== null ? Date.parse(span.to) : Math.max(now, from);
    return { status: span.status, cls: stateClass(span.status), from, to };
  });
  const first = raw[0]?.from ?? 0;
  const last = raw.at(-1)?.to ?? 0;
  const total = Math.max(1, last - first);
  return raw.map((s) => ({ ...s, fraction: Math.max(0, s.to - s.from) / total }));
}

/** Percent of a fill bar, 0..100 (a target of 0 reads as empty, not as NaN). */
export function percent(done: number, target: number): number {
  if (target <= 0) return 0;
  return Math.min(100, Math.round((done / target) * 100));
}

export function formatNumber(value: number | null, digits = 3): string {
  if (value === null || !Number.isFinite(value)) return '—';
  return Number(value.toFixed(digits)).toString();
}

/**
 * What the reward chart draws, in uPlot's column layout: steps, mean, mean − std, mean + std, min,
 * max. A step without rewards has nulls (a gap), never zeros.
 */
export type ChartColumns = [number[], (number | null)[], (number | null)[], (number | null)[], (number | null)[], (number | null)[]];

export function chartColumns(points: readonly TrainingPoint[]): ChartColumns {
  const sorted = [...points].sort((a, b) => a.step - b.step);
  const band = (p: TrainingPoint, sign: 1 | -1) => (p.rewardMean === null ? null : p.rewardMean + sign * (p.rewardStd ?? 0));
  return [
    sorted.map((p) => p.step),
    sorted.map((p) => p.rewardMean),
    sorted.map((p) => band(p, -1)),
    sorted.map((p) => band(p, 1)),
    sorted.map((p) => p.rewardMin),
    sorted.map((p) => p.rewardMax),
  ];
}

/** Short ids for tables: uuids are long and only their start tells them apart. */
export function shortId(id: string, length = 8): string {
  return id.length > length ? `${id.slice(0, length)}…` : id;
}
