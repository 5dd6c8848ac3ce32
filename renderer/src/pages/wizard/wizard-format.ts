import type { JobViewData } from '../../../../electron/shared/schemas-jobs';
import {
  WIZARD_STEPS,
  type SwarmChoiceNameData,
  type WizardStateData,
  type WizardStepName,
  type WizardStepSummaryData,
} from '../../../../electron/shared/schemas-wizard';
import { getLocale, t, type MessageKey } from '../../lib/i18n';

/** Words and small derivations the wizard's steps share (steps 3–5 may use them too). */

export type WizardStepView = WizardStateData['steps'][number];

const STEP_LABELS: Record<WizardStepName, MessageKey> = {
  llm: 'wizard.step.llm',
  project: 'wizard.step.project',
  code: 'wizard.step.code',
  swarm: 'wizard.step.swarm',
  debug: 'wizard.step.debug',
  train: 'wizard.step.train',
};

export function stepName(id: WizardStepName): string {
  return t(STEP_LABELS[id]);
}

/** "Debug LLM, Agent project" */
export function stepNames(ids: readonly WizardStepName[]): string {
  return ids.map(stepName).join(', ');
}

export function stepView(state: WizardStateData, id: WizardStepName): WizardStepView | null {
  return state.steps.find((s) => s.id === id) ?? null;
}

/** The step after `id` in the wizard's order, or null after the last. */
export function nextStep(id: WizardStepName): WizardStepName | null {
  return WIZARD_STEPS[WIZARD_STEPS.indexOf(id) + 1] ?? null;
}

const RUNNING = new Set<JobViewData['state']>(['starting', 'running', 'cancelling']);

export function isRunning(job: JobViewData | null): boolean {
  return job !== null && RUNNING.has(job.state);
}

/** Milliseconds as seconds with one decimal ("0.4"), as the backend's step facts write them. */
export function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

/** A swarm choice as the summaries name it: "the dry run", 'profile “Qwen 7B”'. */
export function serverName(name: SwarmChoiceNameData): string {
  if (name.kind === 'dry-run') return t('wizard.summary.server.dryRun');
  return t(name.removed ? 'wizard.summary.server.profileRemoved' : 'wizard.summary.server.profile', { label: name.label });
}

/** A done step's fact in the user's language, from the backend's data (issue 32: no English sentence from the backend). */
export function stepSummary(summary: WizardStepSummaryData): string {
  switch (summary.step) {
    case 'llm':
      return summary.latencyMs === null ? t('wizard.summary.llmNoLatency', { model: summary.model }) : t('wizard.summary.llm', { model: summary.model, latency: summary.latencyMs });
    case 'project': {
      const form = new Intl.PluralRules(getLocale()).select(summary.items) === 'one' ? 'one' : 'other';
      return t(`wizard.summary.project.${form}`, { items: summary.items, reward: summary.reward, seconds: seconds(summary.durationMs) });
    }
    case 'code':
      return t('wizard.summary.code', { files: new Intl.ListFormat(getLocale(), { type: 'conjunction' }).format(summary.files) });
    case 'swarm':
      return t('wizard.summary.swarm', { server: serverName(summary.server), url: summary.url });
    case 'debug':
      return t('wizard.summary.debug', { server: serverName(summary.server), reward: summary.reward });
    case 'train':
      return t('wizard.summary.train', { jobId: summary.jobId });
  }
}

/**
 * The id `run_episode_once.py` takes for a dataset item: the collector returns string ids or dicts.
 * A string (or number) is its own id; a dict's `id` or `task_id` field when it has one; else its
 * position in the list, as text.
 */
export function itemIdOf(item: unknown, index: number): string {
  if (typeof item === 'string' && item.trim() !== '') return item;
  if (typeof item === 'number' && Number.isFinite(item)) return String(item);
  if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
    const record = item as Record<string, unknown>;
    for (const key of ['id', 'task_id']) {
      const value = record[key];
      if ((typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value))) return String(value);
    }
  }
  return String(index);
}

/** One line of a dataset item for a list: its JSON, cut to `max` characters. */
export function itemPreview(item: unknown, max = 160): string {
  let text: string;
  try {
    text = typeof item === 'string' ? item : (JSON.stringify(item) ?? String(item));
  } catch {
    text = String(item);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
