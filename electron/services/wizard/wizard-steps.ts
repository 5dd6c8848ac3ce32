import { AppError } from '../../shared/errors';
import {
  WIZARD_STEP_DEPENDS,
  WIZARD_STEPS,
  type SwarmChoiceData,
  type SwarmChoiceNameData,
  type TrainingFormSuggestionData,
  type WizardStateData,
  type WizardStepName,
  type WizardStepSummaryData,
} from '../../shared/schemas-wizard';
import type { WizardFactsData } from './wizard-facts';

type StepView = WizardStateData['steps'][number];

/** Names a swarm choice as data (the dry run, or a profile by its label); the service knows profile labels. */
export type DescribeChoice = (choice: SwarmChoiceData) => SwarmChoiceNameData;

/** A choice's name in English, for the facts logs and tests read ("the dry run", `profile "Qwen 7B"`). */
export function choiceInEnglish(name: SwarmChoiceNameData): string {
  if (name.kind === 'dry-run') return 'the dry run';
  return name.removed ? `profile "${name.label}" (removed)` : `profile "${name.label}"`;
}

/** A step's completing fact: as data for the renderer (`summary`), in English for logs and tests, and when it was seen. */
interface StepFact {
  summary: WizardStepSummaryData;
  fact: string;
  at: string;
}

/**
 * The fact that completes a step, and when it was seen; null when there is none.
 * The only place that decides "done": a step has a fact or it is todo.
 */
export function factOf(step: WizardStepName, facts: WizardFactsData, describe: DescribeChoice): StepFact | null {
  switch (step) {
    case 'llm': {
      const llm = facts.llm;
      const test = llm?.test;
      if (!llm || !test?.ok) return null;
      const latency = test.latencyMs === null ? '' : ` in ${test.latencyMs} ms`;
      return { summary: { step, model: llm.model, latencyMs: test.latencyMs }, fact: `answered${latency}: ${test.message}`, at: test.at };
    }
    case 'project': {
      const dataset = facts.project?.dataset;
      const episode = facts.project?.episode;
      if (!dataset || dataset.count < 1 || !episode) return null;
      const items = `${dataset.count} item${dataset.count === 1 ? '' : 's'}`;
      return {
        summary: { step, items: dataset.count, reward: episode.reward, durationMs: episode.durationMs },
        fact: `${items} · reward ${episode.reward} in ${(episode.durationMs / 1000).toFixed(1)} s`,
        at: later(dataset.at, episode.at),
      };
    }
    case 'code': {
      const code = facts.code;
      if (!code) return null;
      const files = code.files.map((f) => f.name);
      return { summary: { step, files }, fact: `${files.join(' and ')} written and compiled`, at: code.compiledAt };
    }
    case 'swarm': {
      const swarm = facts.swarm;
      if (!swarm || swarm.phase !== 'ready' || !swarm.url || !facts.swarmReadyAt) return null;
      const server = describe(swarm.choice);
      return { summary: { step, server, url: swarm.url }, fact: `${choiceInEnglish(server)} answered /health at ${swarm.url}`, at: facts.swarmReadyAt };
    }
    case 'debug': {
      const debug = facts.debug;
      if (!debug?.passed || debug.reward === null) return null;
      const server = describe(debug.choice);
      return { summary: { step, server, reward: debug.reward }, fact: `reward ${debug.reward} on ${choiceInEnglish(server)}`, at: debug.at };
    }
    case 'train': {
      const train = facts.train;
      if (!train) return null;
      return { summary: { step, jobId: train.jobId }, fact: `training started (job ${train.jobId})`, at: train.at };
    }
  }
}

/** Every step's status in order: `done` by a fact, `stale` when its fact predates a change it depends on. */
export function deriveSteps(facts: WizardFactsData, describe: DescribeChoice): StepView[] {
  const status = new Map<WizardStepName, StepView['status']>();
  const views: StepView[] = [];
  // WIZARD_STEPS is in dependency order: a step's prerequisites are always derived before it.
  for (const id of WIZARD_STEPS) {
    const found = factOf(id, facts, describe);
    const stepStatus: StepView['status'] = !found ? 'todo' : facts.stale.includes(id) ? 'stale' : 'done';
    status.set(id, stepStatus);
    const dependsOn = [...WIZARD_STEP_DEPENDS[id]];
    views.push({
      id,
      status: stepStatus,
      fact: found?.fact ?? null,
      summary: found?.summary ?? null,
      doneAt: found?.at ?? null,
      dependsOn,
      missing: dependsOn.filter((d) => status.get(d) !== 'done'),
    });
  }
  return views;
}

/** The whole state the UI sees: derived steps plus the facts themselves. */
export function deriveState(facts: WizardFactsData, describe: DescribeChoice, suggestedForm: TrainingFormSuggestionData | null): WizardStateData {
  return {
    current: facts.current,
    steps: deriveSteps(facts, describe),
    llm: facts.llm,
    project: facts.project,
    code: facts.code,
    swarm: facts.swarm,
    debug: facts.debug,
    trainJobId: facts.train?.jobId ?? null,
    runningJobIds: facts.pending.map((p) => p.jobId),
    goneProfile: facts.goneProfile ?? null,
    suggestedForm,
  };
}

/**
 * Marks as stale those of `steps` that are done now (a todo step stays todo). Changes are named
 * by the caller, per the rules: a new LLM → project, debug, train; other code → debug, train;
 * another swarm → debug, train; another project → code, debug, train.
 */
export function markStale(facts: WizardFactsData, steps: readonly WizardStepName[], describe: DescribeChoice): WizardFactsData {
  const stale = new Set(facts.stale);
  for (const step of steps) if (factOf(step, facts, describe)) stale.add(step);
  return { ...facts, stale: WIZARD_STEPS.filter((s) => stale.has(s)) };
}

/** A fresh fact for `step` was recorded: it is no longer stale. */
export function clearStale(facts: WizardFactsData, step: WizardStepName): WizardFactsData {
  return { ...facts, stale: facts.stale.filter((s) => s !== step) };
}

/**
 * WIZARD_STEP_LOCKED when an action on `step` runs before its prerequisites are done; the
 * message names them and what completes each.
 */
export function requireUnlocked(facts: WizardFactsData, step: WizardStepName, describe: DescribeChoice): void {
  const view = deriveSteps(facts, describe).find((s) => s.id === step);
  if (!view || view.missing.length === 0) return;
  const needs = view.missing.map((m) => `${STEP_NAMES[m]} (${HOW_TO_COMPLETE[m]})`).join('; ');
  throw new AppError('WIZARD_STEP_LOCKED', `"${STEP_NAMES[step]}" needs these steps done first: ${needs}.`);
}

export const STEP_NAMES: Record<WizardStepName, string> = {
  llm: 'Debug LLM',
  project: 'Agent project',
  code: 'Training code',
  swarm: 'Swarm server',
  debug: 'Debug episode',
  train: 'Train',
};

const HOW_TO_COMPLETE: Record<WizardStepName, string> = {
  llm: 'the LLM endpoint must answer a test',
  project: 'the dataset test must give at least one item and the episode test a reward',
  code: 'generate the training scripts so that they compile',
  swarm: 'start the swarm server until /health answers',
  debug: 'run the debug episode until it reports a reward',
  train: 'start training',
};

function later(a: string, b: string): string {
  return a > b ? a : b;
}
