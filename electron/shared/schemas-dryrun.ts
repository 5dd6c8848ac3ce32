import { z } from 'zod';
import { SecretId } from './schemas-vault';

/**
 * Dry-run swarm on this computer (issue 15): a swarm server in the backend on 127.0.0.1 that speaks
 * the swarm protocol, plays the trainer (nothing is trained) and relays each episode's LLM calls to
 * the debug LLM. It appears as engine `dry-run` with one container `dry-run`, so the swarm monitor
 * and the training dashboard work for it as for a real server.
 */
export const DRY_RUN_ENGINE_ID = 'dry-run';
export const DRY_RUN_CONTAINER_ID = 'dry-run';

/**
 * How long the simulated training step (WEIGHT_SYNCING after a batch) lasts. SwarmClient.agree_sync_weight() waits for
 * ROLLING_POST or WEIGHT_SYNCING by reading its cached status every ENGINE_STATUS_POLL_INTERVAL = 5 s (reference §2),
 * and that cache is up to 1 s old: a shorter step is never seen, the next step needs a new agreement, and the client
 * waits for ever. So at least poll period + cache age (the minimum below), and by default 2 s more. Shorter steps are
 * allowed (tests, jobs collecting by count only) and the card warns about them.
 */
export const DRY_RUN_MIN_TRAINING_STEP_MS = 6000;
export const DRY_RUN_TRAINING_STEP_MS = 8000;

export const DryRunConfig = z.object({
  /** null: 10086 when free, else the next free port (the view says which). */
  port: z.number().int().min(1024).max(65535).nullable().default(null),
  llm: z.object({
    baseUrl: z.string().trim().url('base URL must be a URL such as https://api.openai.com/v1').max(2048),
    model: z.string().trim().min(1, 'model is required').max(256),
    /** The LLM endpoint's key in the vault; null = `sessionKey` below (memory only, for this run). */
    secretId: SecretId.nullable().default(null),
  }),
  /** BOOTING time before the first ROLLING (a real server loads the model for minutes). */
  bootDelayMs: z.number().int().min(0).max(600_000).default(3000),
  /** The simulated training step after each batch: WEIGHT_SYNCING this long (see DRY_RUN_TRAINING_STEP_MS). */
  trainingStepMs: z.number().int().min(0).max(600_000).default(DRY_RUN_TRAINING_STEP_MS),
  spend: z
    .object({
      maxCallsPerEpisode: z.number().int().min(1).max(10_000).default(50),
      maxCalls: z.number().int().min(1).max(1_000_000).default(2000),
      maxTokens: z.number().int().min(1).max(1_000_000_000).default(2_000_000),
    })
    .default({ maxCallsPerEpisode: 50, maxCalls: 2000, maxTokens: 2_000_000 }),
});

export const DryRunStartRequest = z.object({
  config: DryRunConfig,
  /** A key typed for this run only (never written), used when `config.llm.secretId` is null. */
  sessionKey: z.string().min(1).max(16_384).optional(),
});

export const DryRunTrainSummary = z.object({
  experimentName: z.string().nullable(),
  batchSize: z.number().int().nullable(),
  numRepeat: z.number().int().nullable(),
  sampleCollectionMethod: z.string().nullable(),
  /** YAML keys the dry run does not use, kept and shown (they matter on the GPU server). */
  unknownKeys: z.array(z.string()),
});

export const DryRunSpend = z.object({
  calls: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  maxCalls: z.number().int(),
  maxTokens: z.number().int(),
  /** Why further LLM calls are refused ("2000 calls reached (max calls per dry run)"); null while within limits. */
  stoppedBy: z.string().nullable(),
});

export const DryRunView = z.object({
  state: z.enum(['stopped', 'starting', 'running', 'failed']),
  /** http://127.0.0.1:<port> while running (what AJET_SWARM_URL should be). */
  url: z.string().nullable(),
  port: z.number().int().nullable(),
  /** "port 10086 was taken, using 10087". */
  portNote: z.string().nullable(),
  /** The same as data: the port that was taken (and by whom, when known); the renderer words it. */
  portTaken: z.object({ port: z.number().int(), holder: z.string().nullable() }).nullable().optional(),
  config: DryRunConfig.nullable(),
  /** Where the LLM key comes from, without the key: "vault: OpenAI (llm)" or "typed for this run". */
  keySource: z.string().nullable(),
  /** The same as data, for the renderer to word: the vault secret's name, a key typed for this run, or none. */
  keyFrom: z.object({ kind: z.enum(['vault', 'typed', 'none']), name: z.string().nullable() }).nullable().optional(),
  engineStatus: z.string().nullable(),
  globalStep: z.number().int().nullable(),
  train: DryRunTrainSummary.nullable(),
  spend: DryRunSpend,
  /** Why the current batch cannot complete (wrong task grouping …); null when it can. */
  stall: z.string().nullable(),
  /**
   * Why the last /start_engine failed on the synced YAML as upstream's would (the engine then stays BOOTING until
   * stop_engine): upstream's error text, and the key it read with [...] and did not find. Null otherwise.
   */
  startRefusal: z.object({ error: z.string(), missingKey: z.enum(['ajet', 'defaults', 'interchange_server', 'hydra']).nullable() }).nullable(),
  error: z.string().nullable(),
});

/** One way the model's request differs from the agent's (model-view.ts). */
export const ModelChange = z.discriminatedUnion('kind', [
  /** The first message was not a system message: upstream put its default one first. */
  z.object({ kind: z.literal('system-inserted'), content: z.string() }),
  /** A train episode: the request's sampling fields (`ignored`) were dropped for the job's sampling. */
  z.object({ kind: z.literal('sampling-from-job'), ignored: z.array(z.string()), temperature: z.number() }),
]);
export type ModelChange = z.infer<typeof ModelChange>;

export const LlmCallTrace = z.object({
  callId: z.string(),
  episodeUuid: z.string(),
  route: z.enum(['chat', 'responses', 'messages']),
  at: z.string(),
  latencyMs: z.number().nonnegative().nullable(),
  stream: z.boolean(),
  /** HTTP status the agent got. */
  status: z.number().int(),
  /** The request as the agent sent it (messages, tools …) and the answer it got, redacted. */
  request: z.unknown(),
  /**
   * The request as the trained model receives it, upstream's rewrite applied (a default system message first, the
   * job's sampling for train episodes), redacted; null when the call never reached the model. `modelChanges` says
   * what differs (the renderer words it).
   */
  modelRequest: z.unknown(),
  modelChanges: z.array(ModelChange),
  response: z.unknown(),
  promptTokens: z.number().int().nullable(),
  completionTokens: z.number().int().nullable(),
  /** The streamed answer's usage (always sent, as upstream does) was estimated: the debug LLM counted none. */
  usageEstimated: z.boolean(),
  error: z.string().nullable(),
});

export const EpisodeTraceSummary = z.object({
  episodeUuid: z.string(),
  taskId: z.string().nullable(),
  step: z.number().int(),
  clientUuid: z.string().nullable(),
  state: z.enum(['registered', 'claimed', 'ended', 'aborted', 'reverted', 'discarded']),
  reward: z.number().nullable(),
  llmCalls: z.number().int().nonnegative(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  /** Why it ended the way it did ("discard_episode_timeout 60 s passed"); null when ended normally. */
  detail: z.string().nullable(),
  /**
   * A debug episode (the generated debug script marks its abort, DEBUG_EPISODE_MARK): given back by design, not
   * trained on; `reward` as the script reported it. Null or absent: not one (or from an older backend).
   */
  debug: z.object({ reward: z.number().nullable() }).nullable().optional(),
});

/**
 * The key the generated debug script sets to true in the workflow_output metadata of its /abort_episode (an abort
 * body carries a WorkflowOutput that upstream's server ignores), so the dry run's trace can tell a debug episode with
 * its reward from an episode a client gave up on.
 */
export const DEBUG_EPISODE_MARK = 'agentswarm_debug_episode';

export const EpisodeTrace = EpisodeTraceSummary.extend({
  metadata: z.unknown(),
  calls: z.array(LlmCallTrace),
});

export const TraceQuery = z.object({
  step: z.number().int().nullable().default(null),
  taskId: z.string().nullable().default(null),
  /** Newest first; paging by offset. */
  offset: z.number().int().nonnegative().default(0),
  limit: z.number().int().min(1).max(500).default(100),
});

export const TracePage = z.object({
  total: z.number().int().nonnegative(),
  episodes: z.array(EpisodeTraceSummary),
  /** Step walk with reasons ("batch complete: 8 episodes of 4 tasks × 2 (rollout_until_finish_enough_tasks)"). */
  steps: z.array(z.object({ step: z.number().int(), status: z.string(), at: z.string(), reason: z.string().nullable() })),
  taskIds: z.array(z.string()),
  /** Why the trace is incomplete ("Trace capped: the 12 oldest episodes … were dropped …"); null/absent when whole. */
  capped: z.string().nullable().optional(),
});

export const EpisodeRef = z.object({ episodeUuid: z.string().min(1).max(128) });
export const TraceExport = z.object({ path: z.string(), episodes: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() });

export type DryRunConfig = z.infer<typeof DryRunConfig>;
export type DryRunStartRequest = z.infer<typeof DryRunStartRequest>;
export type DryRunView = z.infer<typeof DryRunView>;
export type DryRunSpend = z.infer<typeof DryRunSpend>;
export type DryRunTrainSummary = z.infer<typeof DryRunTrainSummary>;
export type LlmCallTrace = z.infer<typeof LlmCallTrace>;
export type EpisodeTraceSummary = z.infer<typeof EpisodeTraceSummary>;
export type EpisodeTrace = z.infer<typeof EpisodeTrace>;
export type TraceQuery = z.infer<typeof TraceQuery>;
export type TracePage = z.infer<typeof TracePage>;
export type TraceExport = z.infer<typeof TraceExport>;
