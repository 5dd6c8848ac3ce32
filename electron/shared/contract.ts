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
  'engines:list': { request: Empty, response: z.array(EngineSummary) },
  'engines:health': { request: EngineRef, response: EngineHealth },
  'swarm:list': { request: EngineRef, response: z.array(SwarmContainer) },
  'swarm:start': { request: SwarmStartRequest, response: SwarmContainer },
  'swarm:stop': { request: ContainerRef, response: SwarmContainer },
  'swarm:remove': { request: ContainerRef, response: z.object({ removed: z.literal(true) }) },
  'swarm:statuses': { request: Empty, response: z.array(SwarmStatus) },
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
} as const satisfies Record<InvokeChannel, ChannelSchemas>;

/** Push events from the backend. Payload-free "changed" events tell the UI to refetch a list. */
export const eventContract = {
  'swarm:status': SwarmStatus,
  'swarm:containers-changed': z.object({ engineId: z.string() }),
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
  /** Only the browser host sends it (Electron shows notifications itself): show it with the Notifications API. */
  'app:notification': AppNotification,
  'vault:changed': VaultState,
  /** A snapshot of every secret's metadata, after each change. */
  'secrets:changed': z.array(SecretMeta),
  'dryrun:changed': DryRunView,
  /** Invalidation: episodes or steps were added or changed; refetch `dryrun:traces` (throttled). */
  'dryrun:traces-changed': z.object({ total: z.number().int().nonnegative() }),
} as const satisfies Record<EventChannel, z.ZodType>;

/** What a caller may send (defaults still optional). */
export type InvokeInput<C extends InvokeChannel> = z.input<(typeof invokeContract)[C]['request']>;
/** What a handler receives after validation (defaults filled in). */
export type InvokeRequest<C extends InvokeChannel> = z.infer<(typeof invokeContract)[C]['request']>;
export type InvokeResponse<C extends InvokeChannel> = z.infer<(typeof invokeContract)[C]['response']>;
export type EventPayload<E extends EventChannel> = z.infer<(typeof eventContract)[E]>;

export const invokeChannels: readonly InvokeChannel[] = INVOKE_CHANNELS;
export const eventChannels: readonly EventChannel[] = EVENT_CHANNELS;
