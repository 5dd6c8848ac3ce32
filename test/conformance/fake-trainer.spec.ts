// The fake swarm server's trainer mode (AJET_FAKE_TRAINER=fake, a TEST DOUBLE of upstream's trainer): it ends a
// training step the way upstream's native_parallel_worker does, by the synced job's
// swarm_mode_sample_collection_method (reference §5.1, §6.2 "Batching" and the pool info's targets, §1.2). Not part
// of the protocol suite — upstream's server has a real trainer — but a fake that advanced on the wrong condition
// would let a client script with wrong task grouping pass here and wait for ever on a real server.
// Driven over HTTP only, like the suite.
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../fixtures/fake-swarm/server.mjs';
import { eventually, MODEL_PATH, newClientUuid, STATUS, Swarm } from './support/swarm';
import { upstreamJob } from '../support/job-yaml';

const BATCH = 2;
const REPEAT = 2;
/** A job YAML as yaml.safe_dump writes it; without a method line upstream's default applies. */
function jobYaml(method?: string): string {
  const methodLine = method ? `  swarm_mode_sample_collection_method: ${method}\n` : '';
  return upstreamJob(`  model:\n    path: ${MODEL_PATH}\n  data:\n    train_batch_size: ${BATCH}\n  rollout:\n    num_repeat: ${REPEAT}\n${methodLine}`);
}

let fake: FakeSwarmHandle | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A fake playing the trainer, synced with the job and started; returns once it is ROLLING at step 1. */
async function rollingFake(method?: string): Promise<Swarm> {
  fake = await startFakeSwarmServer({ port: 0, quiet: true, trainer: 'fake', bootDelayMs: 50, weightSyncDelayMs: 50, rollingPostMaxMs: 500 });
  const s = new Swarm(fake.url);
  expect((await s.post('/sync_train_config', { yaml_as_string: jobYaml(method) })).json).toEqual({ success: true });
  expect((await s.post('/start_engine', {})).json).toEqual({ success: true, pid: expect.any(Number) });
  await eventually('ROLLING at step 1', 5000, async () => {
    const st = await s.engineStatus();
    return st.engine_status === STATUS.ROLLING && st.global_step === 1 ? st : undefined;
  });
  return s;
}

/** Claims one of the episodes the fake trainer registered and ends it as a train episode of taskId. */
async function finishOne(s: Swarm, client: string, taskId: string, reward = 1.0): Promise<void> {
  const claim = await s.claim(client);
  expect(claim.json).toMatchObject({ success: true });
  expect(await s.end(client, claim.json.episode_uuid, taskId, reward)).toMatchObject({ status: 200, json: { success: true } });
}

/** The step stays ROLLING at step 1 for a while (the trainer checks on every change; 300 ms is many changes). */
async function expectStillRollingAtStep1(s: Swarm): Promise<void> {
  await new Promise((ok) => setTimeout(ok, 300));
  expect(await s.engineStatus()).toMatchObject({ engine_status: STATUS.ROLLING, global_step: 1 });
}

/** The step ended: ROLLING_POST, WEIGHT_SYNCING, then ROLLING at step 2. */
async function expectNextStep(s: Swarm): Promise<void> {
  await eventually('ROLLING at step 2', 5000, async () => {
    const st = await s.engineStatus();
    return st.engine_status === STATUS.ROLLING && st.global_step === 2 ? st : undefined;
  });
  expect(fake?.state.statusHistory).toEqual([
    STATUS.OFFLINE,
    STATUS.BOOTING,
    STATUS.ROLLING,
    STATUS.ROLLING_POST,
    STATUS.WEIGHT_SYNCING,
    STATUS.ROLLING,
  ]);
}

describe('fake trainer mode: a step ends by swarm_mode_sample_collection_method', () => {
  it('publishes the method and the targets of batch_size and num_repeat in the pool information', async () => {
    const s = await rollingFake('rollout_until_finish_enough_non_dummy_tasks');
    expect(await s.pool()).toMatchObject({
      sample_collection_method: 'rollout_until_finish_enough_non_dummy_tasks',
      completed_episodes: 0,
      completed_episode_target: BATCH * REPEAT,
      completed_tasks: 0,
      completed_task_target: BATCH,
      completed_non_dummy_tasks: 0,
      completed_non_dummy_task_target: BATCH,
      task_expected_num_repeat: REPEAT,
      training_model_path: MODEL_PATH,
    });
    // One registered episode per parallel slot: batch_size × num_repeat.
    expect((await s.buffer()).filter((e) => e.episode_status === 'registered')).toHaveLength(BATCH * REPEAT);
  });

  it('registers episodes a real client can use: base URL on the loopback port, a decodable sk-ajet- key that chat accepts', async () => {
    const s = await rollingFake();
    const client = newClientUuid();
    const claim = (await s.claim(client)).json;
    // Reference appendix: a test double answers http://127.0.0.1:<port>/v1 (the client swaps the host anyway).
    expect(claim).toMatchObject({ success: true, openai_base_url: `${s.baseUrl}/v1`, fail_cause: '' });
    expect(claim.episode_uuid).toMatch(/^[0-9a-f]{32}$/);
    const routing = JSON.parse(Buffer.from(String(claim.openai_api_key).replace(/^sk-ajet-/, ''), 'base64').toString('utf8'));
    expect(routing).toEqual({
      agent_name: 'default_agent_name',
      target_tag: 'default_target_tag',
      episode_uuid: claim.episode_uuid,
      episode_address: `ipc:///tmp/agentjet/${claim.episode_uuid}-default_target_tag.sock`,
    });
    const answer = await s.call('POST', '/v1/chat/completions', {
      json: { model: 'whatever', messages: [{ role: 'user', content: 'ping' }] },
      headers: { authorization: `Bearer ${claim.openai_api_key}` },
    });
    expect(answer).toMatchObject({ status: 200, json: { object: 'chat.completion' } });
    expect((await s.pool()).running_episode_details[claim.episode_uuid].llm_call_count).toBe('1');
  });

  it('enough tasks (the default): batch_size × num_repeat episodes of distinct task ids do not end the step', async () => {
    const s = await rollingFake();
    expect((await s.pool()).sample_collection_method).toBe('rollout_until_finish_enough_tasks');
    const client = newClientUuid();
    // Wrong grouping: every episode a task of its own. A real trainer waits for ever; so must the fake.
    for (let i = 0; i < BATCH * REPEAT; i++) await finishOne(s, client, `lonely-${i}`);
    await expectStillRollingAtStep1(s);
    expect(await s.pool()).toMatchObject({ completed_episodes: BATCH * REPEAT, completed_tasks: 0 });
    // Right grouping: batch_size task ids with num_repeat finished episodes each.
    await finishOne(s, client, 'a');
    await finishOne(s, client, 'a');
    await finishOne(s, client, 'b');
    await expectStillRollingAtStep1(s);
    expect(await s.pool()).toMatchObject({ completed_tasks: 1, completed_tasks_details: { a: [expect.any(String), expect.any(String)] } });
    await finishOne(s, client, 'b');
    await expectNextStep(s);
  });

  it('enough episodes: batch_size × num_repeat finished episodes end the step whatever their task ids', async () => {
    const s = await rollingFake('rollout_until_finish_enough_episodes');
    const client = newClientUuid();
    for (let i = 0; i < BATCH * REPEAT - 1; i++) await finishOne(s, client, `t-${i}`);
    await expectStillRollingAtStep1(s);
    await finishOne(s, client, 't-last');
    await expectNextStep(s);
  });

  it('enough non-dummy tasks: tasks whose rewards are all equal do not count', async () => {
    const s = await rollingFake('rollout_until_finish_enough_non_dummy_tasks');
    const client = newClientUuid();
    for (const task of ['same-1', 'same-2']) {
      await finishOne(s, client, task, 1.0);
      await finishOne(s, client, task, 1.0);
    }
    await expectStillRollingAtStep1(s);
    expect(await s.pool()).toMatchObject({ completed_tasks: 2, completed_non_dummy_tasks: 0 });
    await finishOne(s, client, 'mixed-1', 1.0);
    await finishOne(s, client, 'mixed-1', 0.0);
    await expectStillRollingAtStep1(s);
    expect((await s.pool()).completed_non_dummy_tasks).toBe(1);
    await finishOne(s, client, 'mixed-2', 0.0);
    await finishOne(s, client, 'mixed-2', 0.5);
    await expectNextStep(s);
  });

  it('any client agrees: finished episodes alone never end the step; one active client agreeing does', async () => {
    const s = await rollingFake('rollout_until_any_client_agree_sync_weight');
    const [a, b] = [newClientUuid(), newClientUuid()];
    for (const task of ['x', 'y', 'z']) {
      await finishOne(s, a, task);
      await finishOne(s, b, task);
    }
    await expectStillRollingAtStep1(s);
    expect((await s.post('/agree_sync_weight', { client_uuid: b })).json).toEqual({ success: true, failure_reason: '' });
    await expectNextStep(s);
  });

  it('all clients agree: the step waits for every active client, then ends', async () => {
    const s = await rollingFake('rollout_until_all_clients_agree_sync_weight');
    const [a, b] = [newClientUuid(), newClientUuid()];
    await finishOne(s, a, 'x');
    await finishOne(s, b, 'x');
    expect((await s.post('/agree_sync_weight', { client_uuid: a })).json).toEqual({ success: true, failure_reason: '' });
    await expectStillRollingAtStep1(s);
    expect((await s.pool()).swarm_client_instruction.active_clients.map((c: { allowed_sync_weight: boolean }) => c.allowed_sync_weight)).toEqual([true, false]);
    expect((await s.post('/agree_sync_weight', { client_uuid: b })).json).toEqual({ success: true, failure_reason: '' });
    await expectNextStep(s);
  });

  it('in trainer mode "external" nothing moves after /start_engine', async () => {
    fake = await startFakeSwarmServer({ port: 0, quiet: true, trainer: 'external', bootDelayMs: 20 });
    const s = new Swarm(fake.url);
    await s.syncAndStart(jobYaml());
    await new Promise((ok) => setTimeout(ok, 200));
    expect(await s.engineStatus()).toEqual({ engine_status: STATUS.BOOTING, engine_status_detail: null, global_step: null });
    expect(await s.buffer()).toEqual([]);
  });
});
