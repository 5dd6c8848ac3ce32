import { z } from 'zod';
import { ContainerId, EngineId, EngineKind, SwarmExitKind } from './schemas';

/**
 * The training monitor's view models and the app's notifications: split from schemas-profiles.ts (which re-exports
 * them, so every import keeps its path).
 */

// ---------------------------------------------------------------- training monitor

export const RunningEpisode = z.object({
  episodeUuid: z.string(),
  status: z.string(),
  llmCalls: z.number().int().nullable(),
  idleSeconds: z.number().nullable(),
  patienceSeconds: z.number().nullable(),
  clientUuid: z.string(),
  taskId: z.string(),
});

export const TaskReward = z.object({
  taskId: z.string(),
  episodes: z.number().int().nonnegative(),
  mean: z.number().nullable(),
  std: z.number().nullable(),
});

export const FillBar = z.object({ done: z.number().int().nonnegative(), target: z.number().int().nonnegative() });

/** The live training picture of one swarm server, from /get_engine_status and the pool route (2 s). */
export const TrainingView = z.object({
  engineId: EngineId,
  containerId: ContainerId,
  /** Identifies one training run (a new one each time the engine boots). */
  runId: z.string().nullable(),
  engineStatus: z.string().nullable(),
  /** When the current status began (ISO, as the app saw it). */
  statusSince: z.string().nullable(),
  bootingSeconds: z.number().nullable(),
  globalStep: z.number().int().nullable(),
  modelPath: z.string().nullable(),
  sampleCollectionMethod: z.string().nullable(),
  episodes: FillBar.nullable(),
  tasks: FillBar.nullable(),
  nonDummyTasks: FillBar.nullable(),
  expectedRepeat: z.number().int().nullable(),
  runningEpisodes: z.array(RunningEpisode),
  taskRewards: z.array(TaskReward),
  rewardMean: z.number().nullable(),
  rewardStd: z.number().nullable(),
  activeClients: z.array(z.object({ clientUuid: z.string(), agreedSyncWeight: z.boolean() })),
  /** Routes this server does not have (404): shown as "not reported by this server version". */
  missingRoutes: z.array(z.string()),
  lastError: z.string().nullable(),
  checkedAt: z.string(),
});

/**
 * How a step's batch numbers were learnt: `exact` from the trainer itself (the dry run counts its own batch),
 * `pool` from the last pool snapshot before the global step changed (the batch was complete in it), `partial` from
 * a snapshot taken before the batch was complete (the numbers are a lower bound), `unobserved` when the step passed
 * without a pool snapshot of its own (no dashboard was shown, or the step was faster than the poll): no numbers.
 */
export const StepBatchSource = z.enum(['exact', 'pool', 'partial', 'unobserved']);

/** One point per global step of a run, written to disk so charts survive restarts. */
export const TrainingPoint = z.object({
  step: z.number().int(),
  /** When the step ended (ISO, as the app saw it). */
  at: z.string(),
  /** Absent in runs stored before it existed: those were pool snapshots. */
  batch: StepBatchSource.default('pool'),
  rewardMean: z.number().nullable(),
  rewardStd: z.number().nullable(),
  rewardMin: z.number().nullable(),
  rewardMax: z.number().nullable(),
  /** Finished episodes of the step's batch; null when the step was not observed (never "0 episodes"). */
  episodes: z.number().int().nonnegative().nullable(),
  /** How long the step took (s); null when its start was not seen. */
  seconds: z.number().nonnegative().nullable().default(null),
  /** LLM tokens (prompt + completion) spent in the step; null: the server does not report them. */
  llmTokens: z.number().int().nonnegative().nullable().default(null),
  /** LLM calls made in the step; null: not reported. */
  llmCalls: z.number().int().nonnegative().nullable().default(null),
  /** Episodes that failed in the step (aborted, timed out, ended without a reward); null: not reported. */
  failures: z.number().int().nonnegative().nullable().default(null),
  /** Seconds spent in each engine status during this step. */
  secondsInStatus: z.record(z.string(), z.number().nonnegative()),
});

/** Engine-status changes of a run, for the timeline. */
export const StatusSpan = z.object({ status: z.string(), from: z.string(), to: z.string().nullable() });

export const TrainingSeries = z.object({
  engineId: EngineId,
  containerId: ContainerId,
  runId: z.string().nullable(),
  points: z.array(TrainingPoint),
  timeline: z.array(StatusSpan),
});

/** One swarm server's container, as the logs address it (`LogRef`'s shape). */
export const TrainingRef = z.object({ engineId: EngineId, containerId: ContainerId });

/** A desktop notification the backend wants shown (Electron shows it itself; the browser host pushes it). */
export const AppNotification = z.object({
  /** `slurm-time-limit`: Slurm sent a running job its time-limit warning (the server stops at the limit); `fleet-alert`: a fleet alert opened (issue 33). */
  kind: z.enum(['engine-rolling', 'engine-offline', 'container-died', 'slurm-time-limit', 'server-ended', 'worker-died', 'fleet-alert']),
  title: z.string(),
  body: z.string(),
  engineId: EngineId,
  containerId: ContainerId,
  /** `server-ended`: the end as data, so the page words it in its language (title and body are the desktop's English). */
  end: z
    .object({ kind: SwarmExitKind, code: z.number().int().nullable(), name: z.string(), line: z.string().nullable(), engineKind: EngineKind })
    .optional(),
});

export type TrainingView = z.infer<typeof TrainingView>;
export type TrainingPoint = z.infer<typeof TrainingPoint>;
export type StepBatchSource = z.infer<typeof StepBatchSource>;
export type TrainingSeries = z.infer<typeof TrainingSeries>;
export type StatusSpan = z.infer<typeof StatusSpan>;
export type RunningEpisode = z.infer<typeof RunningEpisode>;
export type AppNotification = z.infer<typeof AppNotification>;
