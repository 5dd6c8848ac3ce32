// The dry-run server playing the trainer (trainer 'auto'), driven over HTTP by SwarmClient's real call sequences
// (reference §2: auto_sync_train_config_and_start_engine, begin_episode, end_episode, abort_episode, stop_engine):
// rewards recorded, steps advance by each sample collection method, a batch with wrong task grouping stalls with
// a reason, the janitor with short timeouts, stop. The trace sink is a recording TEST DOUBLE.
import { afterEach, describe, expect, it } from 'vitest';
import { startDryRunServer, type DryRunServer, type DryRunServerOptions } from '../../../electron/services/dry-run/dry-run-server';
import type { EpisodeTraceEvent, LlmRelay, StepTraceEvent, TraceSink } from '../../../electron/services/dry-run/relay-contract';
import { request } from '../../conformance/support/http';
import { eventually } from '../../conformance/support/swarm';
import { createEchoRelay } from '../../conformance/support/echo-relay';
import { chatCompletion, ClientSequences } from './swarm-client-sequences';

/** TEST DOUBLE: records what the server reports to the trace store. */
class RecordingTrace implements TraceSink {
  readonly episodes: EpisodeTraceEvent[] = [];
  readonly steps: StepTraceEvent[] = [];
  readonly stalls: Array<string | null> = [];
  episode(event: EpisodeTraceEvent): void {
    this.episodes.push(event);
  }
  step(event: StepTraceEvent): void {
    this.steps.push(event);
  }
  stall(reason: string | null): void {
    this.stalls.push(reason);
  }
}

function jobYaml(method: string, batch = 2, repeat = 2, extra = ''): string {
  return (
    `ajet:\n  project_name: dry\n  experiment_name: dry_run_test\n  model:\n    path: /models/Qwen2.5-0.5B-Instruct\n` +
    `  data:\n    train_batch_size: ${batch}\n    max_prompt_length: 3000\n  rollout:\n    num_repeat: ${repeat}\n    temperature: 0.9\n` +
    `  swarm_mode_sample_collection_method: ${method}\n  interchange_server:\n    interchange_method: ipc\n${extra}trainer:\n  total_epochs: 1\n` +
    `defaults:\n- verl_default\n- ajet_default\n- _self_\nhydra:\n  run:\n    dir: x\n`
  );
}

let server: DryRunServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(overrides: Partial<DryRunServerOptions> = {}): Promise<{ server: DryRunServer; trace: RecordingTrace; client: ClientSequences }> {
  const trace = new RecordingTrace();
  server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 30, trainingStepMs: 30, trace, relay: createEchoRelay(), ...overrides });
  return { server, trace, client: new ClientSequences(server.url) };
}

const stepOf = async (client: ClientSequences) => (await client.engineStatus()).global_step;
const waitForStep = (client: ClientSequences, step: number) =>
  eventually(`ROLLING at step ${step}`, 5000, async () => {
    const s = await client.engineStatus();
    return s.engine_status === 'ENGINE.ROLLING' && s.global_step === step ? s : undefined;
  });

describe('dry-run trainer (auto), driven by the client call sequences', () => {
  it('boots, registers batch × num_repeat episodes with routing keys, records rewards and advances a step per complete batch', async () => {
    const relay = createEchoRelay();
    const { server, trace, client } = await start({ relay });
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks'));
    expect(trace.steps.map((s) => s.status).slice(0, 2)).toEqual(['ENGINE.BOOTING', 'ENGINE.ROLLING']);
    expect(await client.engineStatus()).toMatchObject({ global_step: 1 });
    expect(server.snapshot().pool.registered).toBe(4);

    const first = await client.beginEpisode({ discardEpisodeTimeout: 60 });
    expect(first.baseUrl).toBe(`${server.url}/v1`);
    const key = JSON.parse(Buffer.from(first.apiKey.replace(/^sk-ajet-/, ''), 'base64').toString('utf8'));
    expect(key).toEqual({ agent_name: 'default_agent_name', target_tag: 'default_target_tag', episode_uuid: first.episodeUuid, episode_address: expect.stringMatching(/^ipc:\/\//) });
    const answer = await chatCompletion(first);
    expect(answer).toMatchObject({ status: 200, json: { object: 'chat.completion' } });
    expect(relay.calls[0]).toMatchObject({ route: 'chat', episode: { episodeUuid: first.episodeUuid, clientUuid: client.clientUuid, step: 1, isEval: false, callIndex: 1 } });
    await client.endEpisode({ task_id: 'a' }, first.episodeUuid, { reward: 1 });
    for (const [task, reward] of [['a', 0], ['b', 0.5], ['b', 0.25]] as const) await client.runEpisode(task, reward);

    await waitForStep(client, 2);
    const walk = trace.steps.map((s) => s.status);
    expect(walk.slice(0, 5)).toEqual(['ENGINE.BOOTING', 'ENGINE.ROLLING', 'ENGINE.ROLLING_POST', 'ENGINE.WEIGHT_SYNCING', 'ENGINE.ROLLING']);
    expect(trace.steps[2]?.reason).toBe('batch complete: 2 of 2 tasks have 2 finished episodes each (rollout_until_finish_enough_tasks)');
    const ended = trace.episodes.filter((e) => e.kind === 'ended');
    expect(ended.map((e) => [e.taskId, e.reward, e.step])).toEqual([
      ['a', 1, 1],
      ['a', 0, 1],
      ['b', 0.5, 1],
      ['b', 0.25, 1],
    ]);
    expect(ended[0]?.metadata).toEqual({ task_id: 'a' });
    // The first episode called the LLM; the others did not, which upstream's runner would not train on.
    expect(ended[0]?.detail).toBeUndefined();
    expect(ended[1]?.detail).toContain('no LLM call was made');
    // The new step starts from a clean pool with its own episodes; the trainer's counters restart.
    const pool = (await request(server.url, 'GET', '/get_current_batch_rollout_pool_information')).json;
    expect(pool).toMatchObject({ completed_episodes: 0, completed_task_target: 2, task_expected_num_repeat: 2, global_step: 2 });
    expect(server.snapshot()).toMatchObject({ status: 'ENGINE.ROLLING', globalStep: 2, stall: null, pool: { registered: 4, claimed: 0 } });

    // A second step with the same client advances again.
    for (const [task, reward] of [['c', 1], ['c', 0], ['d', 1], ['d', 1]] as const) await client.runEpisode(task, reward);
    await waitForStep(client, 3);
  });

  it('reports the rewards of the step in the pool information while it runs', async () => {
    const { server, client } = await start();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks'));
    await client.runEpisode('t1', 0.75);
    await client.runEpisode('t1', 0.25);
    const pool = (await request(server.url, 'GET', '/get_current_batch_rollout_pool_information')).json;
    expect(pool).toMatchObject({
      sample_collection_method: 'rollout_until_finish_enough_tasks',
      completed_episodes: 2,
      completed_episode_target: 4,
      completed_tasks: 1,
      completed_tasks_rewards: { t1: [0.75, 0.25] },
    });
    expect(pool.completed_tasks_details.t1).toHaveLength(2);
    expect(server.snapshot().pool).toMatchObject({ completedEpisodes: 2, completedTasks: 1, completedTaskTarget: 2 });
  });

  it('wrong task grouping stalls at step 1 with a plain reason, which clears once the groups are right', async () => {
    const { server, trace, client } = await start();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks'));
    // The classic mistake: a new task_id for every episode, so no task ever gets num_repeat episodes.
    for (let i = 0; i < 4; i++) await client.runEpisode(`task-${i}`, 1);
    const reason = await eventually('a stall reason', 2000, async () => server.snapshot().stall ?? undefined);
    expect(reason).toContain('only 0 of 2 tasks have num_repeat=2 episodes');
    expect(reason).toContain('4 tasks with 1 episode');
    expect(reason).toContain('same task_id');
    expect(trace.stalls.at(-1)).toBe(reason);
    expect(await client.engineStatus()).toMatchObject({ engine_status: 'ENGINE.ROLLING', global_step: 1 });
    // Finished slots were refilled: clients can keep going.
    expect(server.snapshot().pool.registered).toBe(4);
    await client.runEpisode('task-0', 0);
    await client.runEpisode('task-1', 0);
    await waitForStep(client, 2);
    expect(trace.stalls.at(-1)).toBeNull();
    expect(server.snapshot().stall).toBeNull();
  });

  it('rollout_until_finish_enough_non_dummy_tasks waits for tasks whose rewards differ, and says so', async () => {
    const { server, client } = await start();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_non_dummy_tasks'));
    for (const task of ['x', 'x', 'y', 'y']) await client.runEpisode(task, 1);
    const reason = await eventually('a stall reason', 2000, async () => server.snapshot().stall ?? undefined);
    expect(reason).toContain('only 0 of 2 needed have rewards that differ');
    expect(await stepOf(client)).toBe(1);
    for (const [task, reward] of [['z', 1], ['z', 0], ['w', 0], ['w', 1]] as const) await client.runEpisode(task, reward);
    await waitForStep(client, 2);
  });

  it('rollout_until_finish_enough_episodes counts episodes whatever their task', async () => {
    const { client } = await start();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_episodes'));
    for (let i = 0; i < 4; i++) await client.runEpisode(`solo-${i}`, 1);
    await waitForStep(client, 2);
  });

  it('rollout_until_any_client_agree_sync_weight advances when an active client agrees', async () => {
    const { server, client } = await start();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_any_client_agree_sync_weight'));
    const other = new ClientSequences(server.url);
    await client.runEpisode('t', 1);
    await other.runEpisode('t', 0);
    expect(await stepOf(client)).toBe(1);
    expect(await other.agreeSyncWeight()).toEqual({ success: true, failure_reason: '' });
    await waitForStep(client, 2);
  });

  it('rollout_until_all_clients_agree_sync_weight waits for every active client', async () => {
    const { server, client } = await start();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_all_clients_agree_sync_weight'));
    const other = new ClientSequences(server.url);
    await client.runEpisode('t', 1);
    await other.runEpisode('t', 0);
    await client.agreeSyncWeight();
    await new Promise((ok) => setTimeout(ok, 100));
    expect(await client.engineStatus()).toMatchObject({ engine_status: 'ENGINE.ROLLING', global_step: 1 });
    await other.agreeSyncWeight();
    await waitForStep(client, 2);
  });

  it('ROLLING_POST waits for an in-flight episode; its end still counts, and a late end during the sync is dropped by the client', async () => {
    const { trace, client } = await start({ trainingStepMs: 300 });
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_episodes'));
    const inFlight = await client.beginEpisode();
    const late = new ClientSequences(client.serverUrl);
    const lateEpisode = await late.beginEpisode();
    // Two of the four slots are held; finished slots are refilled, so four more episodes can run.
    for (const task of ['a', 'a', 'c', 'c']) await client.runEpisode(task, 1);
    await client.waitForStatus('ENGINE.ROLLING_POST');
    expect((await chatCompletion(inFlight)).status).toBe(200);
    await client.endEpisode({ task_id: 'b' }, inFlight.episodeUuid, { reward: 1 });
    await late.abortEpisode(lateEpisode.episodeUuid);
    await client.waitForStatus('ENGINE.WEIGHT_SYNCING');
    // SwarmClient drops an end_episode refused with WEIGHT_SYNCING and only warns.
    await client.endEpisode({ task_id: 'b' }, inFlight.episodeUuid, { reward: 1 });
    expect(client.warnings.at(-1)).toContain('ENGINE.WEIGHT_SYNCING');
    await waitForStep(client, 2);
    expect(trace.episodes.filter((e) => e.kind === 'ended').map((e) => e.taskId)).toEqual(['a', 'a', 'c', 'c', 'b']);
    expect(trace.episodes.find((e) => e.kind === 'aborted')).toMatchObject({ episodeUuid: lateEpisode.episodeUuid, detail: expect.stringContaining('ROLLING_POST') });
  });

  it('abort_episode puts the episode back in the pool; the trace says aborted', async () => {
    const { trace, client } = await start();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks'));
    const episode = await client.beginEpisode();
    await client.abortEpisode(episode.episodeUuid);
    expect(trace.episodes.at(-1)).toMatchObject({ kind: 'aborted', episodeUuid: episode.episodeUuid, clientUuid: client.clientUuid });
    const buffer = (await request(client.serverUrl, 'POST', '/get_episode_buffer', { json: {} })).json.buffer;
    expect(buffer.find((e: { episode_uuid: string }) => e.episode_uuid === episode.episodeUuid)).toMatchObject({ episode_status: 'registered' });
  });

  it('janitor (short timeouts): an idle claimed episode is reverted with a reason, its end is refused, an idle client is forgotten', async () => {
    const { server, trace, client } = await start({ janitorIntervalMs: 50, clientActiveTimeoutS: 0.5 });
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks'));
    await client.runEpisode('t', 1);
    expect(server.snapshot().pool.activeClients).toBe(1);
    const idle = await client.beginEpisode({ discardEpisodeTimeout: 0.2 });
    const reverted = await eventually('the revert', 3000, async () => trace.episodes.find((e) => e.kind === 'reverted' && e.episodeUuid === idle.episodeUuid));
    expect(reverted.detail).toContain('discard_episode_timeout of 0.2 s');
    await expect(client.endEpisode({ task_id: 't' }, idle.episodeUuid, { reward: 1 })).rejects.toThrow(/SwarmClient error 400: .*take \*\*too long\*\*/);
    await eventually('the idle client forgotten', 3000, async () => (server.snapshot().pool.activeClients === 0 ? true : undefined));
  });

  it('an LLM call keeps its episode from the janitor while the relay waits (touch)', async () => {
    let release: (() => void) | undefined;
    let entered: (() => void) | undefined;
    const inRelay = new Promise<void>((ok) => (entered = ok));
    const slow: LlmRelay = {
      async handle(_route, episode, _body, _req, res) {
        const ticker = setInterval(() => episode.touch(), 50);
        entered?.();
        await new Promise<void>((ok) => (release = ok));
        clearInterval(ticker);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'chat.completion', choices: [] }));
      },
    };
    const { trace, client } = await start({ relay: slow, janitorIntervalMs: 50 });
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks'));
    // 1 s, not less: the call must reach the relay before the janitor may revert the claim, and on a loaded machine
    // (stop 41's CI) the way from begin_episode's answer to the relay took longer than 0.2 s.
    const episode = await client.beginEpisode({ discardEpisodeTimeout: 1 });
    const call = chatCompletion(episode);
    try {
      await inRelay;
      expect(trace.episodes.filter((e) => e.kind === 'reverted'), 'reverted before the call reached the relay').toEqual([]);
      // Twice the timeout inside the relay: without the touches the janitor (every 50 ms) would revert it.
      await new Promise((ok) => setTimeout(ok, 2000));
      expect(trace.episodes.filter((e) => e.kind === 'reverted')).toEqual([]);
    } finally {
      release?.();
    }
    expect((await call).status).toBe(200);
  });

  it('without a relay an LLM call gets a 503 saying no debug LLM is configured', async () => {
    const { client } = await start({ relay: undefined });
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks'));
    const episode = await client.beginEpisode();
    const answer = await chatCompletion(episode);
    expect(answer.status).toBe(503);
    expect(answer.json.detail).toContain('No debug LLM is configured for this dry run');
    // The call still counted, as upstream counts a call before it reaches the LLM.
    const pool = (await request(client.serverUrl, 'GET', '/get_current_batch_rollout_pool_information')).json;
    expect(pool.running_episode_details[episode.episodeUuid].llm_call_count).toBe('1');
  });

  it('stop_engine goes OFFLINE, drops the episodes, keeps the step, and a pending boot never reaches ROLLING', async () => {
    // A 1 s boot, not 0.2: the stop must come while the boot is pending, and on a loaded machine the boot of 0.2 s
    // ended first (idle CI-AQ: BOOTING, ROLLING, OFFLINE). The wait after the stop outlasts the boot.
    const { server, trace, client } = await start({ bootDelayMs: 1000 });
    await request(server.url, 'POST', '/sync_train_config', { json: { yaml_as_string: jobYaml('rollout_until_finish_enough_tasks') } });
    await request(server.url, 'POST', '/start_engine', { json: {} });
    await client.stopEngine();
    await new Promise((ok) => setTimeout(ok, 1300));
    expect(await client.engineStatus()).toMatchObject({ engine_status: 'ENGINE.OFFLINE' });
    expect(trace.steps.map((s) => s.status)).toEqual(['ENGINE.BOOTING', 'ENGINE.OFFLINE']);

    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks'));
    await client.beginEpisode();
    await client.stopEngine();
    expect(await client.engineStatus()).toEqual({ engine_status: 'ENGINE.OFFLINE', engine_status_detail: null, global_step: 1 });
    expect(server.snapshot().pool).toMatchObject({ registered: 0, claimed: 0 });
    expect(trace.episodes.filter((e) => e.kind === 'discarded')).toHaveLength(4);
  });

  it('a boot reported dead through the trainer route (OFFLINE, global_step 0) does not come back as ROLLING', async () => {
    const { server, client } = await start({ bootDelayMs: 150 });
    await request(server.url, 'POST', '/sync_train_config', { json: { yaml_as_string: jobYaml('rollout_until_finish_enough_tasks') } });
    expect((await request(server.url, 'POST', '/start_engine', { json: {} })).json).toMatchObject({ success: true });
    await request(server.url, 'POST', '/update_engine_status', { json: { engine_status: 'ENGINE.OFFLINE', global_step: 0 } });
    await new Promise((ok) => setTimeout(ok, 300));
    expect(await client.engineStatus()).toEqual({ engine_status: 'ENGINE.OFFLINE', engine_status_detail: null, global_step: 0 });
  });

  it('the snapshot shows the synced job, the settings the dry run does not use, and notifies on change', async () => {
    const { server, client } = await start();
    let changes = 0;
    server.onChange(() => changes++);
    expect(server.snapshot().train).toBeNull();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks', 3, 5, '  bogus_key: 1\n'));
    const snapshot = server.snapshot();
    expect(snapshot.train).toMatchObject({
      experimentName: 'dry_run_test',
      modelPath: '/models/Qwen2.5-0.5B-Instruct',
      batchSize: 3,
      numRepeat: 5,
      sampleCollectionMethod: 'rollout_until_finish_enough_tasks',
      parsed: true,
    });
    expect(snapshot.train?.unknownKeys).toEqual(['ajet.data.max_prompt_length', 'ajet.interchange_server.interchange_method', 'ajet.bogus_key', 'trainer.total_epochs']);
    expect(snapshot.experimentDir).toMatch(/\/saved_experiments\/dry_run_test$/);
    expect(snapshot.pool.registered).toBe(15);
    expect(changes).toBeGreaterThan(0);
  });

  it('max_env_worker caps the episodes open at once, in whole GRPO groups, as upstream does', async () => {
    const { server, trace, client } = await start();
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_tasks', 4, 3).replace('    num_repeat: 3\n', '    num_repeat: 3\n    max_env_worker: 5\n'));
    // ceil(5 / 3) × 3 = 6 of the 12 a batch needs; finished slots are refilled.
    expect(server.snapshot().pool.registered).toBe(6);
    expect(trace.steps[1]?.reason).toContain('6 episodes registered (batch_size 4 × num_repeat 3, capped by max_env_worker 5)');
    await client.runEpisode('t', 1);
    expect(server.snapshot().pool.registered).toBe(6);
  });

  it('a reward of null is recorded but not counted, as upstream\'s trainer refuses it', async () => {
    const logs: string[] = [];
    const { server, client } = await start({ log: (_level, message) => logs.push(message) });
    await client.autoSyncTrainConfigAndStartEngine(jobYaml('rollout_until_finish_enough_episodes'));
    const episode = await client.beginEpisode();
    await client.endEpisode({ task_id: 'n' }, episode.episodeUuid, { reward: null });
    expect(server.snapshot().pool.completedEpisodes).toBe(0);
    expect(logs.some((line) => line.includes('reward null'))).toBe(true);
  });
});
