import type { RunDetail, RunSummary } from '../../../../electron/shared/schemas-runs';
import { getLocale, t } from '../../lib/i18n';
import { ticks } from '../../../../electron/shared/chart-ticks';

/** Five lines told apart by colour and by dash (readable without colour), dark enough on white (≥ 3:1). */
export const SERIES_STYLES = [
  { color: '#1d4ed8', dash: '' },
  { color: '#b91c1c', dash: '6 3' },
  { color: '#047857', dash: '2 3' },
  { color: '#7c3aed', dash: '8 3 2 3' },
  { color: '#b45309', dash: '10 4' },
] as const;

/** "2 h 05 min", "12 min 3 s", "40 s": how long a run took (or has taken, while it runs). */
export function runDuration(run: Pick<RunSummary, 'startedAt' | 'endedAt'>, now: number): string {
  const ms = (run.endedAt ? Date.parse(run.endedAt) : now) - Date.parse(run.startedAt);
  if (!Number.isFinite(ms) || ms < 0) return t('runs.unknown');
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

export const shortRunId = (runId: string): string => (runId.length > 24 ? `${runId.slice(0, 15)}…${runId.slice(-4)}` : runId);

/** A number for a table cell: `digits` decimals at most, '—' for none. */
export function num(value: number | null, digits = 3): string {
  return value === null || !Number.isFinite(value) ? t('runs.unknown') : String(Number(value.toFixed(digits)));
}

export function costText(run: Pick<RunSummary, 'cost' | 'currency'>): string {
  return run.cost === null ? t('runs.unknown') : t('runs.cost', { cost: run.cost.toFixed(2), currency: run.currency ?? '' });
}

export function endText(run: Pick<RunSummary, 'endKind' | 'endCode'>): string {
  if (run.endKind === null) return t('runs.running');
  const words = t(`runs.end.${run.endKind}`);
  return run.endCode !== null && run.endCode !== 0 ? `${words} (${run.endCode})` : words;
}

/** The local date and time a run began, short, in the language shown (not the browser's: CI-AB showed English dates in zh-CN). */
export function startedText(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(getLocale(), { dateStyle: 'short', timeStyle: 'short' });
}

export type Axis = 'step' | 'time';

export interface ChartSeries {
  runId: string;
  label: string;
  points: { x: number; y: number }[];
}

/** Each run's mean reward per step, against its step or the hours since it began (steps without a reward are left out). */
export function seriesOf(runs: readonly RunDetail[], axis: Axis): ChartSeries[] {
  return runs.map((run) => {
    const start = Date.parse(run.startedAt);
    const points = run.points
      .filter((p) => p.rewardMean !== null && Number.isFinite(p.rewardMean))
      .map((p) => ({ x: axis === 'step' ? p.step : (Date.parse(p.at) - start) / 3_600_000, y: p.rewardMean! }));
    return { runId: run.runId, label: `${run.serverName} · ${shortRunId(run.runId)}`, points };
  });
}

export { ticks };

export interface Frame {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The box every series fits in; a flat range is widened so lines do not sit on an edge. */
export function frameOf(series: readonly ChartSeries[]): Frame | null {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return null;
  let [x0, x1] = [Math.min(...all.map((p) => p.x)), Math.max(...all.map((p) => p.x))];
  let [y0, y1] = [Math.min(...all.map((p) => p.y)), Math.max(...all.map((p) => p.y))];
  if (x0 === x1) [x0, x1] = [x0 - 1, x1 + 1];
  if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  return { x0, x1, y0, y1 };
}
