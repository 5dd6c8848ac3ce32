/**
 * The agent-facing LLM routes of upstream's oai_model_server.py: /v1/chat/completions as c68c154 serves it (the
 * sk-ajet- routing key, the HTTP-200 "401" quirk, the swarm checks, llm_call_count and activity; reference §1.3,
 * appendix points 2, 15), and /v1/responses and /v1/messages as the newer upstream serves them (proper 401s,
 * x-api-key for messages; last appendix). After the server's own checks the call goes to the relay (the debug
 * LLM); with no relay the agent gets a 503 that says so. Also /replay_latest_llm_call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SwarmState } from './engine-state';
import { HttpError, type Log, type SwarmHttpApp } from './http-framework';
import { decodeUtf8, pyB64Decode, pyJsonLoads, pyTypeName, unixSeconds, type PyJson } from './py-format';
import type { LlmRelay, LlmRoute, RelayEpisode } from './relay-contract';
import { captureResponse, summariseOutput } from './response-capture';

const API_KEY_PREFIX = 'sk-ajet-';
export const NO_RELAY_DETAIL =
  'No debug LLM is configured for this dry run, so LLM calls cannot be answered. Set the debug LLM (base URL, model and key) in the dry run settings and start the dry run again.';
const NOT_ROLLING = 'The server is not in ENGINE.ROLLING status, cannot accept new requests.';

/** An exception upstream does not handle (a body that is not JSON, not a request of the route): the plain 500. */
class UnhandledRouteError extends Error {}

/** The routing key's decoded JSON, or the text of upstream's 401. */
function readRoutingKey(header: string | undefined): { episodeUuid: string } | { denied: string } {
  if (!header) return { denied: 'Missing authorization header' };
  try {
    const token = header.replaceAll('Bearer ', '').replaceAll('bearer ', '').replaceAll(API_KEY_PREFIX, '');
    const auth = pyJsonLoads(decodeUtf8(pyB64Decode(token)));
    if (auth === null || typeof auth !== 'object' || Array.isArray(auth)) throw new Error(`'${pyTypeName(auth)}' object has no attribute 'get'`);
    const { agent_name, target_tag, episode_uuid } = auth;
    if (!agent_name || !target_tag || !episode_uuid) return { denied: 'Invalid authorization data' };
    return { episodeUuid: String(episode_uuid) };
  } catch (error) {
    return { denied: `Invalid authorization header: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function parseJsonObject(raw: Buffer, route: LlmRoute): Record<string, PyJson> {
  let body: PyJson;
  try {
    body = pyJsonLoads(decodeUtf8(raw));
  } catch (error) {
    throw new UnhandledRouteError(`JSONDecodeError: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new UnhandledRouteError(`ValidationError: the ${route} request is not an object`);
  if (route !== 'responses' && !Array.isArray(body.messages)) throw new UnhandledRouteError(`ValidationError: the ${route} request has no messages list`);
  return body;
}

export interface LlmRouteDeps {
  app: SwarmHttpApp;
  state: SwarmState;
  relay: LlmRelay | undefined;
  log: Log;
  /** ajet.rollout.temperature of the running (or last synced) job; upstream's default 0.9 without one. */
  jobTemperature?: () => number | undefined;
}

export function registerLlmRoutes({ app, state, relay, log, jobTemperature }: LlmRouteDeps): void {
  const serve = async (route: LlmRoute, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<unknown> => {
    const header = route === 'messages' ? (req.headers.authorization ?? headerValue(req.headers['x-api-key'])) : req.headers.authorization;
    const key = readRoutingKey(header);
    if ('denied' in key) {
      // c68c154 *returns* the HTTPException from the chat route, so FastAPI answers it with HTTP 200; the newer
      // routes raise it (a real 401).
      if (route === 'chat') return { status_code: 401, detail: key.denied, headers: null };
      throw new HttpError(401, key.denied);
    }
    const body = parseJsonObject(raw, route);
    if (!state.isRolling()) throw new HttpError(404, NOT_ROLLING);
    const record = state.episodes.get(key.episodeUuid);
    if (!record) throw new HttpError(404, `Episode ${key.episodeUuid} not found.`);
    // Counted and refreshed before the claim check: a call to an unclaimed episode still counts (appendix 15).
    record.latest_activity_timestamp = unixSeconds();
    record.llm_call_count += 1;
    state.refreshClient(record.client_uuid);
    if (record.episode_status !== 'claimed') throw new HttpError(404, `The episode ${key.episodeUuid} is not claimed, cannot accept new requests.`);
    if (!relay) {
      log('warn', `LLM call of episode ${record.episode_uuid} refused: no debug LLM configured`);
      throw new HttpError(503, NO_RELAY_DETAIL);
    }
    const episode: RelayEpisode = {
      episodeUuid: record.episode_uuid,
      taskId: record.optional_task_id || null,
      clientUuid: record.client_uuid || null,
      step: state.step,
      isEval: record.episode_type === 'eval',
      sampling: { temperature: jobTemperature?.() ?? 0.9 },
      callIndex: record.llm_call_count,
      touch: () => {
        // Only while the record is still this claim (a revert or a new claim must not be refreshed by an old call).
        if (state.episodes.get(record.episode_uuid) === record && record.episode_status === 'claimed') {
          record.latest_activity_timestamp = unixSeconds();
          state.refreshClient(record.client_uuid);
        }
      },
    };
    const captured = captureResponse(res);
    try {
      await relay.handle(route, episode, body, req, res);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log('error', `the debug LLM relay failed for episode ${record.episode_uuid}: ${message}`);
      if (!res.headersSent) throw new HttpError(502, `The dry run's LLM relay failed: ${message}`);
      res.destroy();
      return undefined;
    }
    const output = captured.result();
    if (output.status >= 200 && output.status < 300) {
      state.latestLlmCall = { input: body, output: summariseOutput(route, output), ...(route === 'chat' ? {} : { format: route }) };
    }
    return undefined;
  };

  app.route('POST', '/v1/chat/completions', ({ req, res, raw }) => serve('chat', req, res, raw));
  app.route('POST', '/v1/responses', ({ req, res, raw }) => serve('responses', req, res, raw));
  app.route('POST', '/v1/messages', ({ req, res, raw }) => serve('messages', req, res, raw));

  app.route('POST', '/replay_latest_llm_call', () => {
    if (!state.latestLlmCall) throw new HttpError(404, 'No LLM call has been made yet');
    return state.latestLlmCall;
  });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
