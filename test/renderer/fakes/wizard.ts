import {
  WIZARD_STEP_DEPENDS,
  WIZARD_STEPS,
  TrainingForm,
  type CodePreview,
  type WizardStateData,
  type WizardStepName,
  type WizardStepSummaryData,
} from '../../../electron/shared/schemas-wizard';
import type { JobViewData, PythonDiscoveryData, PythonInterpreterData } from '../../../electron/shared/schemas-jobs';
import type { z } from 'zod';
import type { FakeApi } from '../fake-api';

/**
 * TEST DOUBLE data for the renderer's wizard and jobs tests: a wizard state and job views as the
 * backend would send them. Steps are derived from `done` the way the backend derives them
 * (a step's `missing` lists prerequisites not done), so a test states only which steps are done.
 */
/** A done step's fact as the backend sends it (WizardStepView.summary), one plausible shape per step. */
export const SAMPLE_SUMMARIES: Record<WizardStepName, WizardStepSummaryData> = {
  llm: { step: 'llm', model: 'fake-debug-model', latencyMs: 120 },
  project: { step: 'project', items: 4, reward: 1, durationMs: 2100 },
  code: { step: 'code', files: ['agent_roll.py', 'agent_roll_one_episode_debug.py'] },
  swarm: { step: 'swarm', server: { kind: 'dry-run' }, url: 'http://127.0.0.1:10086' },
  debug: { step: 'debug', server: { kind: 'dry-run' }, reward: 1 },
  train: { step: 'train', jobId: 'job-train' },
};

export function makeWizardState(overrides: Partial<WizardStateData> = {}, done: readonly WizardStepName[] = []): WizardStateData {
  const steps = WIZARD_STEPS.map((id) => ({
    id,
    status: done.includes(id) ? ('done' as const) : ('todo' as const),
    fact: done.includes(id) ? `${id} done` : null,
    summary: done.includes(id) ? SAMPLE_SUMMARIES[id] : null,
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
    suggestedForm: { experimentName: 'agent_training', modelPath: null, modelPathSource: null, modelPathProfile: null },
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
    notSaved: null,
    ...overrides,
  };
}

// ---------------------------------------------------------------- the wizard backend (steps 0–2)

type CodePreviewData = z.infer<typeof CodePreview>;

/** A Python interpreter as `jobs:python` lists it: the project's .venv with ajet, unless overridden. */
export function makeInterpreter(overrides: Partial<PythonInterpreterData> = {}): PythonInterpreterData {
  return {
    path: '/home/me/agent/.venv/bin/python',
    source: 'venv',
    version: 'Python 3.11.2',
    ajet: { installed: true, version: '0.3.1' },
    problem: null,
    ...overrides,
  };
}

/** One previewed file: new unless overridden. */
export function makeCodeFile(name: CodePreviewData['files'][number]['name'], overrides: Partial<CodePreviewData['files'][number]> = {}): CodePreviewData['files'][number] {
  return {
    name,
    path: `/home/me/agent/tutorial/opencode_build_abc123/${name}`,
    exists: false,
    changed: false,
    diff: '',
    content: `# ${name}\n`,
    ...overrides,
  };
}

/**
 * TEST DOUBLE of the wizard backend (wizard:* and the jobs:* the wizard reads) for renderer tests,
 * installed with FakeApi.answer(). It keeps a state whose steps are derived from `done` like
 * makeWizardState, answers each action like the backend (a state, or a running job), records what it
 * was sent, and sends `wizard:changed` after each change. Failures: `api.failNext(channel, error)`.
 */
export interface WizardFake {
  state: WizardStateData;
  /** Steps the backend has facts for; `push()` derives the step views from it. */
  done: WizardStepName[];
  python: PythonDiscoveryData;
  preview: CodePreviewData;
  /** What secrets:test "answered" for the LLM endpoint wizard:set-llm tests. */
  llmTest: { ok: boolean; latencyMs: number | null; message: string };
  /** Jobs the fake started or was given, by id (jobs:get answers from it). */
  jobs: Map<string, JobViewData>;
  /** Re-derives the steps from `done`, and sends the state as wizard:changed. */
  push(): void;
  /**
   * Set: the next job the wizard starts ends at once, with this patch, and its last jobs:changed is
   * sent before the wizard:changed that names it (a run shorter than the round trip).
   */
  endsAtOnce: Partial<JobViewData> | null;
  /** Replaces a job with a later snapshot of it and sends jobs:changed (then what its end proves, like the backend). */
  updateJob(id: string, patch: Partial<JobViewData>): JobViewData;
}

export function installWizardFake(api: FakeApi, initial: { state?: WizardStateData; done?: WizardStepName[] } = {}): WizardFake {
  const done = [...(initial.done ?? [])];
  const fake: WizardFake = {
    state: initial.state ?? makeWizardState({}, done),
    done,
    python: {
      interpreters: [makeInterpreter(), makeInterpreter({ path: '/usr/bin/python3', source: 'path', version: 'Python 3.12.3', ajet: { installed: false, version: null } })],
      recommended: '/home/me/agent/.venv/bin/python',
      installHint: 'pip install agentjet (in that interpreter: <python> -m pip install agentjet)',
    },
    preview: { files: [makeCodeFile('agent_roll.py'), makeCodeFile('agent_roll_one_episode_debug.py')] },
    llmTest: { ok: true, latencyMs: 120, message: 'fake-debug-model answered "pong"' },
    jobs: new Map(),
    endsAtOnce: null,
    push() {
      const steps = makeWizardState({}, fake.done).steps.map((step) => {
        const before = fake.state.steps.find((s) => s.id === step.id);
        // A fact the test wrote into the state is kept; a status it set to stale too.
        return before && fake.done.includes(step.id) ? { ...step, fact: before.fact ?? step.fact, summary: before.summary ?? step.summary, status: before.status === 'stale' ? before.status : step.status } : step;
      });
      fake.state = { ...fake.state, steps };
      api.emit('wizard:changed', structuredClone(fake.state));
    },
    updateJob(id, patch) {
      const job = { ...(fake.jobs.get(id) ?? makeJobView({ id })), ...patch };
      fake.jobs.set(id, job);
      api.emit('jobs:changed', structuredClone(job));
      recordEnd(job);
      return job;
    },
  };

  const change = (patch: Partial<WizardStateData>): WizardStateData => {
    fake.state = { ...fake.state, ...patch };
    fake.push();
    return structuredClone(fake.state);
  };
  const markDone = (step: WizardStepName, isDone: boolean): void => {
    fake.done = isDone ? [...new Set([...fake.done, step])] : fake.done.filter((s) => s !== step);
  };
  const startJob = (kind: JobViewData['kind'], label: string, args: string[]): JobViewData => {
    // The backend runs both tests in the project's build folder.
    const job = makeJobView({ kind, label, args, state: 'running', cwd: fake.state.project?.buildDir ?? '/home/me/agent' });
    fake.jobs.set(job.id, job);
    const ending = fake.endsAtOnce;
    fake.endsAtOnce = null;
    if (ending) {
      const ended = { ...job, ...ending };
      fake.jobs.set(job.id, ended);
      api.emit('jobs:changed', structuredClone(ended));
    }
    change({ runningJobIds: [...fake.state.runningJobIds, job.id] });
    if (ending) recordEnd(fake.jobs.get(job.id)!);
    return structuredClone(job);
  };
  // What the backend records when a wizard job ends (electron/services/wizard/job-facts.ts).
  const recordEnd = (job: JobViewData): void => {
    if (!['succeeded', 'failed', 'cancelled'].includes(job.state) || !fake.state.project) return;
    const project = fake.state.project;
    const runningJobIds = fake.state.runningJobIds.filter((id) => id !== job.id);
    const at = job.endedAt ?? '2026-12-04T10:01:00.000Z';
    if (job.kind === 'dataset-test') {
      const count = job.state === 'succeeded' ? (job.result?.count ?? null) : null;
      const dataset = count !== null && count >= 1 ? { jobId: job.id, count, first: job.result?.items ?? [], at } : null;
      fake.state = { ...fake.state, runningJobIds, project: { ...project, dataset } };
    } else if (job.kind === 'episode-test') {
      const reward = job.state === 'succeeded' ? (job.result?.reward ?? null) : null;
      const episode = reward === null ? null : { jobId: job.id, itemId: job.args[0] ?? '', reward, durationMs: job.durationMs ?? 0, at };
      fake.state = { ...fake.state, runningJobIds, project: { ...project, episode } };
    } else return;
    const proj = fake.state.project;
    markDone('project', !!proj?.dataset && !!proj.episode);
    fake.push();
  };

  api.answer('wizard:state', () => structuredClone(fake.state));
  api.answer('wizard:goto', (r) => change({ current: r?.step ?? 'llm' }));
  api.answer('wizard:reset', () => {
    fake.done = [];
    fake.state = makeWizardState();
    fake.push();
    return structuredClone(fake.state);
  });
  api.answer('wizard:set-llm', (r) => {
    const secretId = r?.secretId ?? 'missing';
    markDone('llm', fake.llmTest.ok);
    return change({
      current: 'llm',
      llm: { secretId, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', test: { ...fake.llmTest, at: '2026-12-04T10:00:00.000Z' } },
    });
  });
  api.answer('wizard:set-project', (r) => {
    if (!r) throw new Error('fake: set-project without a request');
    const buildId = r.mode === 'scaffold' ? (r.buildId ?? 'abc123') : null;
    const buildDir = r.mode === 'scaffold' ? `${r.projectDir}/tutorial/opencode_build_${buildId}` : r.episodeFile.replace(/\/[^/]+$/, '');
    return change({
      current: 'project',
      project: {
        mode: r.mode,
        projectDir: r.projectDir,
        buildId,
        buildDir,
        collectorFile: r.mode === 'scaffold' ? `${buildDir}/get_training_dataset_item_list.py` : r.collectorFile,
        episodeFile: r.mode === 'scaffold' ? `${buildDir}/run_episode_once.py` : r.episodeFile,
        rewardStyle: r.mode === 'scaffold' ? (r.rewardStyle ?? 'native') : null,
        python: fake.state.project?.python ?? null,
        dataset: null,
        episode: null,
      },
    });
  });
  api.answer('wizard:set-python', (r) => {
    const project = fake.state.project;
    if (!project) throw { code: 'PROJECT_INVALID', message: 'No agent project chosen yet.' };
    return change({ current: 'project', project: { ...project, python: r?.python ?? null } });
  });
  api.answer('jobs:python', (r) => {
    const extra = r?.extra;
    if (!extra || fake.python.interpreters.some((i) => i.path === extra)) return structuredClone(fake.python);
    const custom = makeInterpreter({ path: extra, source: 'custom', ajet: { installed: false, version: null } });
    fake.python = { ...fake.python, interpreters: [...fake.python.interpreters, custom] };
    return structuredClone(fake.python);
  });
  api.answer('wizard:test-dataset', () => startJob('dataset-test', 'Test dataset', []));
  api.answer('wizard:test-episode', (r) => startJob('episode-test', `Test episode · item ${r?.itemId}`, [r?.itemId ?? '']));
  api.answer('jobs:get', (r) => {
    const job = fake.jobs.get(r?.jobId ?? '');
    if (!job) throw { code: 'JOB_NOT_FOUND', message: `No job ${r?.jobId}.` };
    return structuredClone(job);
  });
  api.answer('wizard:preview-code', () => structuredClone(fake.preview));
  api.answer('wizard:generate-code', (r) => {
    if (!r) throw new Error('fake: generate-code without a request');
    const refused = fake.preview.files.filter((f) => f.changed && !(r.overwrite ?? []).includes(f.name));
    if (refused.length > 0) throw { code: 'WIZARD_FILE_EXISTS', message: `${refused.map((f) => f.path).join(' and ')} already exists with other content.` };
    markDone('code', true);
    return change({
      current: 'code',
      code: { form: TrainingForm.parse(r.form), files: fake.preview.files.map((f) => ({ name: f.name, path: f.path, sha256: 'a'.repeat(64) })), compiledAt: '2026-12-04T10:05:00.000Z' },
    });
  });
  return fake;
}
