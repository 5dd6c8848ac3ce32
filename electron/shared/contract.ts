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
} as const satisfies Record<EventChannel, z.ZodType>;

/** What a caller may send (defaults still optional). */
export type InvokeInput<C extends InvokeChannel> = z.input<(typeof invokeContract)[C]['request']>;
/** What a handler receives after validation (defaults filled in). */
export type InvokeRequest<C extends InvokeChannel> = z.infer<(typeof invokeContract)[C]['request']>;
export type InvokeResponse<C extends InvokeChannel> = z.infer<(typeof invokeContract)[C]['response']>;
export type EventPayload<E extends EventChannel> = z.infer<(typeof eventContract)[E]>;

export const invokeChannels: readonly InvokeChannel[] = INVOKE_CHANNELS;
export const eventChannels: readonly EventChannel[] = EVENT_CHANNELS;
