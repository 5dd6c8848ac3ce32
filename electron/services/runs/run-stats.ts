import type { StatusSpan, TrainingPoint } from '../../shared/schemas-training';
import type { EngineKind } from '../../shared/schemas';
import type { RunDetail, RunEndKind, RunScript, RunStats, RunSummary, RunsSettings } from '../../shared/schemas-runs';

const HOUR_MS = 60 * 60 * 1000;

/** One run as the store keeps it: what `RunDetail` shows, without what is computed when read (GPU-hours, cost, size). */
export interface StoredRun {
  version: 1;
  runId: string;
  engineId: string;
  engineKind: EngineKind | null;
  containerId: string;
  serverName: string;
  profileId: string | null;
  profileLabel: string | null;
  image: string | null;
  imageDigest: string | null;
  startedAt: string;
  endedAt: string | null;
  endKind: RunEndKind | null;
  endCode: number | null;
  gpus: number | null;
  gpuSource: 'sample' | 'profile' | 'none' | null;
  yaml: string | null;
  yamlNote: string | null;
  yamlPath: string | null;
  yamlSha256: string | null;
  scripts: RunScript[];
  points: TrainingPoint[];
  timeline: StatusSpan[];
}

const round = (n: number | null, digits = 4): number | null => (n === null || !Number.isFinite(n) ? null : Number(n.toFixed(digits)));

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A sum that stays null while no point reports the number (null means "not reported", never 0). */
function sumReported(points: readonly TrainingPoint[], pick: (p: TrainingPoint) => number | null): number | null {
  let total: number | null = null;
  for (const p of points) {
    const value = pick(p);
    if (value !== null) total = (total ?? 0) + value;
  }
  return total;
}

/** The step statistics of a run's points (steps that passed unobserved count as steps, not as rewards). */
export function runStats(points: readonly TrainingPoint[]): RunStats {
  const rewards = points.filter((p): p is TrainingPoint & { rewardMean: number } => p.rewardMean !== null && Number.isFinite(p.rewardMean));
  const seconds = points.map((p) => p.seconds).filter((s): s is number => s !== null);
  const means = rewards.map((p) => p.rewardMean);
  return {
    steps: points.length,
    firstStep: points[0]?.step ?? null,
    lastStep: points.at(-1)?.step ?? null,
    observedSteps: points.filter((p) => p.batch !== 'unobserved').length,
    rewardFirst: round(rewards[0]?.rewardMean ?? null),
    rewardLast: round(rewards.at(-1)?.rewardMean ?? null),
    rewardBest: means.length > 0 ? round(Math.max(...means)) : null,
    rewardMean: means.length > 0 ? round(means.reduce((a, b) => a + b, 0) / means.length) : null,
    stepSecondsMedian: round(median(seconds), 1),
    stepSecondsMean: seconds.length > 0 ? round(seconds.reduce((a, b) => a + b, 0) / seconds.length, 1) : null,
    episodes: points.reduce((n, p) => n + (p.episodes ?? 0), 0),
    failures: sumReported(points, (p) => p.failures),
    llmTokens: sumReported(points, (p) => p.llmTokens),
  };
}

/** GPUs × hours from the run's start to its end (or `now` while it runs); null when the GPU count is unknown. */
export function gpuHoursOf(run: Pick<StoredRun, 'startedAt' | 'endedAt' | 'gpus'>, now: number): number | null {
  if (run.gpus === null) return null;
  const start = Date.parse(run.startedAt);
  const end = run.endedAt ? Date.parse(run.endedAt) : now;
  if (!Number.isFinite(start) || !Number.isFinite(end)) return null;
  return round((run.gpus * Math.max(0, end - start)) / HOUR_MS, 4);
}

/** The run's cost at its engine's rate (computed when read: a rate set later applies to earlier runs too). */
export function costOf(gpuHours: number | null, engineId: string, settings: RunsSettings): { cost: number | null; currency: string | null } {
  const rate = settings.rates.find((r) => r.engineId === engineId);
  if (!rate) return { cost: null, currency: null };
  return { cost: gpuHours === null ? null : round(gpuHours * rate.perGpuHour, 2), currency: rate.currency };
}

/** The list's view of a stored run. */
export function summarize(run: StoredRun, stats: RunStats, bytes: number, settings: RunsSettings, now: number): RunSummary {
  const gpuHours = gpuHoursOf(run, now);
  const { cost, currency } = costOf(gpuHours, run.engineId, settings);
  return {
    runId: run.runId,
    engineId: run.engineId,
    engineKind: run.engineKind,
    containerId: run.containerId,
    serverName: run.serverName,
    profileId: run.profileId,
    profileLabel: run.profileLabel,
    image: run.image,
    imageDigest: run.imageDigest,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    endKind: run.endKind,
    endCode: run.endCode,
    stats,
    gpus: run.gpus,
    gpuSource: run.gpuSource,
    gpuHours,
    cost,
    currency,
    yamlSha256: run.yamlSha256,
    scriptCount: run.scripts.length,
    bytes,
  };
}

export function detailOf(run: StoredRun, summary: RunSummary): RunDetail {
  return { ...summary, yaml: run.yaml, yamlNote: run.yamlNote, yamlPath: run.yamlPath, scripts: run.scripts, points: run.points, timeline: run.timeline };
}
