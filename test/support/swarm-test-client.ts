import { randomUUID } from 'node:crypto';
import { request } from '../conformance/support/http';
import { poll } from './helpers';
import { upstreamJob } from './job-yaml';

/**
 * The client side of the swarm protocol, as AgentJet's SwarmClient calls it (reference §2), on fresh
 * connections: what a user's training code does to a swarm server. Tests use it to drive the fake
 * swarm server (a TEST DOUBLE of AgentJet's) through its states.
 */
export class SwarmTestClient {
  readonly uuid = randomUUID();
  constructor(readonly url: string) {}

  async post(path: string, json: unknown = {}) {
    const reply = await request(this.url, 'POST', path, { json });
    if (reply.status !== 200) throw new Error(`${path} answered ${reply.status}: ${reply.text}`);
    return reply.json;
  }

  async step(): Promise<number | null> {
    return (await request(this.url, 'GET', '/get_engine_status')).json.global_step;
  }

  /** Claims an episode, retrying while there is none (the server refuses outside ROLLING). */
  async claim(): Promise<string> {
    return poll(
      'an episode to claim',
      30_000,
      async () => {
        const r = await this.post('/claim_episode', { client_uuid: this.uuid, episode_type: 'train', discard_episode_timeout: 60, throttle_policy: null });
        return r.success ? (r.episode_uuid as string) : undefined;
      },
      100,
    );
  }

  async end(episode: string, taskId: string, reward: number) {
    return this.post('/end_episode', {
      client_uuid: this.uuid,
      episode_uuid: episode,
      task_id: taskId,
      declare_client_active: true,
      workflow_output: { reward, is_success: true, metadata: { task_id: taskId }, log_metrics: {} },
    });
  }

  async abort(episode: string) {
    return this.post('/abort_episode', { client_uuid: this.uuid, episode_uuid: episode, task_id: '', workflow_output: { reward: 0, metadata: {} } });
  }
}

/** A job of one task with two episodes per step (batch 1, num_repeat 2): each step needs two end_episode calls. */
export function smallJobYaml(modelPath: string): string {
  return upstreamJob(`  model:\n    path: ${modelPath}\n  data:\n    train_batch_size: 1\n  rollout:\n    num_repeat: 2\n  swarm_mode_sample_collection_method: rollout_until_finish_enough_tasks\n`);
}
