// A driver for one server under test: the client routes as SwarmClient calls them, and the trainer routes as
// upstream's trainer calls them (the suite plays the trainer, so the server must not move its status on its own).
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { request, type Reply, type RequestOptions, type WireJson } from './http';
import { upstreamJob } from '../../support/job-yaml';

export const STATUS = {
  OFFLINE: 'ENGINE.OFFLINE',
  BOOTING: 'ENGINE.BOOTING',
  ROLLING: 'ENGINE.ROLLING',
  ROLLING_POST: 'ENGINE.ROLLING_POST',
  WEIGHT_SYNCING: 'ENGINE.WEIGHT_SYNCING',
  WEIGHT_EXPORTING: 'ENGINE.WEIGHT_EXPORTING',
} as const;

export const MODEL_PATH = '/models/Qwen2.5-0.5B-Instruct';
/** What yaml.safe_dump of a small AgentJetJob looks like (block style, with the keys start_engine needs), with the model path the server reads. */
export const JOB_YAML = upstreamJob(
  `  project_name: conformance\n  model:\n    path: ${MODEL_PATH}\n  data:\n    train_batch_size: 2\n  rollout:\n    num_repeat: 2\n  swarm_mode_sample_collection_method: rollout_until_finish_enough_tasks\n`,
);

export const newClientUuid = (): string => randomUUID();
export const newEpisodeUuid = (): string => randomBytes(16).toString('hex');

export interface ClaimOptions {
  episodeType?: string;
  discardEpisodeTimeout?: number | string;
  throttlePolicy?: unknown;
}

export class Swarm {
  constructor(readonly baseUrl: string) {}

  call(method: string, path: string, options?: RequestOptions): Promise<Reply> {
    return request(this.baseUrl, method, path, options);
  }
  get(path: string): Promise<Reply> {
    return this.call('GET', path);
  }
  post(path: string, json: unknown = {}): Promise<Reply> {
    return this.call('POST', path, { json });
  }

  async engineStatus(): Promise<WireJson> {
    const r = await this.get('/get_engine_status');
    expect(r.status).toBe(200);
    return r.json;
  }
  async pool(): Promise<WireJson> {
    const r = await this.get('/get_current_batch_rollout_pool_information');
    expect(r.status).toBe(200);
    return r.json;
  }
  async buffer(): Promise<WireJson[]> {
    const r = await this.post('/get_episode_buffer');
    expect(r.status).toBe(200);
    return r.json.buffer;
  }
  async episode(uuid: string): Promise<WireJson | undefined> {
    return (await this.buffer()).find((e) => e.episode_uuid === uuid);
  }

  // ---- trainer side ----
  async setStatus(engine_status: string, extra: { global_step?: number | null; engine_status_detail?: string | null } = {}): Promise<void> {
    const r = await this.post('/update_engine_status', { engine_status, ...extra });
    expect(r.json).toEqual({ success: true, failure_reason: '' });
  }
  async register(uuid = newEpisodeUuid(), extra: Record<string, string> = {}): Promise<string> {
    const r = await this.post('/register_episode', {
      episode_uuid: uuid,
      openai_base_url: `http://10.0.0.1:10086/v1`,
      openai_api_key: `sk-ajet-${uuid}`,
      zmq_listen_result_addr: `ipc:///tmp/agentjet/${uuid}-default_target_tag.sock`,
      ...extra,
    });
    expect(r.json).toEqual({ success: true, failure_reason: '' });
    return uuid;
  }
  async pushPool(info: Record<string, unknown>): Promise<Reply> {
    return this.post('/update_current_batch_rollout_pool_information_and_fetch_instruction', info);
  }

  // ---- client side ----
  async syncAndStart(yaml = JOB_YAML): Promise<Reply> {
    expect((await this.post('/sync_train_config', { yaml_as_string: yaml })).json).toEqual({ success: true });
    const started = await this.post('/start_engine', {});
    expect(started.status).toBe(200);
    return started;
  }
  /** sync + start + the trainer's ROLLING at global_step 1. */
  async startRolling(yaml = JOB_YAML): Promise<void> {
    await this.syncAndStart(yaml);
    expect((await this.engineStatus()).engine_status).toBe(STATUS.BOOTING);
    await this.setStatus(STATUS.ROLLING, { global_step: 1 });
  }
  claim(client: string, options: ClaimOptions = {}): Promise<Reply> {
    return this.post('/claim_episode', {
      client_uuid: client,
      episode_type: options.episodeType ?? 'train',
      discard_episode_timeout: options.discardEpisodeTimeout ?? 240,
      throttle_policy: options.throttlePolicy ?? null,
    });
  }
  /** Registers one episode and claims it; returns its uuid. */
  async claimed(client: string, options: ClaimOptions = {}): Promise<string> {
    const uuid = await this.register();
    const r = await this.claim(client, options);
    expect(r.json).toMatchObject({ success: true, episode_uuid: uuid });
    return uuid;
  }
  end(client: string, episode: string, taskId: string, reward: unknown = 1.0, extra: Record<string, unknown> = {}): Promise<Reply> {
    return this.post('/end_episode', {
      client_uuid: client,
      episode_uuid: episode,
      task_id: taskId,
      declare_client_active: true,
      workflow_output: { reward, is_success: true, metadata: { task_id: taskId }, log_metrics: {} },
      ...extra,
    });
  }
  abort(client: string, episode: string, declare = true): Promise<Reply> {
    return this.post('/abort_episode', {
      client_uuid: client,
      episode_uuid: episode,
      task_id: '',
      declare_client_active: declare,
      workflow_output: { reward: 0.0, is_success: null, metadata: {}, log_metrics: {} },
    });
  }
}

/** Polls until fn returns a value other than undefined (for janitor effects, which are periodic). */
export async function eventually<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 25));
  }
}
