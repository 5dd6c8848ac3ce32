import { WIZARD_STEP_DEPENDS, WIZARD_STEPS, type WizardStateData, type WizardStepName } from '../../../electron/shared/schemas-wizard';
import type { JobViewData } from '../../../electron/shared/schemas-jobs';

/**
 * TEST DOUBLE data for the renderer's wizard and jobs tests: a wizard state and job views as the
 * backend would send them. Steps are derived from `done` the way the backend derives them
 * (a step's `missing` lists prerequisites not done), so a test states only which steps are done.
 */
export function makeWizardState(overrides: Partial<WizardStateData> = {}, done: readonly WizardStepName[] = []): WizardStateData {
  const steps = WIZARD_STEPS.map((id) => ({
    id,
    status: done.includes(id) ? ('done' as const) : ('todo' as const),
    fact: done.includes(id) ? `${id} done` : null,
    doneAt: done.includes(id) ? '2026-12-04T10:00:00.000Z' : null,
    dependsOn: [...WIZARD_STEP_DEPENDS[id]],
    missing: WIZARD_STEP_DEPENDS[id].filter((d) => !done.includes(d)),
  }));
  return {
    current: 'llm',
    steps,
    llm: null,
    project: null,
    code: null,
    swarm: null,
    debug: null,
    trainJobId: null,
    runningJobIds: [],
    suggestedForm: { experimentName: 'agent_training', modelPath: null, modelPathSource: null },
    ...overrides,
  };
}

let jobCounter = 0;

export function makeJobView(overrides: Partial<JobViewData> = {}): JobViewData {
  jobCounter += 1;
  const id = overrides.id ?? `job-${jobCounter}`;
  return {
    id,
    kind: 'episode-test',
    label: null,
    state: 'running',
    cwd: '/home/me/agent',
    script: 'run_episode_once.py',
    args: [],
    python: '/home/me/agent/.venv/bin/python',
    swarm: null,
    swarmUrl: null,
    llmSecretId: null,
    startedAt: '2026-12-04T10:00:00.000Z',
    endedAt: null,
    durationMs: null,
    exitCode: null,
    signal: null,
    pid: 4242,
    result: null,
    failure: null,
    logLines: 0,
    logFile: `/data/jobs/${id}.log`,
    ...overrides,
  };
}
