/**
 * Reads the job YAML a client syncs (yaml.safe_dump of AgentJetJob's full Hydra config; reference §5.1): the few
 * settings the dry run's trainer acts on, with upstream's defaults (ajet_swarm_default.yaml), and the keys it does
 * not use, kept so the app can show them (they matter on the GPU server). Never throws: /sync_train_config
 * accepts any string, even invalid YAML (appendix point 5); a YAML that does not parse simply yields the defaults.
 */
import { parse } from 'yaml';

export const SAMPLE_COLLECTION_METHODS = [
  'rollout_until_finish_enough_episodes',
  'rollout_until_finish_enough_tasks',
  'rollout_until_finish_enough_non_dummy_tasks',
  'rollout_until_any_client_agree_sync_weight',
  'rollout_until_all_clients_agree_sync_weight',
] as const;
export type SampleCollectionMethod = (typeof SAMPLE_COLLECTION_METHODS)[number];

export const DEFAULT_METHOD: SampleCollectionMethod = 'rollout_until_finish_enough_tasks';

export interface TrainConfig {
  /** ajet.model.path; null when absent (upstream stores None). */
  modelPath: string | null;
  /** ajet.experiment_name; "read_yaml_name" means the trainer derives one. */
  experimentName: string;
  projectName: string;
  /** ajet.data.train_batch_size (32): tasks per training step. */
  batchSize: number;
  /** ajet.rollout.num_repeat (4): the GRPO group size, episodes per task. */
  numRepeat: number;
  sampleCollectionMethod: SampleCollectionMethod;
  /** Set when the YAML named a method upstream does not know (the dry run then uses the default, and says so). */
  unknownMethod: string | null;
  /** ajet.rollout.max_env_worker (128): upstream's cap on parallel episodes. */
  maxEnvWorker: number;
  /** ajet.rollout.temperature (0.9): what vLLM samples train episodes with, whatever the agent asked. */
  temperature: number;
  /** Whether the text parsed as a YAML mapping at all. */
  parsed: boolean;
  /** Dotted paths of the settings the dry run does not act on, in document order. */
  unknownKeys: string[];
}

/** What the dry run reads; every other leaf is listed as unknown. */
const USED_PATHS = new Set([
  'ajet.model.path',
  'ajet.experiment_name',
  'ajet.project_name',
  'ajet.data.train_batch_size',
  'ajet.rollout.num_repeat',
  'ajet.swarm_mode_sample_collection_method',
  'ajet.rollout.max_env_worker',
  'ajet.rollout.temperature',
]);
/** Hydra's own blocks: not job settings. */
const IGNORED_TOP_LEVEL = new Set(['hydra', 'defaults']);

type Mapping = Record<string, unknown>;
const isMapping = (value: unknown): value is Mapping => value !== null && typeof value === 'object' && !Array.isArray(value);

function at(doc: Mapping, path: string): unknown {
  let node: unknown = doc;
  for (const key of path.split('.')) node = isMapping(node) ? node[key] : undefined;
  return node;
}

const positiveInt = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback);

function parseMapping(yaml: string): Mapping | null {
  try {
    // PyYAML writes YAML 1.1; its scalars (yes/no, 1e-06 …) read the same way here.
    const doc: unknown = parse(yaml, { version: '1.1', maxAliasCount: 100 });
    return isMapping(doc) ? doc : null;
  } catch {
    return null;
  }
}

function leafPaths(node: Mapping, prefix: string, out: string[]): void {
  for (const [key, value] of Object.entries(node)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isMapping(value) && Object.keys(value).length > 0) leafPaths(value, path, out);
    else out.push(path);
  }
}

export function readTrainConfig(yaml: string): TrainConfig {
  const doc = parseMapping(yaml);
  const root = doc ?? {};
  const method = at(root, 'ajet.swarm_mode_sample_collection_method');
  const known = (SAMPLE_COLLECTION_METHODS as readonly unknown[]).includes(method);
  const modelPath = at(root, 'ajet.model.path');
  const experimentName = at(root, 'ajet.experiment_name');
  const projectName = at(root, 'ajet.project_name');
  const leaves: string[] = [];
  for (const [key, value] of Object.entries(root)) {
    if (IGNORED_TOP_LEVEL.has(key)) continue;
    if (isMapping(value) && Object.keys(value).length > 0) leafPaths(value, key, leaves);
    else leaves.push(key);
  }
  return {
    modelPath: typeof modelPath === 'string' ? modelPath : null,
    experimentName: typeof experimentName === 'string' && experimentName !== '' ? experimentName : 'read_yaml_name',
    projectName: typeof projectName === 'string' && projectName !== '' ? projectName : 'ajet_default_project',
    batchSize: positiveInt(at(root, 'ajet.data.train_batch_size'), 32),
    numRepeat: positiveInt(at(root, 'ajet.rollout.num_repeat'), 4),
    sampleCollectionMethod: known ? (method as SampleCollectionMethod) : DEFAULT_METHOD,
    unknownMethod: method === undefined || method === null || known ? null : String(method),
    maxEnvWorker: positiveInt(at(root, 'ajet.rollout.max_env_worker'), 128),
    temperature: typeof at(root, 'ajet.rollout.temperature') === 'number' ? (at(root, 'ajet.rollout.temperature') as number) : 0.9,
    parsed: doc !== null,
    unknownKeys: leaves.filter((path) => !USED_PATHS.has(path)),
  };
}

/**
 * The experiment's name as the trainer names it: the YAML's experiment_name, or for "read_yaml_name" (upstream then
 * takes the temp YAML's base name plus a timestamp) a dry-run name plus the timestamp.
 */
export function experimentName(config: TrainConfig, now = new Date()): string {
  if (config.experimentName !== 'read_yaml_name') return config.experimentName;
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `dry_run_${stamp}`;
}
