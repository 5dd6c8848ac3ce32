// The engine status machine and its side effects: sync_train_config, start_engine, update_engine_status,
// get_engine_status, stop_engine (reference §1.1, §1.5, appendix points 1, 5–7, 18).
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import { JOB_YAML, MODEL_PATH, newClientUuid, STATUS } from '../support/swarm';

const ALL = Object.values(STATUS);

export function enginePart(ctx: PartContext): void {
  describe('engine status', () => {
    it('starts OFFLINE with null detail, step, experiment dir, boot time and model path', async () => {
      const s = ctx.swarm();
      expect(await s.engineStatus()).toEqual({ engine_status: STATUS.OFFLINE, engine_status_detail: null, global_step: null });
      expect((await s.get('/get_server_experiment_dir')).json).toEqual({ server_experiment_dir: null });
      expect(await s.pool()).toMatchObject({ engine_status: STATUS.OFFLINE, global_step: null, booting_start_time: null, training_model_path: null });
    });

    it('start_engine without a synced config answers 200 {success:false, error:"No training config found"}', async () => {
      const s = ctx.swarm();
      const r = await s.post('/start_engine', {});
      expect(r).toMatchObject({ status: 200, json: { success: false, error: 'No training config found' } });
      expect(Object.keys(r.json).sort()).toEqual(['error', 'success']);
      expect((await s.engineStatus()).engine_status).toBe(STATUS.OFFLINE);
    });

    it('sync_train_config accepts any string and reads ajet.model.path at sync time (null when absent)', async () => {
      const s = ctx.swarm();
      for (const yaml of ['anything: [not even yaml', '', 'just a string']) {
        expect((await s.post('/sync_train_config', { yaml_as_string: yaml })).json).toEqual({ success: true });
        expect((await s.pool()).training_model_path).toBeNull();
      }
      expect((await s.post('/sync_train_config', { yaml_as_string: JOB_YAML })).json).toEqual({ success: true });
      expect((await s.pool()).training_model_path).toBe(MODEL_PATH);
      expect((await s.engineStatus()).engine_status).toBe(STATUS.OFFLINE);
    });

    it('start_engine sets BOOTING with a booting_start_time; sync, start and code sync are then refused with 400', async () => {
      const s = ctx.swarm();
      const before = Date.now() / 1000;
      const started = await s.syncAndStart();
      // Either the trainer was spawned ({success, pid}) or the start failed after BOOTING ({success:false, error}).
      if (started.json.success) expect(started.json).toEqual({ success: true, pid: expect.any(Number) });
      else expect(started.json).toEqual({ success: false, error: expect.any(String) });
      expect(await s.engineStatus()).toEqual({ engine_status: STATUS.BOOTING, engine_status_detail: null, global_step: null });
      const pool = await s.pool();
      expect(pool.booting_start_time).toBeGreaterThanOrEqual(before - 1);
      expect(pool.training_model_path).toBe(MODEL_PATH);
      expect(await s.post('/sync_train_config', { yaml_as_string: JOB_YAML })).toMatchObject({
        status: 400,
        json: { detail: 'Engine is already started. Call `stop_engine` first before syncing new training configuration.' },
      });
      expect(await s.post('/start_engine', {})).toMatchObject({
        status: 400,
        json: { detail: 'Cannot start engine when engine is not offline. Current status: ENGINE.BOOTING' },
      });
      const code = await s.call('POST', '/sync_train_code', { body: 'PK', headers: { 'content-type': 'application/zip' } });
      expect(code).toMatchObject({ status: 400, json: { detail: 'Engine is already started. Call `stop_engine` first before syncing new training code.' } });
    });

    it('get_server_experiment_dir names an absolute experiment dir once a start spawned the trainer', async () => {
      const s = ctx.swarm();
      const started = await s.syncAndStart();
      const dir = (await s.get('/get_server_experiment_dir')).json;
      expect(Object.keys(dir)).toEqual(['server_experiment_dir']);
      // A start that failed inside the server (no trainer spawned) may leave it null; a spawned trainer has one.
      if (started.json.success) expect(dir.server_experiment_dir).toMatch(/^\//);
      else expect(dir.server_experiment_dir === null || String(dir.server_experiment_dir).startsWith('/')).toBe(true);
    });

    it('update_engine_status accepts exactly the six statuses; anything else is success:false "Invalid engine status"', async () => {
      const s = ctx.swarm();
      for (const bad of ['', 'ROLLING', 'engine.rolling', 'ENGINE.CANNOT_CONNECT', 'unknown']) {
        const r = await s.post('/update_engine_status', { engine_status: bad });
        expect(r).toMatchObject({ status: 200, json: { success: false, failure_reason: 'Invalid engine status' } });
      }
      expect((await s.post('/update_engine_status', {})).json).toEqual({ success: false, failure_reason: 'Invalid engine status' });
      for (const status of ALL) {
        expect((await s.post('/update_engine_status', { engine_status: status })).json).toEqual({ success: true, failure_reason: '' });
        expect((await s.engineStatus()).engine_status).toBe(status);
      }
    });

    it('global_step and engine_status_detail are set when given and never cleared by null', async () => {
      const s = ctx.swarm();
      await s.setStatus(STATUS.BOOTING, { engine_status_detail: 'loading weights', global_step: 3 });
      expect(await s.engineStatus()).toEqual({ engine_status: STATUS.BOOTING, engine_status_detail: 'loading weights', global_step: 3 });
      await s.setStatus(STATUS.ROLLING, { engine_status_detail: null, global_step: null });
      expect(await s.engineStatus()).toEqual({ engine_status: STATUS.ROLLING, engine_status_detail: 'loading weights', global_step: 3 });
      await s.setStatus(STATUS.ROLLING, { global_step: 0 });
      expect((await s.engineStatus()).global_step).toBe(0);
    });

    it('leaving BOOTING clears booting_start_time; an engine that dies while booting reads OFFLINE, global_step 0', async () => {
      const s = ctx.swarm();
      await s.syncAndStart();
      expect((await s.pool()).booting_start_time).not.toBeNull();
      // What execute_training_process's error handler posts when the trainer dies (no GPU, no vLLM).
      await s.setStatus(STATUS.OFFLINE, { global_step: 0 });
      expect(await s.engineStatus()).toEqual({ engine_status: STATUS.OFFLINE, engine_status_detail: null, global_step: 0 });
      expect((await s.pool()).booting_start_time).toBeNull();
      // It can be started again.
      expect((await s.post('/start_engine', {})).status).toBe(200);
      expect((await s.engineStatus()).engine_status).toBe(STATUS.BOOTING);
    });

    it('leaving ROLLING/ROLLING_POST wipes episodes and active clients; ROLLING ⇄ ROLLING_POST keeps them', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      const done = await s.claimed(client);
      expect((await s.end(client, done, 't1')).status).toBe(200);
      const kept = await s.claimed(client);
      await s.register();
      await s.setStatus(STATUS.ROLLING_POST);
      expect((await s.buffer()).length).toBe(2);
      expect((await s.pool()).swarm_client_instruction.active_clients).toHaveLength(1);
      await s.setStatus(STATUS.ROLLING);
      expect(await s.episode(kept)).toMatchObject({ episode_status: 'claimed' });
      await s.setStatus(STATUS.WEIGHT_SYNCING, { global_step: 1 });
      expect(await s.buffer()).toEqual([]);
      const pool = await s.pool();
      expect(pool.running_episode_details).toBeNull();
      expect(pool.swarm_client_instruction).toEqual({ active_clients: [] });
      await s.setStatus(STATUS.ROLLING, { global_step: 2 });
      expect((await s.claim(client)).json.fail_cause).toBe('No available episodes to claim. Try again (maybe 1 minute) later.');
    });

    it('stop_engine always answers {success:true, failure_reason:""} and goes OFFLINE, keeping step, detail, model path and boot time', async () => {
      const s = ctx.swarm();
      expect((await s.post('/stop_engine', {})).json).toEqual({ success: true, failure_reason: '' });
      await s.syncAndStart();
      const bootTime = (await s.pool()).booting_start_time;
      // The trainer reports its step and detail without ever leaving BOOTING, then a client stops the engine.
      await s.setStatus(STATUS.BOOTING, { global_step: 5, engine_status_detail: 'step 5' });
      const pushed = await s.pushPool({ sample_collection_method: 'rollout_until_finish_enough_tasks', completed_episodes: 7, completed_episode_target: 8 });
      expect(pushed.status).toBe(200);
      expect((await s.post('/stop_engine', {})).json).toEqual({ success: true, failure_reason: '' });
      expect(await s.engineStatus()).toEqual({ engine_status: STATUS.OFFLINE, engine_status_detail: 'step 5', global_step: 5 });
      expect(await s.pool()).toMatchObject({
        engine_status: STATUS.OFFLINE,
        global_step: 5,
        booting_start_time: bootTime,
        training_model_path: MODEL_PATH,
        completed_episodes: 7,
        completed_episode_target: 8,
      });
    });

    it('stop_engine drops every episode record but keeps the active clients', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      const ep = await s.claimed(client);
      expect((await s.end(client, ep, 't')).status).toBe(200);
      await s.claimed(client);
      await s.register();
      await s.post('/stop_engine', {});
      expect(await s.buffer()).toEqual([]);
      const pool = await s.pool();
      expect(pool.running_episode_details).toBeNull();
      expect(pool.swarm_client_instruction.active_clients.map((c: { client_uuid: string }) => c.client_uuid)).toEqual([client]);
      // Started again, the old episodes are gone for good.
      await s.post('/start_engine', {});
      await s.setStatus(STATUS.ROLLING, { global_step: 1 });
      expect((await s.claim(client)).json.fail_cause).toBe('No available episodes to claim. Try again (maybe 1 minute) later.');
    });
  });
}
