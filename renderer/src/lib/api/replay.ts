import type {
  EventChannel,
  EventPayload,
  InvokeChannel,
  InvokeResponse,
} from '../../../../electron/shared/contract';

/** One push event as it travels over the socket: `{ channel, payload }`. */
export type BridgeMessage = { [E in EventChannel]: { channel: E; payload: EventPayload<E> } }[EventChannel];

/** Fetch `request` (no arguments) and turn its answer into the events a live view would have seen. */
export interface ReplayRow {
  readonly request: InvokeChannel;
  readonly toEvents: (value: unknown) => BridgeMessage[];
}

function row<C extends InvokeChannel>(request: C, toEvents: (value: InvokeResponse<C>) => BridgeMessage[]): ReplayRow {
  return { request, toEvents: toEvents as (value: unknown) => BridgeMessage[] };
}

/**
 * What the browser client replays on every (re)open of its event socket, so every view catches up
 * through the event paths it already listens on. A feature whose view listens for a snapshot or
 * invalidation event adds ONE row here; the client itself does not change.
 */
export const replayTable: readonly ReplayRow[] = [
  row('swarm:statuses', (statuses) => statuses.map((payload) => ({ channel: 'swarm:status', payload }))),
  // Issue 31: every server's one state.
  row('fleet:states', (states) => states.map((payload): BridgeMessage => ({ channel: 'fleet:state-changed', payload }))),
  row('engines:list', (engines) => [
    // Servers added or removed while the socket was down: the engine list itself is refetched.
    { channel: 'engines:changed', payload: {} },
    ...engines.map((engine): BridgeMessage => ({ channel: 'swarm:containers-changed', payload: { engineId: engine.id } })),
  ]),
  row('settings:get', (settings) => [{ channel: 'settings:changed', payload: settings }]),
  // A settings file that could not be read at start: a reloaded page must still show the notice.
  row('settings:status', (status) => [{ channel: 'settings:status-changed', payload: status }]),
  // Connection states, host-key questions and secret prompts of SSH servers.
  row('servers:list', (servers) => [{ channel: 'servers:changed', payload: servers }]),
  // Issue 13: profiles with their runtime, doctor reports, pulls, stored logs' heads, training views.
  row('profiles:list', (profiles) => [{ channel: 'profiles:changed', payload: profiles }]),
  row('doctor:reports', (reports) => reports.map((payload): BridgeMessage => ({ channel: 'doctor:report', payload }))),
  row('images:pulls', (pulls) => pulls.map((payload): BridgeMessage => ({ channel: 'images:pull-progress', payload }))),
  row('logs:heads', (heads) => heads.map((payload): BridgeMessage => ({ channel: 'logs:appended', payload }))),
  row('training:views', (views) => views.map((payload): BridgeMessage => ({ channel: 'training:changed', payload }))),
  // Issue 33: kept runs (invalidation: the Runs page reads its list again).
  row('runs:list', () => [{ channel: 'runs:changed', payload: { runIds: [] } }]),
  // Issue 14: the vault's state (locked after a backend restart) and the secrets' metadata.
  row('vault:state', (payload) => [{ channel: 'vault:changed', payload }]),
  row('secrets:list', (payload) => [{ channel: 'secrets:changed', payload }]),
  // Issue 15: the dry run's view and its trace list (invalidation).
  row('dryrun:view', (payload) => [{ channel: 'dryrun:changed', payload }]),
  row('dryrun:traces', (page) => [{ channel: 'dryrun:traces-changed', payload: { total: page.total } }]),
  // Issue 16: every job's snapshot with its log head, and the wizard's state.
  row('jobs:list', (jobs) =>
    jobs.flatMap((job): BridgeMessage[] => [
      { channel: 'jobs:changed', payload: job },
      { channel: 'jobs:log-appended', payload: { jobId: job.id, total: job.logLines } },
    ]),
  ),
  row('wizard:state', (payload) => [{ channel: 'wizard:changed', payload }]),
  // Issue 35: the updater's state (a download may have finished while the socket was down).
  row('updates:state', (payload) => [{ channel: 'updates:state-changed', payload }]),
  // Issue 34: every worker pool with each worker's log head.
  row('workers:list', (pools) =>
    pools.flatMap((pool): BridgeMessage[] => [
      { channel: 'workers:changed', payload: pool },
      ...pool.workers.map((w): BridgeMessage => ({ channel: 'workers:log-appended', payload: { poolId: pool.poolId, index: w.index, total: w.logLines } })),
    ]),
  ),
  // Issue 33: the fleet home's GPU samples.
  row('gpus:samples', (samples) => samples.map((payload): BridgeMessage => ({ channel: 'gpus:sampled', payload }))),
  row('alerts:list', (payload) => [{ channel: 'alerts:changed', payload }]),
  // The thresholds form of another window may have saved while the socket was down.
  row('alerts:thresholds', (payload) => [{ channel: 'alerts:thresholds-changed', payload }]),
];

/**
 * Replayed events that carry nothing but "read again". On the first open of a page whose calls all
 * waited for that open (shared-reads.ts) they are left out: every read already went out after it.
 */
export const readAgainEvents: ReadonlySet<EventChannel> = new Set<EventChannel>(['engines:changed', 'swarm:containers-changed', 'dryrun:traces-changed', 'runs:changed']);

/**
 * Events that are never replayed: a desktop notification belongs to its moment (shown again after
 * a reconnect it would announce old news as new); a removal is an absence, which the next full
 * `fleet:states` load tells.
 */
export const notReplayed: readonly EventChannel[] = ['app:notification', 'fleet:state-removed'];
