import { describe, expect, it } from 'vitest';
import { parseLooseNumber, parsePoolInformation, stats, taskRewards } from '../../../electron/services/training/pool-info';

// The reference's composed pool response (agentjet-swarm.md §1.2), values as upstream sends them.
const SAMPLE = {
  sample_collection_method: 'rollout_until_finish_enough_tasks',
  completed_episodes: 40,
  completed_episode_target: 128,
  completed_tasks: 9,
  completed_task_target: 32,
  completed_non_dummy_tasks: 6,
  completed_non_dummy_task_target: 32,
  task_expected_num_repeat: 4,
  completed_tasks_details: { '17': ['a1', 'c3'], '18': ['e5', 'f6', 'a7'] },
  completed_tasks_rewards: { '17': [1.0, 0.0], '18': [0.5, 0.5, 0.5] },
  completed_tasks_client_uuids: {},
  running_episode_details: {
    e5f6: { episode_status: 'claimed', time_since_last_activity: '3.2s', discard_episode_timeout: '240.0s', llm_call_count: '2', client_uuid: '9f3c', optional_task_id: '' },
    a0b1: { episode_status: 'claimed', time_since_last_activity: '12.3s', discard_episode_timeout: '240.0s', llm_call_count: '0', client_uuid: '9f3c', optional_task_id: '17' },
  },
  engine_status: 'ENGINE.ROLLING',
  global_step: 3,
  booting_start_time: null,
  training_model_path: '/Qwen/Qwen2.5-7B-Instruct',
  swarm_client_instruction: { active_clients: [{ client_uuid: '9f3c', last_activity_at: 1733240000.5, allowed_sync_weight: true }] },
};

describe('pool information parsing', () => {
  it('reads the string-typed running episode details into numbers, longest idle first', () => {
    const pool = parsePoolInformation(SAMPLE);
    expect(pool.runningEpisodes).toEqual([
      { episodeUuid: 'a0b1', status: 'claimed', llmCalls: 0, idleSeconds: 12.3, patienceSeconds: 240, clientUuid: '9f3c', taskId: '17' },
      { episodeUuid: 'e5f6', status: 'claimed', llmCalls: 2, idleSeconds: 3.2, patienceSeconds: 240, clientUuid: '9f3c', taskId: '' },
    ]);
  });

  it('reads fill bars, method, repeat, model path, step and active clients', () => {
    const pool = parsePoolInformation(SAMPLE);
    expect(pool.episodes).toEqual({ done: 40, target: 128 });
    expect(pool.tasks).toEqual({ done: 9, target: 32 });
    expect(pool.nonDummyTasks).toEqual({ done: 6, target: 32 });
    expect(pool.expectedRepeat).toBe(4);
    expect(pool.sampleCollectionMethod).toBe('rollout_until_finish_enough_tasks');
    expect(pool.modelPath).toBe('/Qwen/Qwen2.5-7B-Instruct');
    expect(pool.globalStep).toBe(3);
    expect(pool.activeClients).toEqual([{ clientUuid: '9f3c', agreedSyncWeight: true }]);
    expect(pool.bootingStartMs).toBeNull();
  });

  it('treats a null pool of running episodes as none, and missing or mistyped fields as absent', () => {
    const pool = parsePoolInformation({ running_episode_details: null, completed_episodes: '40', completed_tasks_rewards: { x: 'nope' } });
    expect(pool.runningEpisodes).toEqual([]);
    // A string count is not a count: absent, not 0 or 40.
    expect(pool.episodes).toBeNull();
    expect(pool.tasks).toBeNull();
    expect(pool.rewards).toEqual({});
    expect(pool.activeClients).toEqual([]);
    expect(pool.engineStatus).toBeNull();
    // An empty default object (upstream's answer on an internal error) parses too.
    expect(parsePoolInformation({}).runningEpisodes).toEqual([]);
  });

  it('reads booting_start_time (unix seconds, float) as ms', () => {
    expect(parsePoolInformation({ booting_start_time: 1733240000.25 }).bootingStartMs).toBe(1733240000250);
  });

  it('parses loose numbers the way the server formats them', () => {
    expect(parseLooseNumber('12.3s')).toBe(12.3);
    expect(parseLooseNumber('240.0s')).toBe(240);
    expect(parseLooseNumber('3')).toBe(3);
    expect(parseLooseNumber('-1.0s')).toBe(-1);
    expect(parseLooseNumber(7)).toBe(7);
    expect(parseLooseNumber('')).toBeNull();
    expect(parseLooseNumber('n/a')).toBeNull();
    expect(parseLooseNumber('3 calls')).toBeNull();
    expect(parseLooseNumber(null)).toBeNull();
    expect(parseLooseNumber(Number.NaN)).toBeNull();
  });

  it('gives mean ± std per task and for the whole batch', () => {
    const pool = parsePoolInformation(SAMPLE);
    const rows = taskRewards(pool);
    expect(rows.map((r) => r.taskId)).toEqual(['18', '17']);
    expect(rows[1]).toEqual({ taskId: '17', episodes: 2, mean: 0.5, std: 0.5 });
    expect(rows[0]).toMatchObject({ taskId: '18', episodes: 3, mean: 0.5, std: 0 });
    const all = stats([1, 0, 0.5, 0.5, 0.5]);
    expect(all).toMatchObject({ n: 5, mean: 0.5, min: 0, max: 1 });
    expect(all.std).toBeCloseTo(Math.sqrt(0.1), 10);
    expect(stats([])).toEqual({ n: 0, mean: null, std: null, min: null, max: null });
  });

  it('caps task rows at 30, most episodes first', () => {
    const rewards: Record<string, number[]> = {};
    for (let i = 0; i < 50; i++) rewards[String(i)] = Array.from({ length: i % 7 }, () => 1);
    const rows = taskRewards({ rewards, episodesPerTask: {} });
    expect(rows).toHaveLength(30);
    expect(rows[0]?.episodes).toBe(6);
  });
});
