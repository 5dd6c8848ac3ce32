import { z } from 'zod';
import { JobId, JobLogLine, JobSwarmTarget, LocalPath } from './schemas-jobs';
import { ServerId } from './schemas-servers';
import { SlurmPartition, SlurmTimeLimit } from './schemas-slurm';
import { SecretId } from './schemas-vault';

/**
 * Rollout worker pools (issue 34): one training run's `agent_roll.py` on N workers, on this computer
 * (through the job runner) and on SSH hosts (a copied project, detached, found again by pid). Each
 * worker gets its share of the batch (`electron/services/workers/parallelism-split.ts`) as plain env;
 * secrets reach workers as env or a 0600 file, never argv.
 */
export const PoolId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'pool id must be lowercase letters, digits or "-"');

/** How a worker on an SSH host reaches the swarm server. */
export const SwarmReach = z.discriminatedUnion('kind', [
  /** The worker runs on the swarm server's own host: 127.0.0.1:<port> there. */
  z.object({ kind: z.literal('same-host'), port: z.number().int().min(1).max(65535) }),
  /** The user says the server is reachable from the worker at this URL (checked with one GET /health from the worker first). */
  z.object({ kind: z.literal('direct'), url: z.string().trim().url().max(2048) }),
  /** Through this computer: a reverse tunnel on the worker's SSH connection to the app's own URL of the server. */
  z.object({ kind: z.literal('tunnel') }),
]);

/** How a Slurm array task reaches the swarm server. */
export const SlurmReach = z.discriminatedUnion('kind', [
  /** The server is a Slurm job of the app on the same cluster: its node's address inside the cluster (NodeAddr) and port. */
  z.object({ kind: z.literal('cluster') }),
  /** The user says the compute nodes reach the server at this URL (checked with one GET /health from the login node first). */
  z.object({ kind: z.literal('direct'), url: z.string().trim().url().max(2048) }),
]);

export const WorkerPlacement = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('local') }),
  z.object({
    kind: z.literal('ssh'),
    serverId: ServerId,
    /**
     * The interpreter on that host: an absolute path (`/home/u/venv/bin/python`), or an activate line
     * followed by the python to run (`source ~/ajet/bin/activate && python`).
     */
    python: z.string().trim().min(1).max(1024),
    reach: SwarmReach.default({ kind: 'tunnel' }),
  }),
  /**
   * One task of a Slurm job array submitted on a cluster's login node (an SSH server the app knows);
   * the project is copied to the login user's home, which the compute nodes share.
   */
  z.object({
    kind: z.literal('slurm'),
    serverId: ServerId,
    /** The interpreter on the compute nodes (a path, or an activate line and the python to run). */
    python: z.string().trim().min(1).max(1024),
    /** A CPU partition (workers need no GPU); null: the cluster's default. */
    partition: SlurmPartition.nullable().default(null),
    timeLimit: SlurmTimeLimit.nullable().default(null),
    cpusPerTask: z.number().int().min(1).max(256).nullable().default(null),
    reach: SlurmReach.default({ kind: 'cluster' }),
  }),
]);

/**
 * `starting`: being copied or spawned; `running`; `exited`: ended by itself with code 0 (its epochs
 * are done); `failed`: could not start, or died (non-zero exit, a signal, its pid gone); `stopped`: by the user.
 */
export const WorkerState = z.enum(['starting', 'running', 'exited', 'failed', 'stopped']);

/**
 * One thing to know about a worker's start, as data (issue 32): why it (re)started, the share it keeps,
 * the reverse tunnel's cost, the project copy, its Slurm array task. Worded by the renderer.
 */
export const WorkerNote = z.object({
  key: z.enum(['resumed', 'restarted', 'reshared', 'keepsShare', 'reverseTunnel', 'projectThere', 'projectSent', 'slurmTask']),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});

export const WorkerView = z.object({
  index: z.number().int().nonnegative(),
  placement: WorkerPlacement,
  /** "this computer", or the SSH server's label. */
  where: z.string(),
  state: WorkerState,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** The process id on its host (local: the job's; SSH: the detached process's). */
  pid: z.number().int().nullable(),
  /** Local workers: the job runner's job (its log is the worker's log). */
  jobId: JobId.nullable(),
  batchShare: z.number().int().positive(),
  parallelEpisodes: z.number().int().positive(),
  /** The SwarmClient's uuid as the server's pool shows it (from the worker's progress line); null until it said. */
  clientUuid: z.string().nullable(),
  episodes: z.number().int().nonnegative(),
  failedEpisodes: z.number().int().nonnegative(),
  /** Over the last minutes of progress lines; null until two lines came. */
  episodesPerMinute: z.number().nonnegative().nullable(),
  /**
   * LLM calls of its ended episodes, from the worker's own progress line: before ending an episode the
   * generated agent_roll.py reads that episode's llm_call_count from the server's episode buffer (the
   * app relays no LLM call: workers call the server directly). null: the worker's script does not report it.
   */
  llmCalls: z.number().int().nonnegative().nullable().default(null),
  /** The last line that reads like an error (redacted), for the table; the whole log is `workers:log`. */
  lastError: z.string().nullable(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  /** Lines of its log so far. */
  logLines: z.number().int().nonnegative(),
  /** Something the user should know about this worker's start (the tunnel's cost, a share from an older split), in English. */
  note: z.string().nullable(),
  /** The same as data, for the renderer's words (`workers.noteSay.<key>`); empty: nothing to tell. */
  notes: z.array(WorkerNote).default([]),
});

export const PoolSplit = z.object({
  batchSize: z.number().int().positive(),
  grpoN: z.number().int().positive(),
  workers: z.number().int().positive(),
  shares: z.array(z.object({ index: z.number().int().nonnegative(), batchShare: z.number().int().positive(), parallelEpisodes: z.number().int().positive() })),
  totalParallelEpisodes: z.number().int().positive(),
});

export const PoolStartRequest = z.object({
  /** The build folder with agent_roll.py (copied to SSH hosts as a whole project: see `projectDir`). */
  cwd: LocalPath,
  script: z.string().trim().min(1).max(4096).default('agent_roll.py'),
  /** The project folder copied to SSH hosts (default: `cwd`); `cwd` must be inside it. */
  projectDir: LocalPath.nullable().default(null),
  /** Local workers' interpreter. */
  python: LocalPath,
  swarm: JobSwarmTarget,
  llmSecretId: SecretId.nullable().default(null),
  remoteModelPath: z.string().max(1024).nullable().default(null),
  batchSize: z.number().int().min(1).max(4096),
  grpoN: z.number().int().min(1).max(64),
  placements: z.array(WorkerPlacement).min(1).max(64),
  /** Relative paths or names the copy to SSH hosts leaves out, besides .venv, caches and .git. */
  exclude: z.array(z.string().trim().min(1).max(512)).max(64).default([]),
  label: z.string().max(200).nullable().default(null),
  /** The id `workers:slurm-preview` chose (its scripts name it), so the array submitted is the one shown; null: a new one. */
  poolId: PoolId.nullable().default(null),
});

export const PoolState = z.enum(['running', 'ended']);

export const PoolView = z.object({
  poolId: PoolId,
  label: z.string().nullable(),
  createdAt: z.string(),
  state: PoolState,
  swarm: JobSwarmTarget,
  /** AJET_SWARM_URL of local workers (the app's URL of the server). */
  swarmUrl: z.string().nullable(),
  split: PoolSplit,
  workers: z.array(WorkerView),
  /** Σ of the workers' rates. */
  episodesPerMinute: z.number().nonnegative(),
  episodes: z.number().int().nonnegative(),
});

export const PoolRef = z.object({ poolId: PoolId });
export const WorkerRef = z.object({ poolId: PoolId, index: z.number().int().nonnegative() });
/** What `workers:slurm-add-preview` showed: Slurm workers are added only as shown (the same run folder, the same shares). */
export const SlurmAddShown = z.object({
  /** Names the added array's run folder (`<pool>-slurm-<first index>-<tag>`). */
  tag: z.string().regex(/^[a-z0-9]{1,16}$/),
  /** The pool's members and shares when the script was made: anything else and the add is refused (show it again). */
  revision: z.string().regex(/^[0-9a-f]{16,64}$/),
});
export const PoolAddRequest = z.object({
  poolId: PoolId,
  placements: z.array(WorkerPlacement).min(1).max(64),
  /** Required when a placement is Slurm: the answer of `workers:slurm-add-preview` for these placements. */
  shown: SlurmAddShown.nullable().optional(),
});
export const SlurmAddPreviewRequest = z.object({ poolId: PoolId, placements: z.array(WorkerPlacement).min(1).max(64) });
export const SplitRequest = z.object({
  batchSize: z.number().int().min(1).max(4096),
  grpoN: z.number().int().min(1).max(64),
  workers: z.number().int().min(1).max(64),
});

export const WorkerLogRequest = WorkerRef.extend({
  from: z.number().int().nonnegative().default(0),
  limit: z.number().int().min(1).max(5000).default(500),
});

export const WorkerLogWindow = z.object({
  poolId: PoolId,
  index: z.number().int().nonnegative(),
  lines: z.array(JobLogLine),
  total: z.number().int().nonnegative(),
});

/** Invalidation, batched: a worker has new log lines. */
export const WorkerLogAppended = z.object({ poolId: PoolId, index: z.number().int().nonnegative(), total: z.number().int().nonnegative() });

/** "Create a venv and install the AgentJet client" on an SSH host: the command is shown before it runs. */
export const ClientVenvRequest = z.object({
  serverId: ServerId,
  /** What pip installs (default: AgentJet's repository); a folder on the host works too. */
  source: z.string().trim().min(1).max(1024).optional(),
});
export const ClientVenvPlan = z.object({
  /** The host's label. */
  host: z.string(),
  /** Exactly what runs on the host. */
  command: z.string(),
  /** The venv's interpreter: the SSH workers' python once it exists. */
  python: z.string(),
});
/** The array job a pool's Slurm workers would be submitted as: shown before submission. */
export const SlurmArrayPreview = z.object({
  host: z.string(),
  /** The generated job script, exactly as it is submitted (no secret in it: those go through 0600 files). */
  script: z.string(),
  /** The command run on the login node. */
  command: z.string(),
  tasks: z.number().int().positive(),
});

export const SlurmPreviewAnswer = z.object({ poolId: PoolId, arrays: z.array(SlurmArrayPreview) });
/** Slurm workers for a running pool: the arrays as they would be submitted, the new split, and what `workers:add` sends back. */
export const SlurmAddPreviewAnswer = z.object({ poolId: PoolId, arrays: z.array(SlurmArrayPreview), split: PoolSplit, shown: SlurmAddShown });

export const ClientVenvResult = ClientVenvPlan.extend({ output: z.array(z.string()) });

export type PoolIdText = z.infer<typeof PoolId>;
export type WorkerPlacementData = z.infer<typeof WorkerPlacement>;
export type WorkerStateName = z.infer<typeof WorkerState>;
export type WorkerViewData = z.infer<typeof WorkerView>;
export type WorkerNote = z.infer<typeof WorkerNote>;
export type PoolViewData = z.infer<typeof PoolView>;
export type PoolStart = z.infer<typeof PoolStartRequest>;
export type PoolStartInput = z.input<typeof PoolStartRequest>;
export type PoolSplitData = z.infer<typeof PoolSplit>;
export type SwarmReachData = z.infer<typeof SwarmReach>;
export type ClientVenvPlanData = z.infer<typeof ClientVenvPlan>;
export type ClientVenvResultData = z.infer<typeof ClientVenvResult>;
export type SlurmArrayPreviewData = z.infer<typeof SlurmArrayPreview>;
export type SlurmPreviewAnswerData = z.infer<typeof SlurmPreviewAnswer>;
export type SlurmAddPreviewAnswerData = z.infer<typeof SlurmAddPreviewAnswer>;
export type SlurmAddShownData = z.infer<typeof SlurmAddShown>;
