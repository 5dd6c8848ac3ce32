import type { SecretDraft } from '../secret-form';
import type { TrainingDraft } from '../../pages/wizard/training-form';

/** What the project form holds while the user types (the saved setup does not keep the command). */
export interface ProjectDraft {
  projectDir: string;
  mode: 'scaffold' | 'adopt';
  rewardStyle: 'native' | 'judge';
  agentCommand: string;
  buildId: string;
  collectorFile: string;
  episodeFile: string;
}

export interface WizardDraftsData {
  /** The new debug LLM endpoint being typed (the key included: memory only, dropped once saved). */
  llm: SecretDraft | null;
  project: ProjectDraft | null;
  training: TrainingDraft | null;
  /** The swarm form's picked kind ("A swarm profile" after "Choose a GPU server"), until Start. */
  swarmKind: 'dry-run' | 'profile' | null;
}

/**
 * The wizard's typed fields, kept at module level: the wizard page is unmounted on every page
 * switch (and each step on every step switch), and a user who looked up something on Settings
 * must find what they typed. Memory only, never written anywhere; a reset of the wizard clears it.
 */
export const wizardDrafts = $state<WizardDraftsData>({ llm: null, project: null, training: null, swarmKind: null });

export function clearWizardDrafts(): void {
  wizardDrafts.llm = null;
  wizardDrafts.project = null;
  wizardDrafts.training = null;
  wizardDrafts.swarmKind = null;
}
