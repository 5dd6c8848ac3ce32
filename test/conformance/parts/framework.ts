// FastAPI/Starlette/uvicorn behaviour around the routes (reference appendix points 1, 11, 13).
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import { rawGet, rawPost, sendOnOneConnection } from '../support/http';
import { newClientUuid, STATUS } from '../support/swarm';

/** Every route of §1.1 (c68c154) with its method. */
export const ROUTES: Array<[string, string]> = [
  ['GET', '/health'],
  ['POST', '/v1/chat/completions'],
  ['POST', '/replay_latest_llm_call'],
  ['POST', '/sync_train_config'],
  ['POST', '/sync_train_code'],
  ['POST', '/start_engine'],
  ['POST', '/update_engine_status'],
  ['GET', '/get_engine_status'],
  ['GET', '/get_server_experiment_dir'],
  ['POST', '/register_episode'],
  ['POST', '/claim_episode'],
  ['POST', '/end_episode'],
  ['POST', '/abort_episode'],
  ['POST', '/can_continue_episode'],
  ['POST', '/is_episode_claimed'],
  ['POST', '/get_episode_buffer'],
  ['POST', '/update_current_batch_rollout_pool_information_and_fetch_instruction'],
  ['POST', '/agree_sync_weight'],
  ['GET', '/get_current_batch_rollout_pool_information'],
  ['POST', '/push_verbose_log'],
  ['GET', '/get_verbose_logs'],
  ['POST', '/stop_engine'],
];

export function frameworkPart(ctx: PartContext): void {
  describe('framework', () => {
    it('GET /health answers {"status":"ok"} as application/json', async () => {
      const r = await ctx.swarm().get('/health');
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ status: 'ok' });
      expect(r.headers['content-type']).toBe('application/json');
    });

    it('every route of §1.1 exists with its method and refuses the other one with 405', async () => {
      const s = ctx.swarm();
      for (const [method, path] of ROUTES) {
        const other = method === 'GET' ? 'POST' : 'GET';
        const wrong = await s.call(other, path);
        expect({ path, status: wrong.status, json: wrong.json }).toEqual({ path, status: 405, json: { detail: 'Method Not Allowed' } });
        expect(wrong.headers.allow).toBe(method);
      }
    });

    it('an unknown route is 404 {"detail":"Not Found"}', async () => {
      for (const path of ['/no_such_route', '/v1/models', '/update_current_batch_rollout_pool_information']) {
        const r = await ctx.swarm().get(path);
        expect({ path, status: r.status, json: r.json }).toEqual({ path, status: 404, json: { detail: 'Not Found' } });
      }
    });

    it('a trailing slash is redirected with 307 to the route without it', async () => {
      const s = ctx.swarm();
      const r = await s.call('GET', '/health/?x=1');
      expect(r.status).toBe(307);
      expect(new URL(String(r.headers.location)).pathname).toBe('/health');
      expect(new URL(String(r.headers.location)).search).toBe('?x=1');
      const post = await s.call('POST', '/start_engine/');
      expect(post.status).toBe(307);
      expect(new URL(String(post.headers.location)).pathname).toBe('/start_engine');
      // The redirect did not run the route.
      expect((await s.engineStatus()).engine_status).toBe(STATUS.OFFLINE);
    });

    it('serves /openapi.json (titled "AJet Interchange Endpoint", listing the routes) and /docs', async () => {
      const s = ctx.swarm();
      const api = await s.get('/openapi.json');
      expect(api.status).toBe(200);
      expect(api.json.info.title).toBe('AJet Interchange Endpoint');
      for (const [method, path] of ROUTES) expect(api.json.paths[path]?.[method.toLowerCase()], `${method} ${path}`).toBeDefined();
      const docs = await s.get('/docs');
      expect(docs.status).toBe(200);
      expect(docs.headers['content-type']).toMatch(/^text\/html/);
    });

    it('an unhandled error is a plain-text 500 without Connection: close, and the keep-alive connection is dropped', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const host = new URL(s.baseUrl).host;
      const client = newClientUuid();
      const noTaskId = rawPost('/end_episode', host, {
        client_uuid: client,
        episode_uuid: 'f'.repeat(32),
        task_id: '1',
        workflow_output: { reward: 1.0, metadata: {} },
      });
      // First: two requests on one connection work (keep-alive is on).
      const healthy = await sendOnOneConnection(s.baseUrl, [rawGet('/health', host), rawGet('/health', host)]);
      expect(healthy.map((r) => r.body)).toEqual(['{"status":"ok"}', '{"status":"ok"}']);
      const [first, second] = await sendOnOneConnection(s.baseUrl, [noTaskId, rawGet('/health', host)]);
      expect(first?.head).toMatch(/^HTTP\/1\.1 500 /);
      expect(first?.head).toMatch(/\r\ncontent-type: text\/plain; charset=utf-8/i);
      expect(first?.head).not.toMatch(/\r\nconnection: close/i);
      expect(first?.body).toBe('Internal Server Error');
      expect(second?.head).toBeUndefined();
      expect(second?.failure).toBeDefined();
      // A fresh connection works.
      expect((await s.get('/health')).json).toEqual({ status: 'ok' });
    });
  });
}
