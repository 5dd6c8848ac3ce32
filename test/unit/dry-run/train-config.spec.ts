// The job YAML as the dry run reads it: what yaml.safe_dump of an AgentJetJob looks like, upstream's defaults,
// anything that is not YAML, an unknown method, and the keys kept for display.
import { describe, expect, it } from 'vitest';
import { readTrainConfig } from '../../../electron/services/dry-run/train-config';

// Shaped like PyYAML's safe_dump(sort_keys=False) output: quoted strings only where needed, YAML 1.1 floats,
// block lists, and the Hydra blocks at the end.
const SAFE_DUMP = `ajet:
  project_name: my_project
  experiment_name: math_agent
  experiment_dir: auto
  backbone: verl
  model:
    path: /mnt/models/Qwen2.5-7B-Instruct
  rollout:
    max_env_worker: 64
    num_repeat: 8
    compute_madness_checklist:
    - nonsense
    temperature: 0.9
  data:
    train_batch_size: 16
  trainer_common:
    optim:
      lr: 1.0e-06
  swarm_mode_sample_collection_method: rollout_until_finish_enough_non_dummy_tasks
actor_rollout_ref:
  rollout:
    name: vllm
defaults:
- verl_default
- ajet_default
- _self_
hydra:
  searchpath:
  - pkg://ajet/default_config
`;

describe('readTrainConfig', () => {
  it('reads the settings the trainer acts on from a safe_dump of a job', () => {
    const config = readTrainConfig(SAFE_DUMP);
    expect(config).toMatchObject({
      modelPath: '/mnt/models/Qwen2.5-7B-Instruct',
      experimentName: 'math_agent',
      projectName: 'my_project',
      batchSize: 16,
      numRepeat: 8,
      maxEnvWorker: 64,
      temperature: 0.9,
      sampleCollectionMethod: 'rollout_until_finish_enough_non_dummy_tasks',
      unknownMethod: null,
      parsed: true,
    });
    expect(config.unknownKeys).toEqual([
      'ajet.experiment_dir',
      'ajet.backbone',
      'ajet.rollout.compute_madness_checklist',
      'ajet.trainer_common.optim.lr',
      'actor_rollout_ref.rollout.name',
    ]);
  });

  it('falls back to upstream defaults for anything that is not a YAML mapping, without throwing', () => {
    for (const text of ['', 'just a string', 'anything: [not even yaml', '- a\n- b\n', '{{{']) {
      const config = readTrainConfig(text);
      expect(config).toMatchObject({ modelPath: null, batchSize: 32, numRepeat: 4, sampleCollectionMethod: 'rollout_until_finish_enough_tasks', experimentName: 'read_yaml_name' });
    }
    expect(readTrainConfig('just a string').parsed).toBe(false);
  });

  it('an unknown method or a nonsense batch size keeps the default and remembers what was asked', () => {
    const config = readTrainConfig('ajet:\n  swarm_mode_sample_collection_method: until_bored\n  data:\n    train_batch_size: -3\n');
    expect(config).toMatchObject({ sampleCollectionMethod: 'rollout_until_finish_enough_tasks', unknownMethod: 'until_bored', batchSize: 32 });
  });
});
