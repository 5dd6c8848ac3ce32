import { z } from 'zod';
import {
  AppInfo,
  ContainerRef,
  Empty,
  EngineHealth,
  EngineRef,
  EngineSummary,
  LogOpened,
  LogTail,
  LogTailRequest,
  Settings,
  SettingsPatch,
  StoreStatus,
  SwarmContainer,
  SwarmStartRequest,
  SwarmStatus,
} from './schemas';
import {
  DiagnosticsReport,
  HostKeyDecision,
  PromptAnswer,
  ServerProfileInput,
  ServerRef,
  ServerUpdate,
  ServerView,
  SshConfigListing,
} from './schemas-servers';
import { ServerState, ServerStateRemoved } from './server-state';
import { AlertThresholds, FleetAlert, FleetHomeShown, FleetHomeState, GpuSample } from './schemas-fleet';
import {
  AppNotification,
  DoctorReport,
  LogAppended,
  LogExported,
  LogReadRequest,
  LogRef,
  LogWindow,
  ProfileCommand,
  ProfileInput,
  ProfileRef,
  ProfileStartRequest,
  ProfileUpdate,
  ProfileView,
  PullRef,
  PullRequest,
  PullView,
  ServerLogRequest,
  ServerLogTail,
  TrainingRef,
  TrainingSeries,
  TrainingView,
} from './schemas-profiles';
import {
  PasswordStoreChoice,
  SecretMeta,
  SecretRef,
  SecretSave,
  SecretTestResult,
  SettingsExport,
  SettingsImportRequest,
  SettingsImportResult,
  VaultSetup,
  VaultState,
  VaultUnlock,
} from './schemas-vault';
import { DryRunStartRequest, DryRunView, EpisodeRef, EpisodeTrace, TraceExport, TracePage, TraceQuery } from './schemas-dryrun';
import {
  JobLogAppended,
  JobLogRequest,
  JobLogWindow,
  JobRef,
  JobStartRequest,
  JobView,
  PythonDiscoverRequest,
  PythonDiscovery,
} from './schemas-jobs';
import {
  RunCard,
  RunCardExport,
  RunCardExported,
  RunCompareRequest,
  RunComparison,
  RunDetail,
  RunListRequest,
  RunRate,
  RunRef,
  RunsChanged,
  RunsLimits,
  RunsSettings,
  RunSummary,
} from './schemas-runs';
import { SlurmClearRequest, SlurmClearResult, SlurmJobView } from './schemas-slurm';
import { AppVisibility, PageVisibilityReport, TrainingInterest, TrainingInterestState } from './schemas-watch';
import {
  CodeGenerateRequest,
  CodePreview,
  ProjectSetup,
  SwarmChoice,
  TrainingForm,
  WizardEpisodeTest,
  WizardGoto,
  WizardStartSwarm,
  WizardLlm,
  WizardPython,
  WizardState,
  WizardTrain,
} from './schemas-wizard';
import { UpdateInstallAnswer, UpdateInstallRequest, UpdatesView } from './schemas-updates';
import {
  PoolAddRequest,
  PoolRef,
  PoolSplit,
  PoolStartRequest,
  PoolView,
  SplitRequest,
  WorkerLogAppended,
  WorkerLogRequest,
  WorkerLogWindow,
  WorkerRef,
  ClientVenvPlan,
  ClientVenvRequest,
  ClientVenvResult,
  SlurmPreviewAnswer,
  SlurmAddPreviewAnswer,
  SlurmAddPreviewRequest,
} from './schemas-workers';
import { EVENT_CHANNELS, INVOKE_CHANNELS, type EventChannel, type InvokeChannel } from './channels';

export * from './channels';

type ChannelSchemas = { request: z.ZodType; response: z.ZodType };

/**
 * The one contract between the UI and the backend. Every request channel names its request and
 * response schema; the Electron IPC wrapper and the browser host both validate against it, and
 * `test/unit/shared/contract.spec.ts` pins the derived types so a silent change breaks the build.
 */
export const invokeContract = {
  'app:info': { request: Empty, response: AppInfo },
  'app:log': { request: LogTailRequest, response: LogTail },
  'app:open-log': { request: Empty, response: LogOpened },
  /** A page reports whether it is shown (renewed while it is); pollers slow down while no page is. */
  'app:visibility': { request: PageVisibilityReport, response: AppVisibility },
  'engines:list': { request: Empty, response: z.array(EngineSummary) },
  'engines:health': { request: EngineRef, response: EngineHealth },
  'swarm:list': { request: EngineRef, response: z.array(SwarmContainer) },
  'swarm:start': { request: SwarmStartRequest, response: SwarmContainer },
  'swarm:stop': { request: ContainerRef, response: SwarmContainer },
  'swarm:remove': { request: ContainerRef, response: z.object({ removed: z.literal(true) }) },
  'swarm:statuses': { request: Empty, response: z.array(SwarmStatus) },
  /** One truth per server (issue 31): every swarm server's state; kept current by `fleet:state-changed`. */
  'fleet:states': { request: Empty, response: z.array(ServerState) },
  'settings:get': { request: Empty, response: Settings },
  'settings:update': { request: SettingsPatch, response: Settings },
  'settings:status': { request: Empty, response: StoreStatus },
  'servers:list': { request: Empty, response: z.array(ServerView) },
  'servers:add': { request: ServerProfileInput, response: ServerView },
  'servers:update': { request: ServerUpdate, response: ServerView },
  /** Disconnects, closes its tunnels and removes its engine; containers on the server keep running. */
  'servers:remove': { request: ServerRef, response: z.object({ removed: z.literal(true) }) },
  /** Resolves once the link is up (or rejects with the reason, e.g. SSH_HOST_KEY_UNKNOWN). */
  'servers:connect': { request: ServerRef, response: ServerView },
  'servers:disconnect': { request: ServerRef, response: ServerView },
  /** Staged diagnostics on a connection of its own: TCP → handshake → host key → auth → docker → GPUs. */
  'servers:test': { request: ServerRef, response: DiagnosticsReport },
  /** Adds the unknown key the user was shown to known_hosts (OpenSSH format). */
  'servers:trust-host-key': { request: HostKeyDecision, response: ServerView },
  /** The separate, explicit action for a changed key: replaces the old entry with the key shown. */
  'servers:replace-host-key': { request: HostKeyDecision, response: ServerView },
  'servers:answer-prompt': { request: PromptAnswer, response: z.object({ accepted: z.literal(true) }) },
  'servers:ssh-config': { request: Empty, response: SshConfigListing },
  'profiles:list': { request: Empty, response: z.array(ProfileView) },
  'profiles:add': { request: ProfileInput, response: ProfileView },
  'profiles:update': { request: ProfileUpdate, response: ProfileView },
  /** Removes the profile; refused (CONTAINER_CONFLICT) while its server runs. Its stopped container is removed too. */
  'profiles:remove': { request: ProfileRef, response: z.object({ removed: z.literal(true) }) },
  'profiles:command': { request: ProfileRef, response: ProfileCommand },
  /** Doctor first (DOCTOR_FAILED unless skipDoctor), then create + start; one container per profile. */
  'profiles:start': { request: ProfileStartRequest, response: ProfileView },
  /** Ends training for every client of that server (the UI warns first). */
  'profiles:stop': { request: ProfileRef, response: ProfileView },
  /** Stop, then start from the profile as it is now (a drifted container is replaced). */
  'profiles:restart': { request: ProfileStartRequest, response: ProfileView },
  'doctor:run': { request: ProfileRef, response: DoctorReport },
  /** The last report of every profile that has one (kept in memory for this run). */
  'doctor:reports': { request: Empty, response: z.array(DoctorReport) },
  /** Starts a pull and answers at once; progress comes as `images:pull-progress`. */
  'images:pull': { request: PullRequest, response: PullView },
  'images:cancel-pull': { request: PullRef, response: PullView },
  'images:pulls': { request: Empty, response: z.array(PullView) },
  'logs:read': { request: LogReadRequest, response: LogWindow },
  /** Writes the whole stored log to a file in the downloads folder and says where. */
  'logs:export': { request: LogRef, response: LogExported },
  'logs:server-log': { request: ServerLogRequest, response: ServerLogTail },
  /** Every stored log's line count (no lines): how a reconnected page catches up (replay). */
  'logs:heads': { request: Empty, response: z.array(LogAppended) },
  /** Null-free: a container the monitor has not polled yet gives a view with nulls. */
  'training:view': { request: TrainingRef, response: TrainingView },
  'training:series': { request: TrainingRef, response: TrainingSeries },
  /** The view of every server the training monitor polls now. */
  'training:views': { request: Empty, response: z.array(TrainingView) },
  /** A page shows (or stopped showing) a server's dashboard (renewed while it does): the pool route is asked only then. */
  'training:interest': { request: TrainingInterest, response: TrainingInterestState },
  // Every run kept (issue 33): one training run on one server, from the first synced job to its end.
  'runs:list': { request: RunListRequest, response: z.array(RunSummary) },
  'runs:get': { request: RunRef, response: RunDetail },
  'runs:delete': { request: RunRef, response: z.object({ removed: z.literal(true) }) },
  /** 2–5 runs whole, and the first one's YAML beside each other's. */
  'runs:compare': { request: RunCompareRequest, response: RunComparison },
  'runs:settings': { request: Empty, response: RunsSettings },
  /** A GPU-hour rate for one engine (null removes it): every run's cost on it follows. */
  'runs:set-rate': { request: RunRate, response: RunsSettings },
  /** How many runs and megabytes are kept (the oldest ended runs are dropped at once). */
  'runs:set-limits': { request: RunsLimits, response: RunsSettings },
  'runs:card': { request: RunRef, response: RunCard },
  /** A run card to a file in the downloads folder (redacted): HTML, or Markdown with a PNG beside it. */
  'runs:export-card': { request: RunCardExport, response: RunCardExported },
  // Credentials vault (issue 14). No channel returns a secret value.
  'vault:state': { request: Empty, response: VaultState },
  /** First set-up, or a move to another backend (re-wrap; nothing is lost). */
  'vault:setup': { request: VaultSetup, response: VaultState },
  /** VAULT_WRONG_PASSPHRASE on a wrong passphrase; nothing is changed or destroyed. */
  'vault:unlock': { request: VaultUnlock, response: VaultState },
  'vault:lock': { request: Empty, response: VaultState },
  /** Electron only: the `--password-store=` switch for the next launch (remembered in the shell's store). */
  'vault:password-store': { request: PasswordStoreChoice, response: VaultState },
  'secrets:list': { request: Empty, response: z.array(SecretMeta) },
  /** Create or replace; the value is write-only. VAULT_LOCKED / VAULT_NOT_SET_UP when it cannot be sealed. */
  'secrets:save': { request: SecretSave, response: SecretMeta },
  'secrets:delete': { request: SecretRef, response: z.object({ removed: z.literal(true) }) },
  /** LLM endpoints: GET {base}/models, or a 1-token chat completion where that route is missing. */
  'secrets:test': { request: SecretRef, response: SecretTestResult },
  /** Every non-secret setting to a JSON file in the downloads folder. */
  'settings:export': { request: Empty, response: SettingsExport },
  'settings:import': { request: SettingsImportRequest, response: SettingsImportResult },
  // Dry-run swarm on this computer (issue 15).
  'dryrun:view': { request: Empty, response: DryRunView },
  'dryrun:start': { request: DryRunStartRequest, response: DryRunView },
  'dryrun:stop': { request: Empty, response: DryRunView },
  'dryrun:traces': { request: TraceQuery, response: TracePage },
  'dryrun:trace': { request: EpisodeRef, response: EpisodeTrace },
  /** Every episode's trace as JSONL in the downloads folder. */
  'dryrun:export-traces': { request: Empty, response: TraceExport },
  // Job runner (issue 16): the user's Python scripts as child processes; secrets only as env.
  /** The project's .venv/venv, conda environments, python3 on PATH: version and whether `import ajet` works. */
  'jobs:python': { request: PythonDiscoverRequest, response: PythonDiscovery },
  /** Answers once the process runs (or failed to start: PYTHON_NOT_FOUND, AJET_NOT_INSTALLED, SWARM_UNREACHABLE…). */
  'jobs:start': { request: JobStartRequest, response: JobView },
  /** SIGINT, then SIGTERM, then SIGKILL to the whole process tree, with timeouts; answers once it ended. */
  'jobs:cancel': { request: JobRef, response: JobView },
  /** The same script, arguments and target again, as a new job. */
  'jobs:rerun': { request: JobRef, response: JobView },
  /** Every job in the history (newest first), old runs included. */
  'jobs:list': { request: Empty, response: z.array(JobView) },
  'jobs:get': { request: JobRef, response: JobView },
  'jobs:log': { request: JobLogRequest, response: JobLogWindow },
  /** Opens the run's log file in the system's viewer (LOG_UNAVAILABLE in the browser host). */
  'jobs:open-log': { request: JobRef, response: LogOpened },
  // Slurm login nodes (issue 18).
  /** The app's jobs on that Slurm login node's cluster (queued, running, recently ended), newest first; VALIDATION_FAILED for another engine. */
  'slurm:jobs': { request: EngineRef, response: z.array(SlurmJobView) },
  /** Removes the records (job folders) of ended jobs; CONTAINER_CONFLICT naming a job that is still queued or running. */
  'slurm:clear': { request: SlurmClearRequest, response: SlurmClearResult },
  // Guided wizard (issue 16): every step is completed by a fact the backend saw.
  'wizard:state': { request: Empty, response: WizardState },
  /** Revisit any step (later steps keep their facts; their `missing` says what they need). */
  'wizard:goto': { request: WizardGoto, response: WizardState },
  /** Start over: forgets the wizard's progress; files, secrets, profiles and jobs stay. */
  'wizard:reset': { request: Empty, response: WizardState },
  /** Step 0: the debug LLM endpoint (already saved in the vault) is tested with one call; done when it answers. */
  'wizard:set-llm': { request: WizardLlm, response: WizardState },
  /** Step 1: scaffold `tutorial/opencode_build_<id>/` from resources/templates, or adopt the user's files. */
  'wizard:set-project': { request: ProjectSetup, response: WizardState },
  'wizard:set-python': { request: WizardPython, response: WizardState },
  /** Runs the collector (a job); the step records count + first items when it ends. */
  'wizard:test-dataset': { request: Empty, response: JobView },
  /** Runs one item with the debug LLM (a job); the step is done when a reward came back. */
  'wizard:test-episode': { request: WizardEpisodeTest, response: JobView },
  /** Step 2: what would be written, with a diff against existing files. Nothing is written. */
  'wizard:preview-code': { request: TrainingForm, response: CodePreview },
  /** Writes both files (atomic; a changed file only when named in `overwrite`, else WIZARD_FILE_EXISTS), then py_compile. */
  'wizard:generate-code': { request: CodeGenerateRequest, response: WizardState },
  /** Step 3: where the swarm server runs. */
  'wizard:choose-swarm': { request: SwarmChoice, response: WizardState },
  /** Doctor, start, connect + tunnel (SSH), wait for /health; answers when ready (or with the failure). */
  'wizard:start-swarm': { request: WizardStartSwarm, response: WizardState },
  /** Step 4: the debug script against the chosen server (a job); done when a reward came back. */
  'wizard:run-debug': { request: Empty, response: JobView },
  /** Step 5: `agent_roll.py`; JOB_NEEDS_CONFIRMATION when it restarts the engine and that was not confirmed. */
  'wizard:train': { request: WizardTrain, response: JobView },
  'wizard:stop-train': { request: Empty, response: JobView },
  // Auto-update (issue 35): electron-updater in the packaged app; `unsupported` in the browser host and for .deb installs.
  'updates:state': { request: Empty, response: UpdatesView },
  /** Asks the feed; answers with the state after the check (available, not-available or error). */
  'updates:check': { request: Empty, response: UpdatesView },
  /** Starts the download of the available version and answers at once; progress comes as `updates:state-changed`. */
  'updates:download': { request: Empty, response: UpdatesView },
  /** Quits and installs a downloaded update; refuses (naming them) while jobs run unless confirmed. */
  'updates:install': { request: UpdateInstallRequest, response: UpdateInstallAnswer },
  // Rollout worker pools (issue 34): one run's agent_roll.py on N workers, here and on SSH hosts.
  /** Every pool the app knows (running ones first), found again after a restart. */
  'workers:list': { request: Empty, response: z.array(PoolView) },
  /** Each worker's share of the batch for N workers (shown before starting); VALIDATION_FAILED when N > batch. */
  'workers:split': { request: SplitRequest, response: PoolSplit },
  /** Starts N workers (local ones through the job runner, SSH ones copied and detached); answers once each is starting. */
  'workers:start': { request: PoolStartRequest, response: PoolView },
  /** Stops every worker of the pool on every host (by pid only); answers once none runs. */
  'workers:stop-all': { request: PoolRef, response: PoolView },
  /** Starts the failed workers again, each with its share. */
  'workers:restart-failed': { request: PoolRef, response: PoolView },
  /** More workers for a running pool: the split for the new count, the new workers with their shares. */
  'workers:add': { request: PoolAddRequest, response: PoolView },
  /** Stops one worker (the others go on). */
  'workers:stop': { request: WorkerRef, response: PoolView },
  'workers:log': { request: WorkerLogRequest, response: WorkerLogWindow },
  /** The Slurm job arrays a pool's Slurm workers would be submitted as (script and command), shown before submission; start with the answer's poolId. */
  'workers:slurm-preview': { request: PoolStartRequest, response: SlurmPreviewAnswer },
  /** Slurm workers for a running pool: the arrays `workers:add` would submit and the new split, shown first; add with the answer's `shown`. */
  'workers:slurm-add-preview': { request: SlurmAddPreviewRequest, response: SlurmAddPreviewAnswer },
  /** The exact command that makes a venv with AgentJet's client on an SSH host (shown before it runs). */
  'workers:client-venv-plan': { request: ClientVenvRequest, response: ClientVenvPlan },
  /** Runs that command on the host; answers with the venv's python and the output's tail (JOB_CRASHED with it when it failed). */
  'workers:client-venv-create': { request: ClientVenvRequest, response: ClientVenvResult },
  /** Fleet home (issue 33): the newest GPU sample of every host the app holds a server on. */
  'gpus:samples': { request: Empty, response: z.array(GpuSample) },
  /** A page shows (or stopped showing) the fleet home: GPUs are sampled every 10 s then, else every 60 s. */
  'gpus:home-shown': { request: FleetHomeShown, response: FleetHomeState },
  /** The fleet's alerts: open, acknowledged, and the last resolved ones; kept current by `alerts:changed`. */
  'alerts:list': { request: Empty, response: z.array(FleetAlert) },
  'alerts:acknowledge': { request: z.object({ id: z.string().min(1).max(200) }), response: FleetAlert },
  'alerts:thresholds': { request: Empty, response: AlertThresholds },
  /** Changes some thresholds (kept in fleet-alerts.json); answers all of them. */
  'alerts:set-thresholds': { request: AlertThresholds.partial(), response: AlertThresholds },
} as const satisfies Record<InvokeChannel, ChannelSchemas>;

/** Push events from the backend. Payload-free "changed" events tell the UI to refetch a list. */
export const eventContract = {
  'swarm:status': SwarmStatus,
  'swarm:containers-changed': z.object({ engineId: z.string() }),
  /** One server's new state snapshot (only when it says something new). */
  'fleet:state-changed': ServerState,
  /** A server is gone (removed, or its engine was). */
  'fleet:state-removed': ServerStateRemoved,
  'settings:changed': Settings,
  /** A snapshot of what happened to settings.json (read, moved aside, not writable), after each change. */
  'settings:status-changed': StoreStatus,
  /** A snapshot of every server (state, prompt, tunnels), after each change. */
  'servers:changed': z.array(ServerView),
  /** The engine list changed (a server added or removed): refetch `engines:list`. */
  'engines:changed': z.object({}),
  /** A snapshot of every profile with its runtime, after each change. */
  'profiles:changed': z.array(ProfileView),
  'doctor:report': DoctorReport,
  'images:pull-progress': PullView,
  'logs:appended': LogAppended,
  'training:changed': TrainingView,
  /** Invalidation: runs were added, changed or deleted; read `runs:list` again (throttled). */
  'runs:changed': RunsChanged,
  /** Only the browser host sends it (Electron shows notifications itself): show it with the Notifications API. */
  'app:notification': AppNotification,
  'vault:changed': VaultState,
  /** A snapshot of every secret's metadata, after each change. */
  'secrets:changed': z.array(SecretMeta),
  'dryrun:changed': DryRunView,
  /** Invalidation: episodes or steps were added or changed; refetch `dryrun:traces` (throttled). */
  'dryrun:traces-changed': z.object({ total: z.number().int().nonnegative() }),
  /** A snapshot of one job after each state change (not per log line). */
  'jobs:changed': JobView,
  /** Invalidation, batched: a job has new log lines; read them with `jobs:log` from the last total. */
  'jobs:log-appended': JobLogAppended,
  'wizard:changed': WizardState,
  'updates:state-changed': UpdatesView,
  /** A snapshot of one pool after each change of a worker (state, episodes, rate). */
  'workers:changed': PoolView,
  /** Invalidation, batched: a worker has new log lines; read them with `workers:log`. */
  'workers:log-appended': WorkerLogAppended,
  /** A new GPU sample of one host (or Slurm job). */
  'gpus:sampled': GpuSample,
  /** A snapshot of the fleet's alerts after each change. */
  'alerts:changed': z.array(FleetAlert),
  /** All the alert thresholds after a save, so a second window's form shows them too. */
  'alerts:thresholds-changed': AlertThresholds,
} as const satisfies Record<EventChannel, z.ZodType>;

/** What a caller may send (defaults still optional). */
export type InvokeInput<C extends InvokeChannel> = z.input<(typeof invokeContract)[C]['request']>;
/** What a handler receives after validation (defaults filled in). */
export type InvokeRequest<C extends InvokeChannel> = z.infer<(typeof invokeContract)[C]['request']>;
export type InvokeResponse<C extends InvokeChannel> = z.infer<(typeof invokeContract)[C]['response']>;
export type EventPayload<E extends EventChannel> = z.infer<(typeof eventContract)[E]>;

export const invokeChannels: readonly InvokeChannel[] = INVOKE_CHANNELS;
export const eventChannels: readonly EventChannel[] = EVENT_CHANNELS;
