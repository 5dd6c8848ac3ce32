// The HTTP call sequences of upstream's SwarmClient (ajet/tuner_lib/experimental/swarm_client.py @ c68c154,
// reference §2 and appendix point 9), request for request, with the client's waits shortened for tests. Not a
// port of the client: only what it sends, in which order, and how it reads the answers.
import { randomUUID } from 'node:crypto';
import { request, type WireJson } from '../../conformance/support/http';

export interface Task {
  task_id: string;
}
export interface WorkflowOutput {
  reward: number | number[] | null;
  is_success?: boolean | null;
  metadata?: Record<string, unknown>;
  log_metrics?: Record<string, unknown>;
}
export interface BegunEpisode {
  episodeUuid: string;
  baseUrl: string;
  apiKey: string;
}

const POLL_MS = 20;
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

export class ClientSequences {
  readonly clientUuid = randomUUID();
  /** The warnings the real client would log (an end_episode dropped during a weight sync …). */
  readonly warnings: string[] = [];

  constructor(readonly serverUrl: string) {}

  private async post(path: string, json: unknown): Promise<{ status: number; json: WireJson }> {
    const reply = await request(this.serverUrl, 'POST', path, { json });
    return { status: reply.status, json: reply.json };
  }

  async engineStatus(): Promise<{ engine_status: string; global_step: number | null }> {
    return (await request(this.serverUrl, 'GET', '/get_engine_status')).json;
  }

  async waitForStatus(status: string, timeoutMs = 5000): Promise<WireJson> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await this.engineStatus();
      if (current.engine_status === status) return current;
      if (Date.now() > deadline) throw new Error(`still ${current.engine_status} after ${timeoutMs} ms, waiting for ${status}`);
      await sleep(POLL_MS);
    }
  }

  /** auto_sync_train_config_and_start_engine(job): from OFFLINE, sync then start, then wait for ROLLING. */
  async autoSyncTrainConfigAndStartEngine(yaml: string): Promise<void> {
    const status = (await this.engineStatus()).engine_status;
    if (status === 'ENGINE.ROLLING' || status === 'ENGINE.ROLLING_POST') return;
    if (status === 'ENGINE.BOOTING' || status === 'ENGINE.WEIGHT_SYNCING') {
      await this.waitForStatus('ENGINE.ROLLING');
      return;
    }
    if (status !== 'ENGINE.OFFLINE') throw new Error(`unexpected status ${status}`);
    // sync_train_config: only the HTTP status is checked.
    const synced = await this.post('/sync_train_config', { yaml_as_string: yaml });
    if (synced.status !== 200) throw new Error(`sync_train_config: HTTP ${synced.status}`);
    const started = await this.post('/start_engine', {});
    if (started.json?.success !== true) throw new Error('Failed to start training engine');
    let sawOther = false;
    const deadline = Date.now() + 5000;
    for (;;) {
      const current = (await this.engineStatus()).engine_status;
      if (current === 'ENGINE.ROLLING') return;
      if (current !== 'ENGINE.OFFLINE') sawOther = true;
      else if (sawOther) throw new Error('SwarmServerOfflineError: the engine went OFFLINE while booting');
      if (Date.now() > deadline) throw new Error(`start_engine: still ${current}`);
      await sleep(POLL_MS);
    }
  }

  /** begin_episode: waits for ROLLING, claims, retries on "No available episodes" and the sync/post phases. */
  async beginEpisode(options: { discardEpisodeTimeout?: number; episodeType?: 'train' | 'eval'; taskIdForThrottle?: string; timeoutMs?: number } = {}): Promise<BegunEpisode> {
    const deadline = Date.now() + (options.timeoutMs ?? 5000);
    for (;;) {
      await this.waitForStatus('ENGINE.ROLLING', Math.max(0, deadline - Date.now()));
      const throttle =
        options.taskIdForThrottle === undefined ? null : { ratio: 1.5, expected_batch_size: 2, expected_num_repeat: 2, current_task_id: options.taskIdForThrottle };
      const claim = await this.post('/claim_episode', {
        client_uuid: this.clientUuid,
        episode_type: options.episodeType ?? 'train',
        discard_episode_timeout: options.discardEpisodeTimeout ?? 240,
        throttle_policy: throttle,
      });
      if (claim.json.success) {
        // The client replaces scheme, host and port of the returned base URL with its own server URL.
        const baseUrl = String(claim.json.openai_base_url).replace(/^https?:\/\/[^/]+/, this.serverUrl);
        return { episodeUuid: claim.json.episode_uuid, baseUrl, apiKey: claim.json.openai_api_key };
      }
      const cause = String(claim.json.fail_cause);
      if (!cause.includes('No available episodes to claim.') && !cause.includes('Engine is syncing weights') && !cause.includes('Engine is in post-rolling phase')) {
        this.warnings.push(`claim failed: ${cause}`);
      }
      if (Date.now() > deadline) throw new Error(`begin_episode: no episode (${cause})`);
      await sleep(POLL_MS);
    }
  }

  /** end_episode: task_id injected into metadata; a 400 naming WEIGHT_SYNCING is only a warning. */
  async endEpisode(task: Task, episodeUuid: string, output: WorkflowOutput, declareClientActive = true): Promise<void> {
    if (!task.task_id) throw new Error('task.task_id must be non-empty');
    const workflowOutput = { is_success: null, log_metrics: {}, ...output, metadata: { ...(output.metadata ?? {}), task_id: task.task_id } };
    const reply = await this.post('/end_episode', {
      client_uuid: this.clientUuid,
      episode_uuid: episodeUuid,
      workflow_output: workflowOutput,
      task_id: task.task_id,
      declare_client_active: declareClientActive,
    });
    if (reply.status === 200) return;
    const detail = typeof reply.json?.detail === 'string' ? reply.json.detail : JSON.stringify(reply.json);
    if (reply.status === 400 && detail.includes('WEIGHT_SYNCING')) {
      this.warnings.push(`end_episode dropped during weight sync: ${detail}`);
      return;
    }
    throw new Error(`SwarmClient error ${reply.status}: ${detail}`);
  }

  /** abort_episode: a WorkflowOutput dump with reward 0.0 and an empty task_id; errors are only logged. */
  async abortEpisode(episodeUuid: string, declareClientActive = true): Promise<void> {
    const reply = await this.post('/abort_episode', {
      client_uuid: this.clientUuid,
      episode_uuid: episodeUuid,
      workflow_output: { reward: 0.0, is_success: null, metadata: {}, log_metrics: {} },
      task_id: '',
      declare_client_active: declareClientActive,
    });
    if (reply.status !== 200) this.warnings.push(`abort_episode: HTTP ${reply.status}`);
  }

  async agreeSyncWeight(): Promise<WireJson> {
    return (await this.post('/agree_sync_weight', { client_uuid: this.clientUuid })).json;
  }

  /** stop_engine: no-op when OFFLINE; otherwise stop and wait for OFFLINE. */
  async stopEngine(): Promise<void> {
    if ((await this.engineStatus()).engine_status === 'ENGINE.OFFLINE') return;
    const reply = await this.post('/stop_engine', {});
    if (reply.json?.success !== true) throw new Error('stop_engine failed');
    await this.waitForStatus('ENGINE.OFFLINE');
  }

  /** One episode of an agent: begin, one chat call with the episode's key, end with the reward. */
  async runEpisode(taskId: string, reward: number, chat?: (episode: BegunEpisode) => Promise<void>): Promise<BegunEpisode> {
    const episode = await this.beginEpisode();
    if (chat) await chat(episode);
    await this.endEpisode({ task_id: taskId }, episode.episodeUuid, { reward });
    return episode;
  }
}

/** What the agent's OpenAI SDK sends: POST {base_url}/chat/completions with the episode key as the bearer token. */
export function chatCompletion(episode: BegunEpisode, body: Record<string, unknown> = { model: 'whatever', messages: [{ role: 'user', content: 'hi' }] }) {
  return request(episode.baseUrl.replace(/\/v1$/, ''), 'POST', '/v1/chat/completions', { json: body, headers: { authorization: `Bearer ${episode.apiKey}` } });
}
