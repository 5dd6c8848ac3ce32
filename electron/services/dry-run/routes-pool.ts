/**
 * The rollout pool routes of upstream's swarm_server.py (c68c154): the pool information GET (overwatch, the app),
 * the trainer's push that answers the client instruction, /agree_sync_weight, and the verbose log the overwatch
 * header shows (reference §1.1, §1.2, appendix points 8, 16, 17).
 */
import type { SwarmState } from './engine-state';
import { UpstreamAssertion, type SwarmHttpApp } from './http-framework';
import * as M from './swarm-models';

const AGREE_METHODS = ['rollout_until_any_client_agree_sync_weight', 'rollout_until_all_clients_agree_sync_weight'];
const ok = (failure_reason = '') => ({ success: failure_reason === '', failure_reason });

export function registerPoolRoutes(app: SwarmHttpApp, state: SwarmState): void {
  app.route('GET', '/get_current_batch_rollout_pool_information', () => state.poolInformation());

  app.route<M.PoolInformation>(
    'POST',
    '/update_current_batch_rollout_pool_information_and_fetch_instruction',
    ({ body }) => state.storePool(body),
    M.CurrentBatchRolloutPoolInformation,
  );

  app.route<{ client_uuid: string }>(
    'POST',
    '/agree_sync_weight',
    ({ body }) => {
      const id = body.client_uuid;
      if (!id) return ok('client_uuid required');
      const method = state.pool.sample_collection_method;
      if (!AGREE_METHODS.includes(method)) {
        // Upstream asserts this: a plain-text 500 unless the trainer runs an agree method.
        throw new UpstreamAssertion(
          `agree_sync_weight is only valid when ajet.swarm_mode_sample_collection_method is one of ${AGREE_METHODS.join(', ')}, but the trainer is currently running with '${method}'.`,
        );
      }
      const client = state.activeClients.find((c) => c.client_uuid === id);
      if (!client) {
        return ok(`Client ${id} is not in the active list -- it must have completed at least one rewarded (non-abort) episode since the last weight sync before agreeing.`);
      }
      client.allowed_sync_weight = true;
      state.emit({ type: 'agree', clientUuid: id });
      state.emit({ type: 'changed' });
      return ok();
    },
    M.AgreeSyncWeightRequest,
  );

  app.route<{ tag: string; message: string }>(
    'POST',
    '/push_verbose_log',
    ({ body }) => {
      state.pushVerbose(body.tag, body.message);
      return ok();
    },
    M.PushVerboseLogRequest,
  );

  app.route('GET', '/get_verbose_logs', () => ({ entries: state.recentVerboseLogs() }));
}
