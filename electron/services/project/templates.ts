import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { AppError } from '../../shared/errors';
import type { GeneratedFileName, RewardStyle, TrainingForm } from '../../shared/schemas-wizard';
import type { z } from 'zod';

/**
 * The Python templates in `resources/templates/` and how they are filled in (issue 16). Pure
 * functions over the template text: no file is written here (the project service does that, with
 * diffs and confirmation).
 *
 * A template holds `{{NAME}}` placeholders, each replaced by Python SOURCE built here (a string
 * literal, a number, True/False, an identifier checked to be one), so no value a user typed can
 * break out of its literal; `{{> file}}` includes a shared part. A placeholder left unfilled is a
 * bug in the template and refused (CODE_CHECK_FAILED), never written into the user's project.
 */
export interface ScaffoldVars {
  buildId: string;
  rewardStyle: z.infer<typeof RewardStyle>;
  /** The command that runs the user's agent ('' leaves a clearly marked TODO that explains itself when run). */
  agentCommand: string;
}

export const SCAFFOLD_FILES = ['get_training_dataset_item_list.py', 'run_episode_once.py'] as const;
export type ScaffoldFileName = (typeof SCAFFOLD_FILES)[number];

export interface TrainingCodeVars {
  form: z.infer<typeof TrainingForm>;
  /** Where the generated files go; the two files below are referred to relative to it. */
  buildDir: string;
  /** The dataset collector (imported by its module name from its own folder) and the episode runner (run as a script). */
  collectorFile: string;
  episodeFile: string;
}

type TemplateValues = Readonly<Record<string, string>>;

export async function renderScaffold(resourcesDir: string, vars: ScaffoldVars): Promise<Record<ScaffoldFileName, string>> {
  const values: TemplateValues = {
    BUILD_ID: vars.buildId,
    AGENT_COMMAND: pyString(vars.agentCommand.trim()),
    REWARD_STYLE: pyString(vars.rewardStyle),
    REWARD_STYLE_WORDS: vars.rewardStyle === 'native' ? "the agent's own score" : 'LLM as judge',
  };
  return {
    'get_training_dataset_item_list.py': await renderTemplate(resourcesDir, 'get_training_dataset_item_list.py.tmpl', values),
    'run_episode_once.py': await renderTemplate(resourcesDir, 'run_episode_once.py.tmpl', values),
  };
}

/** `agent_roll.py` and `agent_roll_one_episode_debug.py`; PROJECT_INVALID when the collector cannot be imported by its name. */
export async function renderTrainingCode(resourcesDir: string, vars: TrainingCodeVars): Promise<Record<z.infer<typeof GeneratedFileName>, string>> {
  const { form } = vars;
  const collectorModule = importableModuleName(vars.collectorFile);
  const lora = form.lora.rank > 0
    ? [
        `        lora_rank=${form.lora.rank},`,
        `        lora_alpha=${form.lora.alpha},`,
        `        lora_target_modules=${pyString(form.lora.targetModules)},`,
        `        lora_load_format=${pyString(form.lora.loadFormat)},`,
        `        layered_summon=${pyBool(form.lora.layeredSummon)},`,
        ...(form.lora.lr !== null ? [`        lr=${pyNumber(form.lora.lr)},`] : []),
      ]
    : form.lora.lr !== null
      ? [`        lr=${pyNumber(form.lora.lr)},`]
      : [];
  const values: TemplateValues = {
    COLLECTOR_DIR: pyString(relativePosix(vars.buildDir, dirname(vars.collectorFile))),
    EPISODE_RUNNER: pyString(relativePosix(vars.buildDir, vars.episodeFile)),
    COLLECTOR_MODULE: collectorModule,
    EXPERIMENT_NAME: pyString(form.experimentName),
    ALGORITHM: pyString(form.algorithm),
    GRPO_N: String(form.grpoN),
    NUM_EPOCH: String(form.epochs),
    BATCH_SIZE: String(form.batchSize),
    GPUS_PER_NODE: String(form.gpusPerNode),
    DISCARD_EPISODE_TIMEOUT: String(form.discardEpisodeTimeout),
    MODEL_PATH: pyString(form.modelPath),
    LORA_ARGS: lora.map((line) => `${line}\n`).join(''),
    // Written as a literal True/False in the call: the job runner's confirmation check reads the script for it.
    FORCE_RESTART: pyBool(form.forceRestart),
  };
  return {
    'agent_roll.py': await renderTemplate(resourcesDir, 'agent_roll.py.tmpl', values),
    'agent_roll_one_episode_debug.py': await renderTemplate(resourcesDir, 'agent_roll_one_episode_debug.py.tmpl', values),
  };
}

/** `resources/python/probe_dataset.py`: imports a collector file, prints its count and first items as the result line. */
export function datasetProbePath(resourcesDir: string): string {
  return `${resourcesDir}/python/probe_dataset.py`;
}

const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '),
);

/**
 * The module name `agent_roll.py` imports the collector by (`from <name> import get_training_dataset_item_list`):
 * the file's stem, which must be a Python identifier. PROJECT_INVALID names the rename otherwise.
 */
export function importableModuleName(file: string): string {
  const stem = basename(file).replace(/\.py$/, '');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(stem) || PYTHON_KEYWORDS.has(stem)) {
    const suggestion = stem.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(?=\d)/, '_');
    throw new AppError(
      'PROJECT_INVALID',
      `${file} cannot be imported by Python under its name "${stem}" (a module name is letters, digits and _, not starting with a digit, and not a Python keyword). Rename it, e.g. to ${suggestion || 'collector'}${PYTHON_KEYWORDS.has(stem) ? '_items' : ''}.py, then choose it again.`,
    );
  }
  return stem;
}

/** A Python string literal (JSON's escapes are valid Python escapes; non-ASCII stays readable). */
export function pyString(value: string): string {
  return JSON.stringify(value);
}

function pyBool(value: boolean): string {
  return value ? 'True' : 'False';
}

function pyNumber(value: number): string {
  if (!Number.isFinite(value)) throw new AppError('VALIDATION_FAILED', `${value} is not a finite number.`);
  return String(value);
}

/** A relative path with `/` separators (the same on every OS; Python's os.path.join accepts it on Windows too). */
function relativePosix(from: string, to: string): string {
  return (relative(from, to) || '.').split(sep).join('/');
}

const INCLUDE = /\{\{> ([A-Za-z0-9_.-]+)\}\}\n?/g;
const PLACEHOLDER = /\{\{([A-Z][A-Z0-9_]*)\}\}/g;

async function renderTemplate(resourcesDir: string, name: string, values: TemplateValues): Promise<string> {
  let text = await readTemplate(resourcesDir, name);
  const includes = [...text.matchAll(INCLUDE)].map((m) => m[1]!);
  for (const part of new Set(includes)) {
    const partText = await readTemplate(resourcesDir, part);
    text = text.split(`{{> ${part}}}\n`).join(partText).split(`{{> ${part}}}`).join(partText);
  }
  const unknown = new Set<string>();
  const filled = text.replace(PLACEHOLDER, (whole, key: string) => {
    const value = values[key];
    if (value === undefined) unknown.add(key);
    return value ?? whole;
  });
  if (unknown.size > 0) {
    throw new AppError(
      'CODE_CHECK_FAILED',
      `The app's template ${name} has placeholders it cannot fill (${[...unknown].join(', ')}): the app's resources folder is damaged. Reinstall the app; nothing was written.`,
    );
  }
  return filled;
}

async function readTemplate(resourcesDir: string, name: string): Promise<string> {
  const path = join(resourcesDir, 'templates', name);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new AppError(
      'CODE_CHECK_FAILED',
      `The app's template ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}): the app's resources folder is damaged. Reinstall the app; nothing was written.`,
      { cause: error },
    );
  }
}
