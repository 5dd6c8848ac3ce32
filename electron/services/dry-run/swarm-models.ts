/**
 * Upstream's request models (ajet/tuner_lib/experimental/interchange_utils.py and ajet/schema/task.py at
 * c68c154; reference §1.2) in pydantic-lite, plus the TypeScript shapes the routes read after validation.
 */
import { t, type FieldSpec } from './pydantic-lite';

const floatList = t.list(t.float);

export const SyncTrainConfigRequest = t.model('SyncTrainConfigRequest', { yaml_as_string: [t.str] });

export const SwarmThrottlePolicy = t.model('SwarmThrottlePolicy', {
  ratio: [t.float, 1.5],
  expected_batch_size: [t.int],
  expected_num_repeat: [t.int],
  current_task_id: [t.str],
});

export const ClaimEpisodeRequest = t.model('ClaimEpisodeRequest', {
  client_uuid: [t.str],
  episode_type: [t.str],
  discard_episode_timeout: [t.float],
  throttle_policy: [t.nullable(SwarmThrottlePolicy), null],
});

export const WorkflowOutput = t.model('WorkflowOutput', {
  reward: [t.nullable(t.union([['float', t.float], ['list[float]', floatList]])), null],
  is_success: [t.nullable(t.bool), null],
  metadata: [t.dict(t.any), {}],
  log_metrics: [t.dict(t.union([['float', t.float], ['list[float]', floatList], ['dict[any,any]', t.dict(t.any)]])), {}],
});

export const EndEpisodeRequest = t.model('EndEpisodeRequest', {
  client_uuid: [t.str],
  episode_uuid: [t.str],
  workflow_output: [WorkflowOutput],
  task_id: [t.str],
  declare_client_active: [t.bool, true],
});

export const CanContinueEpisodeRequest = t.model('CanContinueEpisodeRequest', { client_uuid: [t.str], episode_uuid: [t.str] });

export const CheckWhetherEpisodeClaimedRequest = t.model('CheckWhetherEpisodeClaimedRequest', {
  episode_uuid: [t.str],
  unregister_if_not_claimed: [t.bool, false],
});

export const RegisterEpisodeRequest = t.model('RegisterEpisodeRequest', {
  episode_uuid: [t.str],
  openai_base_url: [t.str, ''],
  openai_api_key: [t.str, ''],
  zmq_listen_result_addr: [t.str, ''],
});

export const UpdateEngineStatusRequest = t.model('UpdateEngineStatusRequest', {
  engine_status: [t.str, ''],
  engine_status_detail: [t.nullable(t.str), null],
  global_step: [t.nullable(t.int), null],
});

export const PushVerboseLogRequest = t.model('PushVerboseLogRequest', { tag: [t.str, ''], message: [t.str] });

export const AgreeSyncWeightRequest = t.model('AgreeSyncWeightRequest', { client_uuid: [t.str] });

/** CurrentBatchRolloutPoolInformation, fields in upstream's order (the GET answers them in this order). */
const POOL_FIELDS: Record<string, FieldSpec> = {
  sample_collection_method: [t.str, ''],
  completed_episodes: [t.int, 0],
  completed_episode_target: [t.int, 0],
  completed_tasks: [t.int, 0],
  completed_task_target: [t.int, 0],
  completed_non_dummy_tasks: [t.int, 0],
  completed_non_dummy_task_target: [t.int, 0],
  task_expected_num_repeat: [t.int, 0],
  completed_tasks_details: [t.dict(t.list(t.str)), {}],
  completed_tasks_rewards: [t.dict(floatList), {}],
  completed_tasks_client_uuids: [t.dict(t.list(t.str)), {}],
  running_episode_details: [t.nullable(t.dict(t.dict(t.str))), null],
  engine_status: [t.nullable(t.str), null],
  global_step: [t.nullable(t.int), null],
  booting_start_time: [t.nullable(t.float), null],
  training_model_path: [t.nullable(t.str), null],
  swarm_client_instruction: [t.dict(t.any), {}],
};
export const CurrentBatchRolloutPoolInformation = t.model('CurrentBatchRolloutPoolInformation', POOL_FIELDS);

export interface PoolInformation {
  sample_collection_method: string;
  completed_episodes: number;
  completed_episode_target: number;
  completed_tasks: number;
  completed_task_target: number;
  completed_non_dummy_tasks: number;
  completed_non_dummy_task_target: number;
  task_expected_num_repeat: number;
  completed_tasks_details: Record<string, string[]>;
  completed_tasks_rewards: Record<string, number[]>;
  completed_tasks_client_uuids: Record<string, string[]>;
  running_episode_details: Record<string, Record<string, string>> | null;
  engine_status: string | null;
  global_step: number | null;
  booting_start_time: number | null;
  training_model_path: string | null;
  swarm_client_instruction: Record<string, unknown>;
}

/** CurrentBatchRolloutPoolInformation() with every default. */
export function defaultPool(): PoolInformation {
  const entries = Object.entries(POOL_FIELDS).map(([key, spec]) => [key, structuredClone(spec[1])]);
  return Object.fromEntries(entries) as PoolInformation;
}

export interface ThrottlePolicy {
  ratio: number;
  expected_batch_size: number;
  expected_num_repeat: number;
  current_task_id: string;
}
export interface ClaimBody {
  client_uuid: string;
  episode_type: string;
  discard_episode_timeout: number;
  throttle_policy: ThrottlePolicy | null;
}
export interface WorkflowOutputBody {
  reward: number | number[] | null;
  is_success: boolean | null;
  metadata: Record<string, unknown>;
  log_metrics: Record<string, unknown>;
}
export interface EndBody {
  client_uuid: string;
  episode_uuid: string;
  workflow_output: WorkflowOutputBody;
  task_id: string;
  declare_client_active: boolean;
}
export interface RegisterBody {
  episode_uuid: string;
  openai_base_url: string;
  openai_api_key: string;
  zmq_listen_result_addr: string;
}
