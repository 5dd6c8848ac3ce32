import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { z } from 'zod';
import { AppError } from '../../shared/errors';
import type { GeneratedFileName, RewardStyle, TrainingForm } from '../../shared/schemas-wizard';

/**
 * The Python templates in `resources/templates/` and how they are filled in (issue 16). Pure
 * functions over the template text: no file is written here (the project service does that, with
 * diffs and confirmation). Owned by the templates helper; the wizard's project service calls these.
 *
 * Template syntax: `{{NAME}}` is replaced by a value the caller made Python source of (every user
 * value through `pythonLiteral`, never pasted raw); a line `{{INCLUDE file}}` is replaced by that
 * file of the same folder. A placeholder without a value, or a value without a placeholder, is a
 * bug in this file and throws.
 */
export interface ScaffoldVars {
  buildId: string;
  rewardStyle: z.infer<typeof RewardStyle>;
  /**
   * The command that runs the user's agent ('' leaves a clearly marked TODO that still runs).
   * Split like a shell would (no shell runs it); `{item_id}` is the item id and `{python}` the
   * interpreter running the episode, e.g. `{python} agent.py --item {item_id}`. It runs from the
   * project root with the episode's endpoint in OPENAI_BASE_URL/BASE_URL, OPENAI_API_KEY/API_KEY
   * and OPENAI_MODEL.
   */
  agentCommand: string;
}

export const SCAFFOLD_FILES = ['get_training_dataset_item_list.py', 'run_episode_once.py'] as const;
export type ScaffoldFileName = (typeof SCAFFOLD_FILES)[number];

export interface TrainingCodeVars {
  form: z.infer<typeof TrainingForm>;
  /** Module names (file stems) of the collector and the episode runner, importable from the build folder. */
  collectorModule: string;
  episodeModule: string;
}

type GeneratedName = z.infer<typeof GeneratedFileName>;

/** A value that can be written as a Python literal. */
export type PythonValue = string | number | boolean | null | readonly PythonValue[] | { readonly [key: string]: PythonValue };

/**
 * `value` as Python source that evaluates to it: a double-quoted string with every quote,
 * backslash, line break and control character escaped (so no value can end the literal and
 * become code), `True`/`False`/`None`, numbers, lists and dicts. Non-ASCII text stays readable
 * except the characters some editors treat as line breaks, and lone surrogates.
 */
export function pythonLiteral(value: PythonValue): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`pythonLiteral: ${value} has no Python literal`);
    return Object.is(value, -0) ? '0' : String(value);
  }
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value)) return `[${(value as readonly PythonValue[]).map(pythonLiteral).join(', ')}]`;
  const entries = Object.entries(value as { readonly [key: string]: PythonValue });
  return `{${entries.map(([k, v]) => `${pythonString(k)}: ${pythonLiteral(v)}`).join(', ')}}`;
}

/** A float literal even for whole numbers (`1` → `1.0`), so YAML and validations see a float. */
export function pythonFloat(value: number | null): string {
  if (value === null) return 'None';
  const text = pythonLiteral(value);
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}

const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function pythonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    const code = text.charCodeAt(i);
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A pair is one character: written as is (UTF-8 source), never as two \u escapes (which Python would keep as two).
      out += ch + text[i + 1]!;
      i += 1;
    } else if ((code >= 0xd800 && code <= 0xdfff) || code === 0x85 || code === 0x2028 || code === 0x2029 || (code >= 0x80 && code < 0xa0)) {
      out += `\\u${hex(code, 4)}`;
    } else out += ch;
  }
  return `${out}"`;
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
const hex = (code: number, width: number): string => code.toString(16).padStart(width, '0');

/** Python's keywords: valid identifiers that still cannot be a module name in `from X import …`. */
const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '),
);

/** An ASCII Python identifier that is not a keyword (what `from <name> import …` accepts). */
export function isPythonModuleName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PYTHON_KEYWORDS.has(name);
}

/**
 * Modules the roll scripts import themselves: the build folder comes first on `sys.path`, so a
 * collector or episode file of one of these names would replace it and break the script.
 */
const SHADOWED_MODULES = new Set(
  'ajet argparse concurrent hashlib inspect json os random re shlex subprocess sys threading time traceback typing urllib'.split(' '),
);

/** Text for a docstring or comment: only characters that cannot end it. */
function docText(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, '_');
}

async function readTemplate(dir: string, name: string): Promise<string> {
  return readFile(join(dir, name), 'utf8');
}

/** Fills in the placeholders and includes of one template (see the file comment). */
export async function renderTemplate(resourcesDir: string, name: string, values: Readonly<Record<string, string>>): Promise<string> {
  const dir = join(resourcesDir, 'templates');
  let text = await readTemplate(dir, name);
  const includes = [...text.matchAll(/^\{\{INCLUDE ([A-Za-z0-9_.-]+)\}\}$/gm)];
  for (const match of includes) {
    const part = (await readTemplate(dir, match[1]!)).replace(/\n$/, '');
    // A function, so `$` in the part is never read as a replacement pattern.
    text = text.replace(match[0], () => part);
  }
  const used = new Set<string>();
  const rendered = text.replace(/\{\{([A-Z][A-Z0-9_]*)\}\}/g, (_whole, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`template ${name}: no value for {{${key}}}`);
    used.add(key);
    return value;
  });
  const unused = Object.keys(values).filter((key) => !used.has(key));
  if (unused.length > 0) throw new Error(`template ${name}: ${unused.join(', ')} not used`);
  return rendered;
}

/** The two scaffold files' text: the dataset collector and the episode runner. */
export async function renderScaffold(resourcesDir: string, vars: ScaffoldVars): Promise<Record<ScaffoldFileName, string>> {
  const buildId = docText(vars.buildId);
  return {
    'get_training_dataset_item_list.py': await renderTemplate(resourcesDir, 'get_training_dataset_item_list.py.tmpl', { BUILD_ID: buildId }),
    'run_episode_once.py': await renderTemplate(resourcesDir, 'run_episode_once.py.tmpl', {
      BUILD_ID: buildId,
      AGENT_COMMAND: pythonLiteral(vars.agentCommand.trim()),
      REWARD_STYLE: pythonLiteral(vars.rewardStyle),
    }),
  };
}

/**
 * `agent_roll.py` and `agent_roll_one_episode_debug.py` from the training form. The engine
 * restart (which ends training for every client) is written only when the form asks for it, and
 * only into `agent_roll.py`: the job runner asks the user to confirm a script that contains it.
 */
export async function renderTrainingCode(resourcesDir: string, vars: TrainingCodeVars): Promise<Record<GeneratedName, string>> {
  requireImportableModule('dataset collector', vars.collectorModule);
  requireImportableModule('episode runner', vars.episodeModule);

  const { form } = vars;
  const common: Record<string, string> = {
    EXPERIMENT_NAME_TEXT: docText(form.experimentName),
    COLLECTOR_MODULE: vars.collectorModule,
    EPISODE_MODULE: vars.episodeModule,
    EXPERIMENT_NAME: pythonLiteral(form.experimentName),
    ALGORITHM: pythonLiteral(form.algorithm),
    GRPO_N: pythonLiteral(form.grpoN),
    NUM_EPOCH: pythonLiteral(form.epochs),
    BATCH_SIZE: pythonLiteral(form.batchSize),
    N_GPU: pythonLiteral(form.gpusPerNode),
    MODEL_PATH: pythonLiteral(form.modelPath),
    DISCARD_EPISODE_TIMEOUT: pythonLiteral(form.discardEpisodeTimeout),
    SAMPLE_COLLECTION_METHOD: pythonLiteral(form.sampleCollectionMethod),
    LORA_RANK: pythonLiteral(form.lora.rank),
    LORA_ALPHA: pythonLiteral(form.lora.alpha),
    LORA_TARGET_MODULES: pythonLiteral(form.lora.targetModules),
    LORA_LOAD_FORMAT: pythonLiteral(form.lora.loadFormat),
    LAYERED_SUMMON: pythonLiteral(form.lora.layeredSummon),
    LR: pythonFloat(form.lora.lr),
  };
  const engineStart = form.forceRestart
    ? [
        '    # The training form asked to restart the engine first: this ENDS THE TRAINING OF EVERY CLIENT of this server.',
        `    swarm_worker.auto_sync_train_config_and_start_engine(ajet_job, ${'force_restart'}=True)`,
      ]
    : ['    join_or_start_engine(swarm_worker, ajet_job)'];
  return {
    'agent_roll.py': await renderTemplate(resourcesDir, 'agent_roll.py.tmpl', { ...common, ENGINE_START: engineStart.join('\n') }),
    'agent_roll_one_episode_debug.py': await renderTemplate(resourcesDir, 'agent_roll_one_episode_debug.py.tmpl', common),
  };
}

/**
 * PROJECT_INVALID unless the training scripts can import `<name>.py` by its name: a Python identifier
 * that does not replace a module they import themselves. The project step checks adopted files with
 * it too, so a bad name is refused when the file is chosen, not when the code is generated.
 */
export function requireImportableModule(what: string, name: string): void {
  if (!isPythonModuleName(name)) {
    throw new AppError(
      'PROJECT_INVALID',
      `The ${what} file "${name}.py" cannot be imported by the training scripts: its name must be a Python identifier (letters, digits and _, not starting with a digit, not a keyword). Rename it, e.g. to ${suggestModuleName(name)}.py, and choose it again.`,
    );
  }
  if (SHADOWED_MODULES.has(name)) {
    throw new AppError(
      'PROJECT_INVALID',
      `The ${what} file "${name}.py" has the name of a module the training scripts import (${name}), so it would replace that module. Rename it, e.g. to my_${name}.py, and choose it again.`,
    );
  }
}

/** A module name close to `name` that Python accepts (shown in the rename hint). */
function suggestModuleName(name: string): string {
  let fixed = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(fixed)) fixed = `_${fixed}`;
  return PYTHON_KEYWORDS.has(fixed) ? `${fixed}_` : fixed;
}

/** `get_training_dataset_item_list.py` → `get_training_dataset_item_list` (what the training scripts import). */
export function moduleName(file: string): string {
  return basename(file).replace(/\.py$/, '');
}

/** `resources/python/probe_dataset.py`: imports a collector file, prints its count and first items as the result line. */
export function datasetProbePath(resourcesDir: string): string {
  return `${resourcesDir}/python/probe_dataset.py`;
}
