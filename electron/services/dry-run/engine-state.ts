/**
 * The swarm server's state, as upstream keeps it in its shared_mem_dict (swarm_server.py, c68c154), and the
 * operations its routes, janitor and trainer perform on it (reference §1.2, §1.5, appendix points 7, 8, 10, 16).
 * Routes and the trainer only go through these methods, so every side effect of a status change lives here.
 */
import type { EpisodeEventKind, TraceSink } from './relay-contract';
import { defaultPool, type PoolInformation, type ThrottlePolicy, type WorkflowOutputBody } from './swarm-models';
import { pySeconds1, unixSeconds } from './py-format';

export const STATUS = Object.freeze({
  OFFLINE: 'ENGINE.OFFLINE',
  BOOTING: 'ENGINE.BOOTING',
  ROLLING: 'ENGINE.ROLLING',
  ROLLING_POST: 'ENGINE.ROLLING_POST',
  WEIGHT_SYNCING: 'ENGINE.WEIGHT_SYNCING',
  WEIGHT_EXPORTING: 'ENGINE.WEIGHT_EXPORTING',
});
export const VALID_STATUSES: readonly string[] = Object.values(STATUS);
const ROLLING_LIKE = new Set<string>([STATUS.ROLLING, STATUS.ROLLING_POST]);
const VERBOSE_LOG_TTL_S = 30;
const VERBOSE_LOG_MAX = 50;

/** EpisodeStatus with upstream's field names: /get_episode_buffer answers these records as they are. */
export interface EpisodeRecord {
  episode_uuid: string;
  episode_status: 'registered' | 'claimed';
  episode_type: string;
  openai_base_url: string;
  openai_api_key: string;
  client_uuid: string;
  zmq_listen_result_addr: string;
  latest_activity_timestamp: number;
  discard_episode_timeout: number;
  llm_call_count: number;
  debug_log: string[];
  optional_task_id: string;
}

export interface ActiveClient {
  client_uuid: string;
  last_activity_at: number;
  allowed_sync_weight: boolean;
}

export type StateEvent =
  | { type: 'status'; previous: string; next: string }
  | { type: 'episode-finished'; episode: EpisodeRecord; output: WorkflowOutputBody; taskId: string }
  | { type: 'agree'; clientUuid: string }
  | { type: 'changed' };

export interface SwarmStateOptions {
  clientActiveTimeoutS: number;
  trace?: TraceSink;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
}

/** A reward as one number for the trace: a list of rewards is averaged, as upstream's runner does per episode. */
/** What an episode's trace event adds to its record: why, the reward and metadata, a task id, a debug episode's reward. */
export interface TraceExtra {
  detail?: string;
  reward?: number | null;
  metadata?: unknown;
  taskId?: string;
  debugReward?: number | null;
}

export function scalarReward(reward: number | number[] | null | undefined): number | null {
  if (reward === null || reward === undefined) return null;
  if (!Array.isArray(reward)) return reward;
  return reward.length === 0 ? null : reward.reduce((sum, r) => sum + r, 0) / reward.length;
}

export class SwarmState {
  status: string = STATUS.OFFLINE;
  engineStatusDetail: string | null = null;
  globalStep: number | null = null;
  bootingStartTime: number | null = null;
  trainingModelPath: string | null = null;
  serverExperimentDir: string | null = null;
  /** The last synced job YAML; undefined until /sync_train_config. */
  trainConfigYaml: string | undefined;
  readonly episodes = new Map<string, EpisodeRecord>();
  /** Finished train episodes until the engine leaves ROLLING/ROLLING_POST (completed_tasks_client_uuids reads them). */
  readonly finished = new Map<string, EpisodeRecord>();
  /** FIFO of registered, unclaimed episode ids (upstream appends without a duplicate check). */
  unclaimed: string[] = [];
  activeClients: ActiveClient[] = [];
  /** The trainer's last push; the GET fills the live fields into this very object (appendix point 16). */
  pool: PoolInformation = defaultPool();
  latestLlmCall: { input: unknown; output: unknown; format?: string } | null = null;
  private verboseLogs: Array<{ timestamp: number; tag: string; message: string }> = [];
  private readonly listeners = new Set<(event: StateEvent) => void>();

  constructor(private readonly options: SwarmStateOptions) {}

  on(listener: (event: StateEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: StateEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  isRolling(): boolean {
    return ROLLING_LIKE.has(this.status);
  }

  get step(): number {
    return this.globalStep ?? 0;
  }

  /** Writes the status as start_engine and stop_engine do: none of update_engine_status's side effects. */
  writeStatus(next: string, reason?: string): void {
    const previous = this.status;
    this.status = next;
    this.options.trace?.step({ step: this.step, status: next, at: Date.now(), ...(reason ? { reason } : {}) });
    this.emit({ type: 'status', previous, next });
  }

  /** /update_engine_status with its side effects (§1.5); false for a status outside VALID_STATUSES. */
  updateStatus(next: string, change: { globalStep?: number | null; detail?: string | null; reason?: string } = {}): boolean {
    if (!VALID_STATUSES.includes(next)) return false;
    const previous = this.status;
    this.status = next;
    if (ROLLING_LIKE.has(previous) && !ROLLING_LIKE.has(next)) this.cleanUpEpisodes(`engine left ${previous} for ${next}`);
    if (previous === STATUS.BOOTING && next !== STATUS.BOOTING) this.bootingStartTime = null;
    // null never clears: upstream only writes the fields it was given.
    if (change.globalStep !== undefined && change.globalStep !== null) this.globalStep = change.globalStep;
    if (change.detail !== undefined && change.detail !== null) this.engineStatusDetail = change.detail;
    this.options.log('info', `[update_engine_status] Engine status set to ${next}`);
    this.options.trace?.step({ step: this.step, status: next, at: Date.now(), ...(change.reason ? { reason: change.reason } : {}) });
    this.emit({ type: 'status', previous, next });
    return true;
  }

  /** Leaving ROLLING/ROLLING_POST: every episode and finished record, the unclaimed list and the active clients. */
  cleanUpEpisodes(why: string): void {
    this.discardAll(why);
    this.activeClients = [];
  }

  /**
   * /stop_engine (upstream's kill_process_tree): OFFLINE written directly; episodes and finished records dropped;
   * global_step, detail, model path, booting_start_time, the pool and the active clients stay (appendix point 7).
   */
  stop(): void {
    this.discardAll('engine stopped');
    if (this.status !== STATUS.OFFLINE) this.writeStatus(STATUS.OFFLINE, 'stop_engine');
  }

  private discardAll(why: string): void {
    for (const record of this.episodes.values()) this.trace('discarded', record, { detail: why });
    this.episodes.clear();
    this.finished.clear();
    this.unclaimed = [];
    this.emit({ type: 'changed' });
  }

  registerEpisode(fields: { episode_uuid: string; openai_base_url: string; openai_api_key: string; zmq_listen_result_addr: string }): void {
    const record: EpisodeRecord = {
      ...fields,
      episode_status: 'registered',
      episode_type: 'train',
      client_uuid: '',
      latest_activity_timestamp: unixSeconds(),
      discard_episode_timeout: -1,
      llm_call_count: 0,
      debug_log: [],
      optional_task_id: '',
    };
    this.episodes.set(record.episode_uuid, record);
    this.unclaimed.push(record.episode_uuid);
    this.trace('registered', record);
    this.emit({ type: 'changed' });
  }

  /** Takes the oldest unclaimed episode for a client; a fail_cause when none is left. */
  claim(request: { client_uuid: string; episode_type: string; discard_episode_timeout: number; throttle_policy: ThrottlePolicy | null }): EpisodeRecord | string {
    const uuid = this.unclaimed.shift();
    if (uuid === undefined) return 'No available episodes to claim. Try again (maybe 1 minute) later.';
    const record = this.episodes.get(uuid);
    // The id was queued but its record is gone (deleted between the two reads upstream).
    if (!record) return 'No available episodes to claim. Try again (maybe 2 minutes) later.';
    Object.assign(record, {
      episode_status: 'claimed',
      episode_type: request.episode_type,
      client_uuid: request.client_uuid,
      latest_activity_timestamp: unixSeconds(),
      llm_call_count: 0,
      discard_episode_timeout: request.discard_episode_timeout,
    });
    // Only a non-empty current_task_id is written; an earlier claim's value otherwise stays (upstream quirk).
    if (request.throttle_policy?.current_task_id) record.optional_task_id = request.throttle_policy.current_task_id;
    this.refreshClient(request.client_uuid);
    this.trace('claimed', record);
    this.emit({ type: 'changed' });
    return record;
  }

  /** Back to registered: janitor timeout, abort, eval end. optional_task_id is kept. */
  revertToUnclaimed(uuid: string, kind: 'reverted' | 'aborted' | 'ended', extra: TraceExtra = {}): void {
    const record = this.episodes.get(uuid);
    if (!record) return;
    if (record.episode_status === 'claimed') {
      this.trace(kind, record, extra);
      Object.assign(record, { episode_status: 'registered', client_uuid: '', latest_activity_timestamp: unixSeconds(), llm_call_count: 0, discard_episode_timeout: -1 });
    }
    if (!this.unclaimed.includes(uuid)) this.unclaimed.push(uuid);
    this.emit({ type: 'changed' });
  }

  deleteEpisode(uuid: string, kind: 'aborted' | 'ended' | 'discarded', extra: TraceExtra = {}): void {
    const record = this.episodes.get(uuid);
    if (record) {
      this.trace(kind, record, extra);
      this.episodes.delete(uuid);
    }
    this.unclaimed = this.unclaimed.filter((id) => id !== uuid);
    this.emit({ type: 'changed' });
  }

  /** A train episode's output reached the trainer: its record becomes a finished snapshot. */
  finishEpisode(uuid: string, output: WorkflowOutputBody, taskId: string): void {
    const record = this.episodes.get(uuid);
    if (!record) return;
    this.finished.set(uuid, { ...record });
    // Upstream's runner saves no timeline for an episode without an LLM call (reference §1.3): say so where it shows.
    const detail = record.llm_call_count === 0 ? 'no LLM call was made in this episode: on the GPU server it yields no training sample' : undefined;
    this.trace('ended', record, { reward: scalarReward(output.reward), metadata: output.metadata, taskId, ...(detail ? { detail } : {}) });
    this.episodes.delete(uuid);
    this.unclaimed = this.unclaimed.filter((id) => id !== uuid);
    this.emit({ type: 'episode-finished', episode: record, output, taskId });
    this.emit({ type: 'changed' });
  }

  /** Adds the client to the active list or refreshes it (a train end_episode, an abort of a known episode). */
  registerClient(clientUuid: string): void {
    if (!clientUuid) return;
    const client = this.activeClients.find((c) => c.client_uuid === clientUuid);
    if (client) client.last_activity_at = unixSeconds();
    else this.activeClients.push({ client_uuid: clientUuid, last_activity_at: unixSeconds(), allowed_sync_weight: false });
  }

  /** Refreshes a client that is already active (claim, LLM call); never adds one. */
  refreshClient(clientUuid: string): void {
    const client = clientUuid ? this.activeClients.find((c) => c.client_uuid === clientUuid) : undefined;
    if (client) client.last_activity_at = unixSeconds();
  }

  /** The trainer's push: stored without the fields only the server maintains; answers the client instruction. */
  storePool(info: PoolInformation): { active_clients: ActiveClient[] } {
    this.pool = { ...info, running_episode_details: null, engine_status: null, global_step: null, completed_tasks_client_uuids: {} };
    this.emit({ type: 'changed' });
    return { active_clients: this.activeClients.map((c) => ({ ...c })) };
  }

  /** One janitor pass: idle claimed episodes go back to the pool; idle clients leave the active list. */
  janitor(): void {
    const now = unixSeconds();
    for (const record of [...this.episodes.values()]) {
      const idle = now - record.latest_activity_timestamp;
      if (record.episode_status === 'claimed' && idle > record.discard_episode_timeout) {
        this.options.log('warn', `Reverting episode ${record.episode_uuid} to unclaimed due to client timeout.`);
        const detail = `idle ${idle.toFixed(1)} s without an LLM call, past its discard_episode_timeout of ${record.discard_episode_timeout} s: back to the pool`;
        this.revertToUnclaimed(record.episode_uuid, 'reverted', { detail });
      }
    }
    const before = this.activeClients.length;
    this.activeClients = this.activeClients.filter((c) => now - c.last_activity_at <= this.options.clientActiveTimeoutS);
    if (this.activeClients.length !== before) this.emit({ type: 'changed' });
  }

  pushVerbose(tag: string, message: string): void {
    const now = unixSeconds();
    this.verboseLogs = [...this.verboseLogs, { timestamp: now, tag, message }].filter((e) => e.timestamp >= now - VERBOSE_LOG_TTL_S).slice(-VERBOSE_LOG_MAX);
  }

  recentVerboseLogs(): Array<{ timestamp: number; tag: string; message: string }> {
    const cutoff = unixSeconds() - VERBOSE_LOG_TTL_S;
    return this.verboseLogs.filter((e) => e.timestamp >= cutoff);
  }

  /**
   * GET /get_current_batch_rollout_pool_information. The live fields are written into the stored object, so a
   * completed_tasks_client_uuids built here (keyed by optional_task_id) outlives a status change until the next
   * trainer push (appendix points 8 and 16).
   */
  poolInformation(): PoolInformation {
    const pool = this.pool;
    pool.engine_status = this.status;
    pool.global_step = this.globalStep;
    pool.booting_start_time = this.bootingStartTime;
    pool.training_model_path = this.trainingModelPath;
    pool.swarm_client_instruction = { active_clients: this.activeClients.map((c) => ({ ...c })) };
    const now = unixSeconds();
    const running: Record<string, Record<string, string>> = {};
    for (const record of this.episodes.values()) {
      if (record.episode_status !== 'claimed') continue;
      running[record.episode_uuid] = {
        episode_status: record.episode_status,
        time_since_last_activity: pySeconds1(now - record.latest_activity_timestamp),
        discard_episode_timeout: pySeconds1(record.discard_episode_timeout),
        llm_call_count: String(record.llm_call_count),
        client_uuid: record.client_uuid,
        optional_task_id: record.optional_task_id,
      };
    }
    pool.running_episode_details = Object.keys(running).length > 0 ? running : null;
    const clientsByTask: Record<string, string[]> = {};
    for (const record of this.finished.values()) {
      if (record.optional_task_id) (clientsByTask[record.optional_task_id] ??= []).push(record.client_uuid);
    }
    if (Object.keys(clientsByTask).length > 0) pool.completed_tasks_client_uuids = clientsByTask;
    return structuredClone(pool);
  }

  private trace(kind: EpisodeEventKind, record: EpisodeRecord, extra: TraceExtra = {}): void {
    const sink = this.options.trace;
    if (!sink) return;
    const taskId = extra.taskId ?? (record.optional_task_id || null);
    sink.episode({
      kind,
      episodeUuid: record.episode_uuid,
      taskId,
      clientUuid: record.client_uuid || null,
      step: this.step,
      at: Date.now(),
      ...(extra.reward !== undefined ? { reward: extra.reward } : {}),
      ...(extra.metadata !== undefined ? { metadata: extra.metadata } : {}),
      ...(extra.detail !== undefined ? { detail: extra.detail } : {}),
      ...(extra.debugReward !== undefined ? { debugReward: extra.debugReward } : {}),
    });
  }
}
