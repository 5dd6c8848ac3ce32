import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { Result } from '../../../../electron/shared/result';
import type { JobViewData, PythonDiscoveryData } from '../../../../electron/shared/schemas-jobs';
import type {
  CodePreview,
  ProjectSetupData,
  SwarmChoiceData,
  TrainingFormData,
  WizardStateData,
  WizardStepName,
} from '../../../../electron/shared/schemas-wizard';
import type { z } from 'zod';
import { wizardDrafts } from './wizard-drafts.svelte';

/** Every backend action the wizard's steps can take; `busy` and `errors` are keyed by it. */
export type WizardAction =
  | 'goto'
  | 'reset'
  | 'set-llm'
  | 'set-project'
  | 'set-python'
  | 'discover-python'
  | 'test-dataset'
  | 'test-episode'
  | 'preview-code'
  | 'generate-code'
  | 'choose-swarm'
  | 'start-swarm'
  | 'run-debug'
  | 'train'
  | 'stop-train';

export type CodePreviewData = z.infer<typeof CodePreview>;

/** How many snapshots of not-yet-claimed jobs are kept (jobs the Jobs page starts pass by too). */
const UNCLAIMED_KEPT = 20;

/**
 * The wizard as its page shows it. The step machine lives in the backend (`wizard:*`): this store
 * only mirrors its state (`wizard:state`, then every `wizard:changed`), the jobs the wizard started
 * (from the actions' answers and `jobs:changed`), and which action runs or failed. Steps never
 * decide that something is done: a step is done when the backend says so.
 */
export class WizardStore {
  state = $state<WizardStateData | null>(null);
  loaded = $state(false);
  loadError = $state<AppErrorShape | null>(null);
  /** Actions in flight (a swarm start may run while the user reads another step). */
  busy = $state<Partial<Record<WizardAction, true>>>({});
  /** The last failure of each action, cleared when it is tried again. */
  errors = $state<Partial<Record<WizardAction, AppErrorShape>>>({});
  /** Jobs by id: every job an action returned, kept current by `jobs:changed`. */
  jobs = $state<Record<string, JobViewData>>({});
  python = $state<PythonDiscoveryData | null>(null);
  preview = $state<CodePreviewData | null>(null);
  constructor(private readonly api: ExposedApi) {}

  start(): () => void {
    const offState = this.api.events.on('wizard:changed', (state) => {
      this.state = state;
      this.loaded = true;
      this.loadError = null;
    });
    const offJobs = this.api.events.on('jobs:changed', (job) => {
      // Only jobs the wizard knows of (its answers, or ids named in its state) are kept here.
      if (this.jobs[job.id] || this.knownJobIds().includes(job.id)) this.jobs[job.id] = job;
      else this.rememberUnclaimed(job);
    });
    void this.api.wizard.state({}).then(async (result) => {
      this.loaded = true;
      if (!result.ok) {
        if (!this.state) this.loadError = result.error;
        return;
      }
      // An event may have overtaken the first answer: a state that is already there is newer.
      this.state ??= result.value;
      await this.fetchKnownJobs();
    });
    return () => {
      offState();
      offJobs();
    };
  }

  /** The job with this id if the wizard knows it (null for null). */
  job(id: string | null | undefined): JobViewData | null {
    return id ? (this.jobs[id] ?? null) : null;
  }

  isBusy(action: WizardAction): boolean {
    return this.busy[action] === true;
  }

  /** The user dismissed the banner of this action's last failure. */
  clearError(action: WizardAction): void {
    delete this.errors[action];
  }

  /**
   * The newest job of this kind the wizard knows (a test the user just started, or one named in the
   * state); with `cwd`, only those that ran there (the tests of another project folder do not count).
   */
  latestJob(kind: JobViewData['kind'], cwd: string | null = null): JobViewData | null {
    let newest: JobViewData | null = null;
    for (const job of Object.values(this.jobs)) {
      if (job.kind !== kind || (cwd !== null && job.cwd !== cwd)) continue;
      if (!newest || job.startedAt >= newest.startedAt) newest = job;
    }
    return newest;
  }

  goto(step: WizardStepName): Promise<boolean> {
    return this.stateAction('goto', () => this.api.wizard.goto({ step }));
  }

  reset(): Promise<boolean> {
    return this.stateAction('reset', () => this.api.wizard.reset({}));
  }

  setLlm(secretId: string): Promise<boolean> {
    return this.stateAction('set-llm', () => this.api.wizard.setLlm({ secretId }));
  }

  setProject(setup: ProjectSetupData): Promise<boolean> {
    return this.stateAction('set-project', () => this.api.wizard.setProject(setup));
  }

  setPython(python: string): Promise<boolean> {
    return this.stateAction('set-python', () => this.api.wizard.setPython({ python }));
  }

  async discoverPython(projectDir: string | null, extra: string | null = null): Promise<PythonDiscoveryData | null> {
    const found = await this.run('discover-python', () => this.api.jobs.python({ projectDir, extra }));
    if (found) this.python = found;
    return found;
  }

  testDataset(): Promise<JobViewData | null> {
    return this.jobAction('test-dataset', () => this.api.wizard.testDataset({}));
  }

  testEpisode(itemId: string): Promise<JobViewData | null> {
    return this.jobAction('test-episode', () => this.api.wizard.testEpisode({ itemId }));
  }

  async previewCode(form: TrainingFormData): Promise<CodePreviewData | null> {
    const preview = await this.run('preview-code', () => this.api.wizard.previewCode(form));
    if (preview) this.preview = preview;
    return preview;
  }

  async generateCode(form: TrainingFormData, overwrite: ('agent_roll.py' | 'agent_roll_one_episode_debug.py')[]): Promise<boolean> {
    const written = await this.stateAction('generate-code', () => this.api.wizard.generateCode({ form, overwrite }));
    // The preview compared against the files as they were: after a write it no longer holds.
    if (written) this.preview = null;
    return written;
  }

  /** The previewed form was edited: its diffs no longer describe what would be written. */
  clearPreview(): void {
    this.preview = null;
  }

  chooseSwarm(choice: SwarmChoiceData): Promise<boolean> {
    return this.stateAction('choose-swarm', () => this.api.wizard.chooseSwarm(choice));
  }

  /**
   * After a pass on the dry run: the swarm step, with "A swarm profile" preselected (same scripts, a GPU server).
   * Not a choice: nothing changes in the backend until Start. The pick goes into the drafts, which outlive this
   * store: a user who leaves for Servers at once (before the swarm step showed) unmounts the page and this store
   * with it, and comes back to a new one (getting-started e2e: thrice in CI the form showed the dry run).
   */
  chooseGpuServer(): Promise<boolean> {
    wizardDrafts.swarmKind = 'profile';
    return this.goto('swarm');
  }

  /** `restartDryRun`: the user chose to restart a dry run that runs with another LLM. */
  startSwarm(restartDryRun = false): Promise<boolean> {
    return this.stateAction('start-swarm', () => this.api.wizard.startSwarm({ restartDryRun }));
  }

  runDebug(): Promise<JobViewData | null> {
    return this.jobAction('run-debug', () => this.api.wizard.runDebug({}));
  }

  train(confirmEngineRestart: boolean): Promise<JobViewData | null> {
    return this.jobAction('train', () => this.api.wizard.train({ confirmEngineRestart }));
  }

  stopTrain(): Promise<JobViewData | null> {
    return this.jobAction('stop-train', () => this.api.wizard.stopTrain({}));
  }

  private async stateAction(action: WizardAction, call: () => Promise<Result<WizardStateData>>): Promise<boolean> {
    const state = await this.run(action, call);
    if (state) this.state = state;
    return state !== null;
  }

  private async jobAction(action: WizardAction, call: () => Promise<Result<JobViewData>>): Promise<JobViewData | null> {
    const job = await this.run(action, call);
    if (!job) return null;
    // A `jobs:changed` may already carry a later snapshot: a short run can end before the answer
    // (and before wizard:changed names it) comes, and then its last event was parked unclaimed.
    const seen = this.unclaimed.find((j) => j.id === job.id);
    this.unclaimed = this.unclaimed.filter((j) => j.id !== job.id);
    if (!this.jobs[job.id]) this.jobs[job.id] = seen ?? job;
    return this.jobs[job.id] ?? job;
  }

  /**
   * Snapshots of jobs not (yet) known to be the wizard's, newest last, a few only: the answer that
   * claims one follows its start within moments.
   */
  private unclaimed: JobViewData[] = [];

  private rememberUnclaimed(job: JobViewData): void {
    this.unclaimed = [...this.unclaimed.filter((j) => j.id !== job.id), job].slice(-UNCLAIMED_KEPT);
  }

  private async run<T>(action: WizardAction, call: () => Promise<Result<T>>): Promise<T | null> {
    this.busy[action] = true;
    delete this.errors[action];
    try {
      const result = await call();
      if (!result.ok) {
        this.errors[action] = result.error;
        return null;
      }
      return result.value;
    } finally {
      delete this.busy[action];
    }
  }

  private knownJobIds(): string[] {
    const s = this.state;
    if (!s) return [];
    const ids = [s.project?.dataset?.jobId, s.project?.episode?.jobId, s.debug?.jobId, s.trainJobId, ...s.runningJobIds];
    return ids.filter((id, i): id is string => typeof id === 'string' && ids.indexOf(id) === i);
  }

  /** After a reload: the views of the jobs the state names (their results, a running training). */
  private async fetchKnownJobs(): Promise<void> {
    await Promise.all(
      this.knownJobIds().map(async (jobId) => {
        const result = await this.api.jobs.get({ jobId });
        if (result.ok && !this.jobs[jobId]) this.jobs[jobId] = result.value;
      }),
    );
  }
}
