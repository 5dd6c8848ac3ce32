/**
 * The episode routes of upstream's swarm_server.py (c68c154): register (trainer), claim, end, abort,
 * can_continue, is_episode_claimed and the buffer, with upstream's status codes, fail_cause/detail strings and
 * order of checks (reference §1.1, §1.4, §1.5 "Episode lifecycle", appendix points 1, 3, 4, 16).
 */
import { DEBUG_EPISODE_MARK } from '../../shared/schemas-dryrun';
import { STATUS, scalarReward, type SwarmState, type TraceExtra } from './engine-state';
import { HttpError, UpstreamAssertion, type SwarmHttpApp } from './http-framework';
import * as M from './swarm-models';

/** The advice after "Engine not ready. Current status: [X]. " — clients match these substrings (§1.4). */
const NOT_READY_ADVICE: Record<string, string> = {
  [STATUS.OFFLINE]:
    'Please start the engine first. Please use one of the client to run `client.sync_train_config() + client.start_engine()` to start the engine.',
  [STATUS.BOOTING]: 'Please wait until the engine is fully booted. Try again (maybe 1 minute) later.',
  [STATUS.WEIGHT_SYNCING]: 'Engine is syncing weights. Try again (maybe 1 minute) later.',
  [STATUS.WEIGHT_EXPORTING]: 'Engine is exporting weights (fsdp -> hf safetensor). Try again (maybe 1 minute) later.',
  [STATUS.ROLLING_POST]: 'Engine is in post-rolling phase. Try again (maybe 1 minute) later.',
};

/** A debug episode's abort (DEBUG_EPISODE_MARK in its metadata): its reward, metadata and task, for the trace only. */
function debugAbort(body: M.EndBody): TraceExtra {
  const output = body.workflow_output;
  if (output.metadata?.[DEBUG_EPISODE_MARK] !== true) return {};
  return {
    debugReward: scalarReward(output.reward),
    metadata: output.metadata,
    detail: 'debug episode: given back with abort_episode by design, not trained on',
    ...(body.task_id ? { taskId: body.task_id } : {}),
  };
}

const ok = (failure_reason = '') => ({ success: failure_reason === '', failure_reason });
const notFound = { success: false, failure_reason: '' };

export function registerEpisodeRoutes(app: SwarmHttpApp, state: SwarmState): void {
  app.route<M.RegisterBody>(
    'POST',
    '/register_episode',
    ({ body }) => {
      if (state.status !== STATUS.ROLLING) return ok('Engine is not in rolling state. Cannot register episode.');
      state.registerEpisode(body);
      return ok();
    },
    M.RegisterEpisodeRequest,
  );

  app.route<M.ClaimBody>(
    'POST',
    '/claim_episode',
    ({ body }) => {
      const fail = (fail_cause: string) => ({ success: false, client_uuid: body.client_uuid, episode_uuid: '', openai_base_url: '', openai_api_key: '', fail_cause });
      // The status is checked before episode_type (appendix point 3).
      if (state.status !== STATUS.ROLLING) return fail(`Engine not ready. Current status: [${state.status}]. ${NOT_READY_ADVICE[state.status] ?? ''}`);
      if (body.episode_type !== 'train' && body.episode_type !== 'eval') throw new HttpError(400, `Unknown episode_type: ${body.episode_type}`);
      const claimed = state.claim(body);
      if (typeof claimed === 'string') return fail(claimed);
      return {
        success: true,
        client_uuid: body.client_uuid,
        episode_uuid: claimed.episode_uuid,
        openai_base_url: claimed.openai_base_url,
        openai_api_key: claimed.openai_api_key,
        fail_cause: '',
      };
    },
    M.ClaimEpisodeRequest,
  );

  app.route<M.EndBody>(
    'POST',
    '/end_episode',
    ({ body }) => {
      const status = state.status;
      if (!state.isRolling()) throw new HttpError(400, `Engine is not in rolling state. Current status: [${status}]. Cannot end episode.`);
      const metadata = body.workflow_output.metadata;
      // Upstream asserts these; a failed assert is Starlette's plain-text 500 (appendix point 4).
      if (!('task_id' in metadata)) throw new UpstreamAssertion('workflow_output.metadata must contain task_id');
      if (metadata.task_id !== body.task_id) throw new UpstreamAssertion('workflow_output.metadata.task_id must match req.task_id');
      const record = state.episodes.get(body.episode_uuid);
      if (!record) throw new HttpError(400, `Episode ${body.episode_uuid} not found.`);
      if (record.episode_status !== 'claimed') {
        throw new HttpError(
          400,
          `Episode ${body.episode_uuid} is not in claimed status, maybe you take **too long** to submit the workflow output, try increase \`discard_episode_timeout\` when \`begin_episode\`.`,
        );
      }
      if (record.client_uuid !== body.client_uuid) {
        throw new HttpError(404, `Episode ${body.episode_uuid} is claimed by different client: ${record.client_uuid}, but got ${body.client_uuid}.`);
      }
      const output = body.workflow_output;
      const traced = { reward: scalarReward(output.reward), metadata: output.metadata };
      if (record.episode_type === 'train') {
        state.finishEpisode(record.episode_uuid, output, body.task_id);
        // Only a train episode declares its client active; an eval one does not (appendix point 16).
        if (body.declare_client_active) state.registerClient(body.client_uuid);
      } else if (record.episode_type === 'eval') {
        const detail = 'eval episode: its output is not trained on';
        if (status === STATUS.ROLLING) state.revertToUnclaimed(record.episode_uuid, 'ended', { ...traced, detail: `${detail}; back to the pool` });
        else state.deleteEpisode(record.episode_uuid, 'ended', { ...traced, detail });
      } else throw new HttpError(400, `Unknown episode_type: ${record.episode_type}`);
      return { success: true };
    },
    M.EndEpisodeRequest,
  );

  app.route<M.EndBody>(
    'POST',
    '/abort_episode',
    ({ body }) => {
      if (!state.isRolling() || !state.episodes.has(body.episode_uuid)) return { success: true };
      // Upstream ignores an abort's workflow_output; the trace reads one thing from it: the debug script's mark.
      const debug = debugAbort(body);
      if (state.status === STATUS.ROLLING) state.revertToUnclaimed(body.episode_uuid, 'aborted', { detail: 'abort_episode: back to the pool', ...debug });
      else state.deleteEpisode(body.episode_uuid, 'aborted', { detail: 'abort_episode during ROLLING_POST: dropped', ...debug });
      if (body.declare_client_active) state.registerClient(body.client_uuid);
      return { success: true };
    },
    M.EndEpisodeRequest,
  );

  app.route<{ client_uuid: string; episode_uuid: string }>(
    'POST',
    '/can_continue_episode',
    ({ body }) => ({ can_continue: state.isRolling() && state.episodes.get(body.episode_uuid)?.episode_status === 'claimed' }),
    M.CanContinueEpisodeRequest,
  );

  app.route<{ episode_uuid: string; unregister_if_not_claimed: boolean }>(
    'POST',
    '/is_episode_claimed',
    ({ body }) => {
      const record = state.episodes.get(body.episode_uuid);
      if (!state.isRolling() || !record) return notFound;
      if (record.episode_status === 'claimed') return ok();
      if (body.unregister_if_not_claimed) state.deleteEpisode(body.episode_uuid, 'discarded', { detail: 'is_episode_claimed with unregister_if_not_claimed' });
      return notFound;
    },
    M.CheckWhetherEpisodeClaimedRequest,
  );

  app.route('POST', '/get_episode_buffer', () => ({ buffer: [...state.episodes.values()].map((record) => structuredClone(record)) }));
}
