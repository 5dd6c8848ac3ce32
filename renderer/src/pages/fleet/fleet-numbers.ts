import type { GpuSample } from '../../../../electron/shared/schemas-fleet';
import type { TrainingPoint } from '../../../../electron/shared/schemas-profiles';
import type { SlurmJobView } from '../../../../electron/shared/schemas-slurm';
import type { ServerState } from '../../../../electron/shared/server-state';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Steps per hour of a run: the steps that closed in the last hour, or, in a run younger than that, the pace so
 * far (steps between the first and the last point over the time between them). Null with fewer than two points.
 */
export function stepsPerHour(points: readonly Pick<TrainingPoint, 'step' | 'at'>[], now: number): number | null {
  if (points.length < 2) return null;
  const first = points[0]!;
  const last = points.at(-1)!;
  const firstAt = Date.parse(first.at);
  if (now - firstAt >= HOUR_MS) return points.filter((p) => now - Date.parse(p.at) <= HOUR_MS).length;
  const spanMs = Date.parse(last.at) - firstAt;
  if (spanMs <= 0) return null;
  return ((last.step - first.step) / spanMs) * HOUR_MS;
}

/** The polyline of the mean reward per step in a `width` × `height` box (steps without a mean are skipped); '' with fewer than two. */
export function sparkline(points: readonly Pick<TrainingPoint, 'step' | 'rewardMean'>[], width: number, height: number): string {
  const shown = points.filter((p): p is typeof p & { rewardMean: number } => p.rewardMean !== null && Number.isFinite(p.rewardMean));
  if (shown.length < 2) return '';
  const steps = shown.map((p) => p.step);
  const values = shown.map((p) => p.rewardMean);
  const [x0, x1] = [Math.min(...steps), Math.max(...steps)];
  const [y0, y1] = [Math.min(...values), Math.max(...values)];
  const x = (step: number) => (x1 === x0 ? 0 : ((step - x0) / (x1 - x0)) * width);
  // A flat line is drawn in the middle, not on an edge.
  const y = (value: number) => (y1 === y0 ? height / 2 : height - ((value - y0) / (y1 - y0)) * height);
  return shown.map((p) => `${x(p.step).toFixed(1)},${y(p.rewardMean).toFixed(1)}`).join(' ');
}

/** GPUs held × hours held: the GPUs the host's (or job's) last sample saw, from the server's start to its end or now. */
export function gpuHours(state: Pick<ServerState, 'container' | 'phase'>, gpus: number, now: number): number | null {
  const started = state.container.startedAt ? Date.parse(state.container.startedAt) : NaN;
  if (!Number.isFinite(started) || gpus === 0) return null;
  const ended = state.phase === 'ended' && state.container.finishedAt ? Date.parse(state.container.finishedAt) : now;
  return (gpus * Math.max(0, ended - started)) / HOUR_MS;
}

/** Seconds until a Slurm job's time limit, counted down from when its view was read; null without a limit. */
export function timeLeftSeconds(view: Pick<SlurmJobView, 'timeLeftSeconds' | 'readAt'>, now: number): number | null {
  if (view.timeLeftSeconds === null) return null;
  return Math.max(0, view.timeLeftSeconds - Math.max(0, Math.round((now - Date.parse(view.readAt)) / 1000)));
}

/** The GPU sample that covers a server: its Slurm job's, else its engine's host's. */
export function sampleFor(state: Pick<ServerState, 'key' | 'engineId' | 'engineKind'>, samples: readonly GpuSample[]): GpuSample | undefined {
  if (state.engineKind === 'slurm') return samples.find((s) => s.key === state.key);
  return samples.find((s) => s.containerId === null && s.engineIds.includes(state.engineId));
}

/** "1 h 5 min", "12 min", "40 s": a time left, short. */
export function shortDuration(seconds: number): { h: number; m: number; s: number } {
  return { h: Math.floor(seconds / 3600), m: Math.floor((seconds % 3600) / 60), s: seconds % 60 };
}
