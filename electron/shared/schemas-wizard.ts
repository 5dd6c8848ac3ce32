import { z } from 'zod';
import { ProfileId } from './schemas-profiles';
import { SecretId } from './schemas-vault';
import { JobId, LocalPath } from './schemas-jobs';

/**
 * The guided wizard (issue 16): a step machine kept in the backend (`<data>/wizard.json`, a JsonStore)
 * so a restart resumes where the user was. A step is done because a real check passed (the LLM
 * answered, a script ran, a reward came back), never because "Next" was clicked. Steps may be
 * revisited; a step whose prerequisite changed after it was done becomes `stale`.
 */
export const WIZARD_STEPS = ['llm', 'project', 'code', 'swarm', 'debug', 'train'] as const;
export const WizardStepId = z.enum(WIZARD_STEPS);

/** What each step needs done first (the UI shows "needs: …" on a later step). */
export const WIZARD_STEP_DEPENDS: Readonly<Record<(typeof WIZARD_STEPS)[number], readonly (typeof WIZARD_STEPS)[number][]>> = {
  llm: [],
  project: ['llm'],
  code: ['project'],
  swarm: ['llm'],
  debug: ['code', 'swarm'],
  train: ['debug'],
};

/** A swarm choice as a step summary names it: the dry run, or a profile by its label (`removed`: it was deleted since). */
export const SwarmChoiceName = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('dry-run') }),
  z.object({ kind: z.literal('profile'), label: z.string(), removed: z.boolean() }),
]);

/**
 * The fact that completed a step as data (issue 32: the renderer words it in the user's language).
 * One shape per step: what the LLM answered, the project's tests, the files compiled, where /health
 * answered, the debug episode's reward, the training job.
 */
export const WizardStepSummary = z.discriminatedUnion('step', [
  z.object({ step: z.literal('llm'), model: z.string(), latencyMs: z.number().int().nullable() }),
  z.object({ step: z.literal('project'), items: z.number().int(), reward: z.number(), durationMs: z.number().int() }),
  z.object({ step: z.literal('code'), files: z.array(z.string()) }),
  z.object({ step: z.literal('swarm'), server: SwarmChoiceName, url: z.string() }),
  z.object({ step: z.literal('debug'), server: SwarmChoiceName, reward: z.number() }),
  z.object({ step: z.literal('train'), jobId: z.string() }),
]);

export const WizardStepView = z.object({
  id: WizardStepId,
  /** `stale`: was done, then something it depends on changed (e.g. the scripts were generated again). */
  status: z.enum(['todo', 'done', 'stale']),
  /** The fact that completed it, in one English line ("reward 0.8 in 2.1 s", "12 items") for logs and tests; null while todo. */
  fact: z.string().nullable(),
  /** The same fact as data, worded by the renderer (optional: added after the contract commit); null while todo. */
  summary: WizardStepSummary.nullable().optional(),
  doneAt: z.string().nullable(),
  dependsOn: z.array(WizardStepId),
  /** Prerequisites not done yet (empty: the step can be worked on). */
  missing: z.array(WizardStepId),
});

export const RewardStyle = z.enum([
  /** The agent reports its own score (a test pass rate, a game score): that is the reward. */
  'native',
  /** No score of its own: a rubric prompt sent to the debug LLM grades the answer (LLM-as-judge). */
  'judge',
]);

/** A build id: the `<id>` of `tutorial/opencode_build_<id>/`. */
export const BuildId = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[A-Za-z0-9_]+$/, 'build id is letters, digits and _ (it becomes a folder name)');

export const ProjectSetup = z.discriminatedUnion('mode', [
  z.object({
    mode: z.literal('scaffold'),
    projectDir: LocalPath,
    /** null: a new random id. */
    buildId: BuildId.nullable().default(null),
    rewardStyle: RewardStyle.default('native'),
    /** The command that runs the user's agent (the episode template calls it as a subprocess); may be empty. */
    agentCommand: z.string().max(2000).default(''),
    /** The user saw which files of the build folder changed since the wizard wrote them and chose to write over them. */
    overwrite: z.boolean().optional(),
  }),
  z.object({
    mode: z.literal('adopt'),
    projectDir: LocalPath,
    /** The user's existing collector and episode runner (absolute, inside the project). */
    collectorFile: LocalPath,
    episodeFile: LocalPath,
  }),
]);

export const ProjectView = z.object({
  mode: z.enum(['scaffold', 'adopt']),
  projectDir: z.string(),
  buildId: z.string().nullable(),
  /** Where the generated files go: `<project>/tutorial/opencode_build_<id>/` (adopt: the episode file's folder). */
  buildDir: z.string(),
  collectorFile: z.string(),
  episodeFile: z.string(),
  rewardStyle: RewardStyle.nullable(),
  /**
   * The scaffolded files as the wizard last wrote them (path, sha256): creating the scripts again
   * rewrites in place a file still as written, and asks before one the user changed.
   */
  written: z.array(z.object({ path: z.string(), sha256: z.string() })).optional(),
  /** The interpreter every run of this project uses (from `jobs:python`); null until chosen. */
  python: z.string().nullable(),
  dataset: z
    .object({ jobId: JobId, count: z.number().int(), first: z.array(z.unknown()), at: z.string() })
    .nullable(),
  episode: z
    .object({ jobId: JobId, itemId: z.string(), reward: z.number(), durationMs: z.number().int(), at: z.string() })
    .nullable(),
});

export const TRAINING_ALGORITHMS = ['grpo', 'rloo', 'reinforce_plus_plus', 'remax'] as const;
/**
 * AgentJetJob's swarm_mode_sample_collection_method (reference §5.1): when the server has collected enough for a
 * training step. The two *_agree_sync_weight ones wait for the clients' agreement: the generated agent_roll.py then
 * calls agree_sync_weight() after each of its batches.
 */
export const SAMPLE_COLLECTION_METHODS = [
  'rollout_until_finish_enough_tasks',
  'rollout_until_finish_enough_episodes',
  'rollout_until_finish_enough_non_dummy_tasks',
  'rollout_until_any_client_agree_sync_weight',
  'rollout_until_all_clients_agree_sync_weight',
] as const;

/** The training form → `agent_roll.py` constants and the AgentJetJob arguments (reference §5.1). */
export const TrainingForm = z
  .object({
    experimentName: z.string().trim().min(1, 'experiment name is required').max(120).regex(/^[A-Za-z0-9_.-]+$/, 'experiment name is letters, digits, _ . -'),
    algorithm: z.enum(TRAINING_ALGORITHMS).default('grpo'),
    /** GRPO group size: each task is run this many times (num_repeat). */
    grpoN: z.number().int().min(1).max(64).default(4),
    epochs: z.number().int().min(1).max(100_000).default(10_000),
    batchSize: z.number().int().min(1).max(4096).default(32),
    gpusPerNode: z.number().int().min(1).max(64).default(8),
    /**
     * The model path INSIDE the server's container (the profile's model mount), e.g. /models/Qwen2.5-7B.
     * Empty (issue 32: a first run has no profile yet): the debug episode and training pass the model
     * folder the chosen profile mounts, read when they start; the dry run trains nothing and needs none.
     */
    modelPath: z.string().trim().max(1024),
    discardEpisodeTimeout: z.number().int().min(10).max(86_400).default(240),
    sampleCollectionMethod: z.enum(SAMPLE_COLLECTION_METHODS).default('rollout_until_finish_enough_tasks'),
    lora: z
      .object({
        rank: z.number().int().min(0).max(1024).default(0),
        alpha: z.number().int().min(1).max(4096).default(16),
        targetModules: z.string().trim().min(1).max(200).default('all-linear'),
        loadFormat: z.enum(['auto', 'safetensors']).default('auto'),
        layeredSummon: z.boolean().default(false),
        /** Required above 1e-5 with LoRA; null keeps AgentJet's default (1e-6, full fine-tuning). */
        lr: z.number().positive().max(1).nullable().default(null),
      })
      .default({ rank: 0, alpha: 16, targetModules: 'all-linear', loadFormat: 'auto', layeredSummon: false, lr: null }),
    /** The template's `force_restart=True`: stops the engine first (ends training for every client). */
    forceRestart: z.boolean().default(false),
  })
  .superRefine((form, ctx) => {
    // AgentJetJob's own validation (reference §5.1): a LoRA rank alone raises on the server.
    if (form.lora.rank > 0) {
      if (form.lora.loadFormat !== 'safetensors') {
        ctx.addIssue({ code: 'custom', path: ['lora', 'loadFormat'], message: 'LoRA (rank > 0) needs load format "safetensors"' });
      }
      if (!form.lora.layeredSummon) {
        ctx.addIssue({ code: 'custom', path: ['lora', 'layeredSummon'], message: 'LoRA (rank > 0) needs layered summon on' });
      }
      if (form.lora.lr === null || form.lora.lr <= 1e-5) {
        ctx.addIssue({ code: 'custom', path: ['lora', 'lr'], message: 'LoRA (rank > 0) needs a learning rate above 1e-5, e.g. 3e-5' });
      }
    }
  });

export const GeneratedFileName = z.enum(['agent_roll.py', 'agent_roll_one_episode_debug.py']);

export const CodeFilePreview = z.object({
  name: GeneratedFileName,
  path: z.string(),
  exists: z.boolean(),
  /** The file exists and differs from what would be written: overwriting needs the user's confirmation. */
  changed: z.boolean(),
  /** Unified diff against the existing file ('' when new or equal). */
  diff: z.string(),
  content: z.string(),
});

export const CodePreview = z.object({ files: z.array(CodeFilePreview) });

export const CodeGenerateRequest = z.object({
  form: TrainingForm,
  /** Files (by name) the user saw the diff of and agreed to overwrite. */
  overwrite: z.array(GeneratedFileName).default([]),
});

export const CodeView = z.object({
  form: TrainingForm,
  files: z.array(z.object({ name: GeneratedFileName, path: z.string(), sha256: z.string() })),
  /** `python -m py_compile` passed on both files. */
  compiledAt: z.string(),
});

export const SwarmChoice = z.discriminatedUnion('kind', [
  /** This computer, nothing trained (issue 15): the default for a first debug. */
  z.object({ kind: z.literal('dry-run') }),
  /** A swarm profile on local Docker or an SSH server (issue 13). */
  z.object({ kind: z.literal('profile'), profileId: ProfileId }),
]);

export const SwarmPhase = z.enum(['idle', 'doctor', 'starting', 'connecting', 'tunnel', 'health', 'ready', 'failed']);

/**
 * What the start is doing or why it failed, as data for the renderer's words (`wizard.run.say.<key>`
 * with `params`; `failed` carries the error's code).
 */
export const SwarmProgressSay = z.object({
  key: z.enum(['starting', 'dryRunStarting', 'dryRunRestarting', 'connecting', 'doctor', 'tunnel', 'watching', 'health', 'slurmQueued', 'appStopped', 'dryRunEnded', 'failed']),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});

export const WizardSwarmView = z.object({
  choice: SwarmChoice,
  phase: SwarmPhase,
  /** What the phase is doing or why it failed, in one English line (logs, tests). */
  detail: z.string().nullable(),
  /** The same as data, worded by the renderer (optional: added after the contract commit). */
  say: SwarmProgressSay.nullable().optional(),
  engineId: z.string().nullable(),
  containerId: z.string().nullable(),
  /** The local URL (the tunnel's for SSH) once `/health` answered. */
  url: z.string().nullable(),
});

export const DebugView = z.object({
  jobId: JobId,
  choice: SwarmChoice,
  reward: z.number().nullable(),
  passed: z.boolean(),
  at: z.string(),
});

/**
 * What the training form starts with before any code was generated (additive, wizard backend): the
 * model path inside the container comes from the chosen (or only) profile's model mount.
 */
export const TrainingFormSuggestion = z.object({
  experimentName: z.string(),
  modelPath: z.string().nullable(),
  /** Where `modelPath` came from ("profile Qwen 7B: its model mount"), in English; null when nothing suggested one. */
  modelPathSource: z.string().nullable(),
  /** The label of the profile whose model mount `modelPath` is, for the renderer to word (optional: added later). */
  modelPathProfile: z.string().nullable().optional(),
});

export const WizardState = z.object({
  current: WizardStepId,
  steps: z.array(WizardStepView),
  llm: z
    .object({
      secretId: SecretId,
      baseUrl: z.string(),
      model: z.string(),
      test: z.object({ ok: z.boolean(), latencyMs: z.number().int().nullable(), message: z.string(), at: z.string() }).nullable(),
    })
    .nullable(),
  project: ProjectView.nullable(),
  code: CodeView.nullable(),
  swarm: WizardSwarmView.nullable(),
  /** The last debug episode (per choice, the newest). */
  debug: DebugView.nullable(),
  /** The training run (running or last). */
  trainJobId: JobId.nullable(),
  /** Jobs the wizard started that still run (a test, the debug episode, training). */
  runningJobIds: z.array(JobId),
  /** The profile the wizard's swarm choice named was removed (its label as last seen): the steps that used it are out of date. */
  goneProfile: z.object({ id: z.string(), label: z.string() }).nullable().optional(),
  /** Pre-fill for the training form while `code` is null (optional: added after the contract commit). */
  suggestedForm: TrainingFormSuggestion.nullable().optional(),
});

export const WizardGoto = z.object({ step: WizardStepId });
/** `restartDryRun`: a dry run already running with another LLM is stopped and started with the wizard's (the user pressed "Restart"). */
export const WizardStartSwarm = z.object({ restartDryRun: z.boolean().default(false) }).strict().default({ restartDryRun: false });
export const WizardLlm = z.object({ secretId: SecretId });
export const WizardPython = z.object({ python: LocalPath });
export const WizardEpisodeTest = z.object({ itemId: z.string().trim().min(1, 'choose an item id from the dataset test').max(4096) });
export const WizardTrain = z.object({
  /** The user saw "this stops the engine for every client" (force_restart / stop_engine) and agreed. */
  confirmEngineRestart: z.boolean().default(false),
});

export type WizardStepName = z.infer<typeof WizardStepId>;
export type WizardStateData = z.infer<typeof WizardState>;
export type TrainingFormData = z.infer<typeof TrainingForm>;
export type TrainingFormInput = z.input<typeof TrainingForm>;
export type ProjectSetupData = z.infer<typeof ProjectSetup>;
export type SwarmChoiceData = z.infer<typeof SwarmChoice>;
export type TrainingFormSuggestionData = z.infer<typeof TrainingFormSuggestion>;
export type WizardStepSummaryData = z.infer<typeof WizardStepSummary>;
export type SwarmChoiceNameData = z.infer<typeof SwarmChoiceName>;
