import type { GeneratedFileName, RewardStyle, TrainingForm } from '../../shared/schemas-wizard';
import type { z } from 'zod';

/**
 * The Python templates in `resources/templates/` and how they are filled in (issue 16). Pure
 * functions over the template text: no file is written here (the project service does that, with
 * diffs and confirmation). Owned by the templates helper; the wizard's project service calls these.
 */
export interface ScaffoldVars {
  buildId: string;
  rewardStyle: z.infer<typeof RewardStyle>;
  /** The command that runs the user's agent ('' leaves a clearly marked TODO that still runs). */
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

/** PLACEHOLDER signature (templates helper fills it in): the two scaffold files' text. */
export function renderScaffold(_resourcesDir: string, _vars: ScaffoldVars): Promise<Record<ScaffoldFileName, string>> {
  throw new Error('renderScaffold: not built yet');
}

/** PLACEHOLDER signature: `agent_roll.py` and `agent_roll_one_episode_debug.py`. */
export function renderTrainingCode(_resourcesDir: string, _vars: TrainingCodeVars): Promise<Record<z.infer<typeof GeneratedFileName>, string>> {
  throw new Error('renderTrainingCode: not built yet');
}

/** `resources/python/probe_dataset.py`: imports a collector file, prints its count and first items as the result line. */
export function datasetProbePath(resourcesDir: string): string {
  return `${resourcesDir}/python/probe_dataset.py`;
}
