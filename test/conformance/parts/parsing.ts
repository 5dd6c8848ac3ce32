// Request bodies as FastAPI parses them and pydantic 2 validates them (reference appendix points 11, 12).
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import { newClientUuid, newEpisodeUuid, STATUS } from '../support/swarm';

const MODEL_ATTRIBUTES = { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from' };

export function parsingPart(ctx: PartContext): void {
  describe('request parsing', () => {
    it('a missing field is 422 "missing" with its location, message and the input', async () => {
      const client = newClientUuid();
      const r = await ctx.swarm().post('/claim_episode', { client_uuid: client });
      expect(r.status).toBe(422);
      expect(r.json.detail).toHaveLength(2);
      expect(r.json.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'episode_type'], msg: 'Field required', input: { client_uuid: client } });
      expect(r.json.detail[1]).toMatchObject({ type: 'missing', loc: ['body', 'discard_episode_timeout'], msg: 'Field required' });
    });

    it('no body at all is 422 missing at ["body"]', async () => {
      const r = await ctx.swarm().call('POST', '/sync_train_config', { headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(422);
      expect(r.json.detail).toEqual([expect.objectContaining({ type: 'missing', loc: ['body'], msg: 'Field required' })]);
    });

    it('a JSON body with Content-Type text/plain, or with none, is not parsed: 422 model_attributes_type', async () => {
      const s = ctx.swarm();
      const body = JSON.stringify({ yaml_as_string: 'a: 1' });
      const variants: Array<Record<string, string>> = [{ 'content-type': 'text/plain' }, {}, { 'content-type': 'application/x-www-form-urlencoded' }];
      for (const headers of variants) {
        const r = await s.call('POST', '/sync_train_config', { body, headers });
        expect(r.status).toBe(422);
        expect(r.json.detail).toEqual([expect.objectContaining(MODEL_ATTRIBUTES)]);
      }
      // Nothing was synced: start_engine still has no config.
      expect((await s.post('/start_engine', {})).json).toEqual({ success: false, error: 'No training config found' });
    });

    it('application/json with parameters and application/*+json are parsed as JSON', async () => {
      const s = ctx.swarm();
      const body = JSON.stringify({ message: 'hello', tag: 't' });
      for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json', 'Application/JSON']) {
        const r = await s.call('POST', '/push_verbose_log', { body, headers: { 'content-type': type } });
        expect({ type, status: r.status, json: r.json }).toEqual({ type, status: 200, json: { success: true, failure_reason: '' } });
      }
    });

    it('a JSON body that is not an object is 422 model_attributes_type', async () => {
      for (const json of [[1, 2], 'text', 5]) {
        const r = await ctx.swarm().post('/sync_train_config', json);
        expect(r.status).toBe(422);
        expect(r.json.detail).toEqual([expect.objectContaining({ ...MODEL_ATTRIBUTES, input: json })]);
      }
    });

    it("malformed JSON is 422 json_invalid at ['body', <offset>] with Python's decoder message", async () => {
      const cases: Array<[string, number, string]> = [
        ['{not json', 1, 'Expecting property name enclosed in double quotes'],
        ['{"yaml_as_string": }', 19, 'Expecting value'],
        ['{"yaml_as_string" "x"}', 18, "Expecting ':' delimiter"],
        ['{"yaml_as_string": "x"', 22, "Expecting ',' delimiter"],
        ['{"yaml_as_string": "x",}', 23, 'Expecting property name enclosed in double quotes'],
        ['{"yaml_as_string": "x"} extra', 24, 'Extra data'],
        ['{"yaml_as_string": "x', 19, 'Unterminated string starting at'],
      ];
      for (const [body, pos, message] of cases) {
        const r = await ctx.swarm().call('POST', '/sync_train_config', { body, headers: { 'content-type': 'application/json' } });
        expect({ body, status: r.status }).toEqual({ body, status: 422 });
        expect(r.json.detail).toEqual([{ type: 'json_invalid', loc: ['body', pos], msg: 'JSON decode error', input: {}, ctx: { error: message } }]);
      }
    });

    it('pydantic lax mode: "true" for a bool and "5" for an int or float are accepted', async () => {
      const s = ctx.swarm();
      await s.syncAndStart();
      const r = await s.post('/update_engine_status', { engine_status: STATUS.ROLLING, global_step: '5' });
      expect(r.json).toEqual({ success: true, failure_reason: '' });
      expect((await s.engineStatus()).global_step).toBe(5);
      const episode = await s.register();
      const claim = await s.claim(newClientUuid(), { discardEpisodeTimeout: '30' });
      expect(claim.json).toMatchObject({ success: true, episode_uuid: episode });
      expect((await s.pool()).running_episode_details[episode].discard_episode_timeout).toBe('30.0s');
      const check = await s.post('/is_episode_claimed', { episode_uuid: episode, unregister_if_not_claimed: 'true' });
      expect(check.json).toEqual({ success: true, failure_reason: '' });
    });

    it('values that do not coerce are 422 int_parsing, float_parsing, bool_parsing and string_type', async () => {
      const s = ctx.swarm();
      const status = await s.post('/update_engine_status', { engine_status: STATUS.ROLLING, global_step: 'x' });
      expect(status.status).toBe(422);
      expect(status.json.detail).toEqual([expect.objectContaining({ type: 'int_parsing', loc: ['body', 'global_step'], input: 'x' })]);
      const timeout = await s.claim(newClientUuid(), { discardEpisodeTimeout: 'soon' });
      expect(timeout.json.detail).toEqual([expect.objectContaining({ type: 'float_parsing', loc: ['body', 'discard_episode_timeout'] })]);
      const flag = await s.post('/is_episode_claimed', { episode_uuid: newEpisodeUuid(), unregister_if_not_claimed: 'maybe' });
      expect(flag.json.detail).toEqual([expect.objectContaining({ type: 'bool_parsing', loc: ['body', 'unregister_if_not_claimed'] })]);
      const notString = await s.post('/sync_train_config', { yaml_as_string: 5 });
      expect(notString.json.detail).toEqual([expect.objectContaining({ type: 'string_type', loc: ['body', 'yaml_as_string'], input: 5 })]);
    });

    it('reward "abc" is 422 float_parsing inside workflow_output.reward', async () => {
      const s = ctx.swarm();
      const client = newClientUuid();
      const r = await s.end(client, newEpisodeUuid(), '1', 'abc');
      expect(r.status).toBe(422);
      const floatError = r.json.detail.find((d: { type: string }) => d.type === 'float_parsing');
      expect(floatError).toMatchObject({ loc: expect.arrayContaining(['body', 'workflow_output', 'reward']), input: 'abc' });
      expect(floatError.loc.slice(0, 3)).toEqual(['body', 'workflow_output', 'reward']);
    });

    it('a throttle_policy without expected_batch_size and expected_num_repeat is 422', async () => {
      const r = await ctx.swarm().claim(newClientUuid(), { throttlePolicy: { current_task_id: '7' } });
      expect(r.status).toBe(422);
      const locs = r.json.detail.map((d: { loc: unknown[] }) => d.loc);
      expect(locs).toEqual(
        expect.arrayContaining([
          ['body', 'throttle_policy', 'expected_batch_size'],
          ['body', 'throttle_policy', 'expected_num_repeat'],
        ]),
      );
      for (const d of r.json.detail) expect(d).toMatchObject({ type: 'missing', msg: 'Field required' });
    });

    it('routes without a body parameter ignore the body, even one that is not JSON', async () => {
      const s = ctx.swarm();
      const r = await s.call('POST', '/get_episode_buffer', { body: 'not json', headers: { 'content-type': 'application/json' } });
      expect(r).toMatchObject({ status: 200, json: { buffer: [] } });
      const stop = await s.call('POST', '/stop_engine');
      expect(stop.json).toEqual({ success: true, failure_reason: '' });
    });
  });
}
