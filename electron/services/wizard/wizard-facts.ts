import { join } from 'node:path';
import { z } from 'zod';
import { JobId } from '../../shared/schemas-jobs';
import { CodeView, DebugView, ProjectView, SwarmChoice, WizardState, WizardStepId, WizardSwarmView } from '../../shared/schemas-wizard';
import { JsonStore, type JsonStoreVersioning } from '../util/json-store';
import type { Logger } from '../util/logger';

export const WIZARD_FILE = 'wizard.json';

/** What a job the wizard started will prove when it ends. */
export const JobPurpose = z.enum(['dataset', 'episode', 'debug', 'train']);

/**
 * A job the wizard waits for. Persisted, so a restart reads the job's end from the runner's
 * history (by id) and records its fact then.
 */
export const PendingJob = z.object({
  jobId: JobId,
  purpose: JobPurpose,
  /** episode: the item tested; debug: the swarm it ran against. */
  itemId: z.string().nullable().default(null),
  choice: SwarmChoice.nullable().default(null),
});

/**
 * `<data>/wizard.json`: the FACTS the wizard saw (a test answer, a reward, files compiled, a
 * health answer), never a "this step is done" flag. Step statuses are derived from these facts
 * (`wizard-steps.ts`), so a step cannot be done without one.
 */
export const WizardFacts = z.object({
  current: WizardStepId,
  llm: WizardState.shape.llm,
  project: ProjectView.nullable(),
  code: CodeView.nullable(),
  swarm: WizardSwarmView.nullable(),
  /** When `/health` last answered for the current choice (the swarm step's fact). */
  swarmReadyAt: z.string().nullable(),
  debug: DebugView.nullable(),
  train: z.object({ jobId: JobId, at: z.string() }).nullable(),
  /** Steps whose fact is older than a change to something they depend on. */
  stale: z.array(WizardStepId),
  pending: z.array(PendingJob),
  /** The profile of the swarm choice was removed (id and label as last seen); cleared by the next choice. */
  goneProfile: z.object({ id: z.string(), label: z.string() }).nullable().optional(),
});

export type WizardFactsData = z.infer<typeof WizardFacts>;
export type PendingJobData = z.infer<typeof PendingJob>;
export type JobPurposeName = z.infer<typeof JobPurpose>;

export const EMPTY_FACTS: WizardFactsData = {
  current: 'llm',
  llm: null,
  project: null,
  code: null,
  swarm: null,
  swarmReadyAt: null,
  debug: null,
  train: null,
  stale: [],
  pending: [],
};

/** Version 1 is the first shape; a later shape adds a migration step here. */
export const WIZARD_VERSIONING: JsonStoreVersioning = { current: 1, migrations: [] };

export function createWizardStore(dataDir: string, logger?: Logger): JsonStore<typeof WizardFacts> {
  return new JsonStore({
    file: join(dataDir, WIZARD_FILE),
    schema: WizardFacts,
    defaults: EMPTY_FACTS,
    errors: { invalid: 'VALIDATION_FAILED', notSaved: 'SETTINGS_NOT_SAVED' },
    versioning: WIZARD_VERSIONING,
    ...(logger ? { logger } : {}),
  });
}
