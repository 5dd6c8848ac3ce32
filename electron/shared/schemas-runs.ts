import { z } from 'zod';
import { ContainerId, EngineId, EngineKind, SwarmExitKind } from './schemas';
import { StatusSpan, TrainingPoint } from './schemas-training';

/**
 * Every run kept (issue 33): one training run on one server, from the first synced job (the engine
 * leaves OFFLINE) to its end, with what it ran (image, YAML, scripts), what it did (steps, rewards)
 * and what it cost (GPU-hours, and money at the rate the user set for that engine).
 */

/** Sortable by time: a UTC stamp, then a random tail (the training monitor's run id where it has one). */
export const RunId = z
  .string()
  .min(8)
  .max(80)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a run id is letters, digits, ".", "_" or "-"');

/**
 * How a run ended: a server end (its container or job ended, `SwarmExitKind`), or one of the engine's own:
 * `engine-stopped`: the engine went OFFLINE while the server kept running (a client's stop_engine, or the
 * trainer ended); `boot-failed`: it went OFFLINE before it ever trained; `lost`: the server vanished
 * without an end the app could read (removed while the app was closed).
 */
export const RunEndKind = z.union([SwarmExitKind, z.enum(['engine-stopped', 'boot-failed', 'lost'])]);

/** One file that ran the run (the wizard's generated scripts, a train job's script): its hash and a copy. */
export const RunScript = z.object({
  name: z.string(),
  path: z.string(),
  sha256: z.string(),
  bytes: z.number().int().nonnegative(),
  /** The text as it was when the run began (redacted; cut at 256 KB). */
  text: z.string(),
});

/** What the steps of a run add up to. */
export const RunStats = z.object({
  steps: z.number().int().nonnegative(),
  firstStep: z.number().int().nullable(),
  lastStep: z.number().int().nullable(),
  /** Steps whose batch was seen (exact, pool or partial), the others passed unobserved. */
  observedSteps: z.number().int().nonnegative(),
  rewardFirst: z.number().nullable(),
  rewardLast: z.number().nullable(),
  rewardBest: z.number().nullable(),
  /** Mean over the observed steps' means. */
  rewardMean: z.number().nullable(),
  /** Median and mean seconds per step (steps whose start was seen). */
  stepSecondsMedian: z.number().nullable(),
  stepSecondsMean: z.number().nullable(),
  episodes: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative().nullable(),
  llmTokens: z.number().int().nonnegative().nullable(),
});

/** What a runs list shows of one run. */
export const RunSummary = z.object({
  runId: RunId,
  engineId: EngineId,
  engineKind: EngineKind.nullable(),
  containerId: ContainerId,
  /** How the user knows the server: its profile's label, else its container name. */
  serverName: z.string(),
  profileId: z.string().nullable(),
  profileLabel: z.string().nullable(),
  image: z.string().nullable(),
  /** repo@sha256:… where the engine knows it; null when not (an image never pushed or pulled, the dry run). */
  imageDigest: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  /** Null while it runs. */
  endKind: RunEndKind.nullable(),
  /** The exit code when the server ended with one. */
  endCode: z.number().int().nullable(),
  stats: RunStats,
  /** GPUs the run held: from the host's (or Slurm job's) nvidia-smi sample, narrowed by the profile's GPU choice. */
  gpus: z.number().int().nonnegative().nullable(),
  gpuSource: z.enum(['sample', 'profile', 'none']).nullable(),
  /** GPUs × hours from start to end (or to now while it runs); null when the GPU count is unknown. */
  gpuHours: z.number().nonnegative().nullable(),
  /** gpuHours × the engine's rate; null without a rate. */
  cost: z.number().nonnegative().nullable(),
  currency: z.string().nullable(),
  /** The synced YAML's sha256 (null: the server did not let the app read it). */
  yamlSha256: z.string().nullable(),
  scriptCount: z.number().int().nonnegative(),
  /** Bytes the run takes on disk. */
  bytes: z.number().int().nonnegative(),
});

/** One run whole: its summary, the YAML, the scripts and the series. */
export const RunDetail = RunSummary.extend({
  /** The YAML the run's client synced (redacted); null when it could not be read, with `yamlNote` saying why. */
  yaml: z.string().nullable(),
  yamlNote: z.string().nullable(),
  yamlPath: z.string().nullable(),
  scripts: z.array(RunScript),
  points: z.array(TrainingPoint),
  timeline: z.array(StatusSpan),
});

export const RunRef = z.object({ runId: RunId });

export const RunListRequest = z.object({
  /** Only this engine's runs (named apart from `engineId`: a filter, not a target). */
  engine: EngineId.nullable().default(null),
  profile: z.string().max(200).nullable().default(null),
  /** `running`, `ended` (any end), or one end kind. */
  state: z.union([z.enum(['any', 'running', 'ended']), RunEndKind]).default('any'),
  /** Runs that started at or after / before this time (ISO). */
  since: z.string().max(40).nullable().default(null),
  until: z.string().max(40).nullable().default(null),
  /** Words in the server, profile, image or run id. */
  text: z.string().max(200).default(''),
});

export const RunCompareRequest = z.object({ runIds: z.array(RunId).min(2).max(5) });

/** One row of a side-by-side diff: the left and right line (null where that side has none); `folded`: `count` unchanged lines left out. */
export const DiffRow = z.object({
  kind: z.enum(['same', 'changed', 'removed', 'added', 'folded']),
  count: z.number().int().nonnegative(),
  left: z.string().nullable(),
  right: z.string().nullable(),
  leftLine: z.number().int().nullable(),
  rightLine: z.number().int().nullable(),
});

/** The first run's YAML against one other run's. */
export const YamlDiff = z.object({
  leftRunId: RunId,
  rightRunId: RunId,
  /** Null when either run has no YAML. */
  rows: z.array(DiffRow).nullable(),
  changed: z.number().int().nonnegative(),
});

export const RunComparison = z.object({ runs: z.array(RunDetail), diffs: z.array(YamlDiff) });

export const RunRate = z.object({
  engineId: EngineId,
  /** Money per GPU-hour; null removes the rate. */
  perGpuHour: z.number().nonnegative().max(1_000_000).nullable(),
  currency: z.string().trim().min(1).max(8).default('USD'),
});

/** What the run store keeps: at most `keepRuns` runs and `keepMegabytes` on disk (oldest ended runs dropped first). */
export const RunsSettings = z.object({
  keepRuns: z.number().int().min(1).max(10_000).default(200),
  keepMegabytes: z.number().int().min(1).max(100_000).default(200),
  rates: z.array(RunRate.extend({ perGpuHour: z.number().nonnegative().max(1_000_000) })).default([]),
});

export const RunsLimits = RunsSettings.pick({ keepRuns: true, keepMegabytes: true }).partial();

/**
 * A run card: `html`, one self-contained file (chart as inline SVG, no network); `markdown`, a .md
 * beside a .png of the chart, which the page renders from `runs:card`'s SVG (base64, at most 4 MB).
 */
export const RunCardExport = z.discriminatedUnion('format', [
  z.object({ format: z.literal('html'), runId: RunId }),
  z.object({ format: z.literal('markdown'), runId: RunId, pngBase64: z.string().max(6_000_000).nullable().default(null) }),
]);

export const RunCardExported = z.object({ path: z.string(), pngPath: z.string().nullable(), bytes: z.number().int().nonnegative() });

/** The card's chart as the export draws it (redacted): the page rasterises it for the Markdown card's PNG. */
export const RunCard = z.object({ runId: RunId, svg: z.string(), width: z.number().int(), height: z.number().int() });

/** Invalidation: these runs were added, changed or deleted; read `runs:list` again. */
export const RunsChanged = z.object({ runIds: z.array(RunId) });

export type RunId = z.infer<typeof RunId>;
export type RunEndKind = z.infer<typeof RunEndKind>;
export type RunScript = z.infer<typeof RunScript>;
export type RunStats = z.infer<typeof RunStats>;
export type RunSummary = z.infer<typeof RunSummary>;
export type RunDetail = z.infer<typeof RunDetail>;
export type RunListRequest = z.infer<typeof RunListRequest>;
export type DiffRow = z.infer<typeof DiffRow>;
export type YamlDiff = z.infer<typeof YamlDiff>;
export type RunComparison = z.infer<typeof RunComparison>;
export type RunRate = z.infer<typeof RunRate>;
export type RunsSettings = z.infer<typeof RunsSettings>;
export type RunCardExport = z.infer<typeof RunCardExport>;
export type RunCardExported = z.infer<typeof RunCardExported>;
export type RunCard = z.infer<typeof RunCard>;
