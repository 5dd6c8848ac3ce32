/**
 * What upstream's /start_engine refuses in the synced YAML (swarm_server.py start_engine → config_utils.py
 * prepare_experiment_config → read_ajet_hierarchical_config → the override callback → expand_ajet_hierarchical_config,
 * at c68c154). It reads some keys with `.get()` and others with `[...]`; a missing `[...]` key is a KeyError whose
 * text is the key in quotes, and the route answers HTTP 200 {"success":false,"error":"'defaults'"} with the status
 * left in ENGINE.BOOTING until /stop_engine (reference appendix points 6, 18). A YAML from AgentJetJob always has
 * these keys (it is the full Hydra config); hand-written or trimmed YAMLs often do not, and the GPU server would
 * then hang in BOOTING. The dry run refuses them the same way so the mistake shows here first.
 * Not modelled: Hydra's own compose errors (a `defaults` entry it cannot find) and the verl/ajet key-conflict check.
 */
import { parse } from 'yaml';
import { pyRepr } from './py-format';

/** The keys upstream reads with `[...]` on the way to starting the trainer. */
export type RequiredStartKey = 'ajet' | 'defaults' | 'interchange_server' | 'hydra';

export interface StartRefusal {
  /** What upstream's start_engine answers in `error` (str(e) of the exception). */
  error: string;
  /** The missing key, when that is the cause; null for a YAML that does not parse or has the wrong shape. */
  missingKey: RequiredStartKey | null;
}

type Mapping = Record<string, unknown>;
const isMapping = (value: unknown): value is Mapping => value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);

/** type(x).__name__ of a value yaml.safe_load returned. */
function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Date) return 'date';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

const noGet = (value: unknown): StartRefusal => ({ error: `'${typeName(value)}' object has no attribute 'get'`, missingKey: null });
const keyError = (key: RequiredStartKey): StartRefusal => ({ error: `'${key}'`, missingKey: key });

/** Why upstream's start_engine would fail on this synced YAML, in its words; null when it gets as far as the trainer. */
export function upstreamStartRefusal(yaml: string): StartRefusal | null {
  let doc: unknown;
  try {
    doc = parse(yaml, { version: '1.1', maxAliasCount: 100 });
  } catch (error) {
    // PyYAML's message differs in wording; the outcome (refused, stuck in BOOTING) is the same.
    return { error: `the YAML does not parse: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, missingKey: null };
  }
  // start_engine: config_dict.get("ajet", {}).get("backbone", "verl")
  if (!isMapping(doc)) return noGet(doc);
  const ajet = doc.ajet;
  if ('ajet' in doc && !isMapping(ajet)) return noGet(ajet);
  // prepare_experiment_config: config.get("ajet").get("experiment_name"), any exception re-raised as this ValueError.
  if (!isMapping(ajet)) return { error: `Please set ajet field in yaml file. Current yaml:\n${pyRepr(doc)}`, missingKey: 'ajet' };
  // read_ajet_hierarchical_config: `"trinity_default" in config["defaults"]` for the verl/debug backbones (and
  // "verl_default" for trinity); other backbones reach the same read in expand_ajet_hierarchical_config.
  const backbone = typeof ajet.backbone === 'string' ? ajet.backbone : 'verl';
  const readsDefaultsFirst = ['verl', 'debug', 'trinity'].includes(backbone);
  if (readsDefaultsFirst && !('defaults' in doc)) return keyError('defaults');
  const defaults = doc.defaults;
  const iterable = typeof defaults === 'string' || Array.isArray(defaults) || isMapping(defaults);
  if (readsDefaultsFirst && !iterable) return { error: `argument of type '${typeName(defaults)}' is not iterable`, missingKey: null };
  // override_param_callback: config["ajet"]["interchange_server"]["already_started"] = True
  if (!('interchange_server' in ajet)) return keyError('interchange_server');
  if (!isMapping(ajet.interchange_server)) return { error: `'${typeName(ajet.interchange_server)}' object does not support item assignment`, missingKey: null };
  // expand_ajet_hierarchical_config: config_final["defaults"] = config["defaults"]; config_final["hydra"] = config["hydra"]
  if (!('defaults' in doc)) return keyError('defaults');
  if (!('hydra' in doc)) return keyError('hydra');
  return null;
}
