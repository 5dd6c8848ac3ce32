import { basename, join } from 'node:path';
import { AppError, isAppError } from '../../shared/errors';
import { JobStartRequest, type JobStartInput, type JobViewData } from '../../shared/schemas-jobs';
import type {
  CodePreview,
  SwarmChoiceData,
  TrainingFormData,
  TrainingFormSuggestionData,
  WizardStateData,
  WizardStepName,
} from '../../shared/schemas-wizard';
import type { z } from 'zod';
import type { EventSink } from '../events';
import type { Handlers } from '../ipc/handlers';
import type { JobsApi } from '../jobs/jobs-api';
import type { ProfileStore } from '../profiles/profile-store';
import { generateTrainingCode, previewTrainingCode, type GeneratedName } from '../project/training-code';
import { requireKind } from '../secrets/secret-binding';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { JsonStore } from '../util/json-store';
import type { Logger } from '../util/logger';
import { describeThrown } from '../util/logger';
import { hasEnded, recordJobEnd } from './job-facts';
import { DEFAULT_SWARM_WAITS, startSwarm, type SwarmProgress, type SwarmWaits } from './swarm-starter';
import { createWizardStore, EMPTY_FACTS, type PendingJobData, type WizardFacts, type WizardFactsData } from './wizard-facts';
import { clearStale, deriveState, markStale, requireUnlocked } from './wizard-steps';
import { ProjectSteps } from './project-steps';

export interface WizardServiceOptions {
  dataDir: string;
  resourcesDir: string;
  events: EventSink;
  jobs: JobsApi;
  handlers: () => Handlers;
  profiles: ProfileStore;
  vault: SecretVaultApi;
  logger: Logger;
  swarmWaits?: SwarmWaits;
  /** A new build id (default: 6 random hex digits). */
  newBuildId?: () => string;
}

const IN_PROGRESS = new Set(['doctor', 'starting', 'connecting', 'tunnel', 'health']);

/**
 * The guided wizard's step machine. Every action checks that its step's prerequisites are done
 * (WIZARD_STEP_LOCKED), does the real thing through another domain (vault test, job runner,
 * dry run, profiles), and records only what it saw. Each change is written to `wizard.json`
 * first and then sent as a `wizard:changed` snapshot.
 */
export class WizardService {
  private readonly store: JsonStore<typeof WizardFacts>;
  /** Jobs whose end we already wait for (a restart or a second look must not record twice). */
  private readonly watching = new Set<string>();
  private swarmStart: Promise<WizardStateData> | null = null;
  private disposed = false;
  /** Profile labels as last seen: a removed profile is named by its label, not its id. */
  private profileLabels = new Map<string, string>();
  private stopWatchingProfiles: (() => void) | null = null;
  readonly project: ProjectSteps;

  constructor(private readonly options: WizardServiceOptions) {
    this.store = createWizardStore(options.dataDir, options.logger);
    this.project = new ProjectSteps(this, options);
  }

  /** Reads `wizard.json`; a swarm start cut short by the restart is failed; jobs still awaited are looked up by id. */
  async load(): Promise<void> {
    const facts = await this.store.load();
    this.rememberProfileLabels();
    this.stopWatchingProfiles = this.options.profiles.onChange(() => void this.profilesChanged().catch((error) => this.options.logger.warn(`wizard: ${describeThrown(error)}`)));
    if (facts.swarm && IN_PROGRESS.has(facts.swarm.phase)) {
      await this.store.update((f) => ({
        ...f,
        swarm: f.swarm ? { ...f.swarm, phase: 'failed' as const, detail: 'The app stopped while the server was starting. Press Start again.' } : null,
      }));
    } else if (facts.swarm?.choice.kind === 'dry-run' && facts.swarm.phase === 'ready') {
      // The dry run lives inside the backend: it ended with the app. A container (or a native server)
      // outlives the app and is found again, so only the dry run has to be started again.
      await this.store.update((f) => ({
        ...f,
        swarmReadyAt: null,
        swarm: f.swarm ? { ...f.swarm, phase: 'idle' as const, url: null, detail: 'The dry run ended when the app closed. Press Start again.' } : null,
      }));
    }
    for (const pending of this.facts().pending) {
      const job = this.jobOrNull(pending.jobId);
      if (!job) {
        // Gone from the runner's history: nothing to wait for.
        await this.store.update((f) => ({ ...f, pending: f.pending.filter((p) => p.jobId !== pending.jobId) }));
      } else if (hasEnded(job)) {
        // It ended while the app was closed (or was ended by the close): recorded before the first state is read,
        // so the UI never shows it running.
        await this.store.update((f) => (f.pending.some((p) => p.jobId === job.id) ? recordJobEnd(f, pending, job) : f));
      } else {
        this.watch(pending);
      }
    }
  }

  dispose(): void {
    // Jobs that end from now on are read from the runner's history at the next start.
    this.disposed = true;
    this.stopWatchingProfiles?.();
  }

  private rememberProfileLabels(): void {
    for (const profile of this.options.profiles.list()) this.profileLabels.set(profile.id, profile.label);
  }

  /**
   * The profile the swarm choice names was removed: its server is gone, so the swarm step is to do
   * again (its old status cleared) and the debug episode and training that used it are out of
   * date; the state names the profile that went away.
   */
  private async profilesChanged(): Promise<void> {
    const choice = this.facts().swarm?.choice;
    const exists = (id: string) => this.options.profiles.list().some((p) => p.id === id);
    if (choice?.kind === 'profile' && !exists(choice.profileId)) {
      const label = this.profileLabels.get(choice.profileId) ?? choice.profileId;
      await this.change((f) => {
        if (f.swarm?.choice.kind !== 'profile' || f.swarm.choice.profileId !== choice.profileId) return f;
        const base = this.stale(f, ['debug', 'train']);
        return {
          ...base,
          swarm: { ...f.swarm, phase: 'idle', detail: null, engineId: null, containerId: null, url: null },
          swarmReadyAt: null,
          goneProfile: { id: choice.profileId, label },
        };
      });
    }
    this.rememberProfileLabels();
  }

  facts(): WizardFactsData {
    return this.store.get();
  }

  state(): WizardStateData {
    const facts = this.facts();
    return deriveState(facts, (c) => this.describe(c), this.suggestion(facts));
  }

  /** Writes a change, then sends the new state. */
  async change(fn: (facts: WizardFactsData) => WizardFactsData): Promise<WizardStateData> {
    await this.store.update(fn);
    const state = this.state();
    if (!this.disposed) this.options.events.emit('wizard:changed', state);
    return state;
  }

  locked(step: WizardStepName): WizardFactsData {
    const facts = this.facts();
    requireUnlocked(facts, step, (c) => this.describe(c));
    return facts;
  }

  stale(facts: WizardFactsData, steps: readonly WizardStepName[]): WizardFactsData {
    return markStale(facts, steps, (c) => this.describe(c));
  }

  describe(choice: SwarmChoiceData): string {
    if (choice.kind === 'dry-run') return 'the dry run';
    const profile = this.options.profiles.list().find((p) => p.id === choice.profileId);
    const gone = profile ? null : this.profileLabels.get(choice.profileId);
    return gone ? `profile "${gone}" (removed)` : `profile "${profile?.label ?? choice.profileId}"`;
  }

  goto(step: WizardStepName): Promise<WizardStateData> {
    return this.change((f) => ({ ...f, current: step }));
  }

  /** Forgets the progress; files, secrets, profiles and jobs stay where they are. */
  reset(): Promise<WizardStateData> {
    return this.change(() => structuredClone(EMPTY_FACTS));
  }

  // ------------------------------------------------------------ jobs

  /** Starts a job for a step and remembers what its end will prove. */
  async startJob(request: JobStartInput, pending: Omit<PendingJobData, 'jobId'>, step: WizardStepName): Promise<JobViewData> {
    const job = await this.options.jobs.start(JobStartRequest.parse(request));
    const entry: PendingJobData = { ...pending, jobId: job.id };
    await this.change((f) => ({ ...f, current: step, pending: [...f.pending.filter((p) => p.jobId !== job.id), entry] }));
    this.watch(entry);
    return job;
  }

  private watch(pending: PendingJobData): void {
    if (this.watching.has(pending.jobId)) return;
    this.watching.add(pending.jobId);
    this.options.jobs
      .waitForEnd(pending.jobId)
      .then(async (job) => {
        if (this.disposed || !hasEnded(job)) return;
        await this.change((f) => {
          const entry = f.pending.find((p) => p.jobId === job.id);
          // Not ours any more (the wizard was reset meanwhile): nothing to record.
          return entry ? recordJobEnd(f, entry, job) : f;
        });
      })
      .catch((error: unknown) => this.options.logger.warn('wizard: could not record the end of a job', { jobId: pending.jobId, ...describeThrown(error) }))
      .finally(() => this.watching.delete(pending.jobId));
  }

  // ------------------------------------------------------------ step 0: the debug LLM

  async setLlm(secretId: string): Promise<WizardStateData> {
    const meta = this.options.vault.meta(secretId);
    if (!meta) throw new AppError('SECRET_NOT_FOUND', `No secret with id "${secretId}" in the vault. Save the LLM endpoint in Settings → Secrets (or in this step), then choose it.`);
    requireKind(meta, ['llm'], 'The wizard’s debug LLM');
    if (!meta.llm) {
      throw new AppError('VALIDATION_FAILED', `"${meta.name}" is not an LLM endpoint with a base URL and model. Choose an LLM endpoint, or edit this one to add them.`);
    }
    const llm = meta.llm;
    const result = await this.options.handlers()['secrets:test']({ id: secretId });
    return this.change((f) => {
      const changed = !f.llm || f.llm.secretId !== secretId || f.llm.baseUrl !== llm.baseUrl || f.llm.model !== llm.model;
      // The episode test and the debug episode ran with the old LLM: they must run again.
      const base = changed ? this.stale(f, ['project', 'debug', 'train']) : f;
      return {
        ...base,
        current: 'llm',
        llm: {
          secretId,
          baseUrl: llm.baseUrl,
          model: llm.model,
          test: { ok: result.ok, latencyMs: result.latencyMs === null ? null : Math.round(result.latencyMs), message: result.message, at: result.at },
        },
      };
    });
  }

  // ------------------------------------------------------------ step 2: training code

  async previewCode(form: TrainingFormData): Promise<z.infer<typeof CodePreview>> {
    const project = this.requireProject(this.locked('code'));
    return { files: await previewTrainingCode(this.options.resourcesDir, project, form) };
  }

  private codeQueue: Promise<unknown> = Promise.resolve();

  async generateCode(request: { form: TrainingFormData; overwrite: GeneratedName[] }): Promise<WizardStateData> {
    // Two generate clicks (two windows) must not interleave their writes and restores.
    const run = async () => {
      const project = this.requireProject(this.locked('code'));
      // The project's interpreter (else the runner's recommendation): a bare 'python3' is not on every PATH (Windows).
      const generated = await generateTrainingCode(this.options.resourcesDir, project, request, await this.project.pythonFor(project));
      return this.change((f) => {
        const before = new Map((f.code?.files ?? []).map((file) => [file.name, file.sha256]));
        const differs = f.code !== null && generated.files.some((file) => before.get(file.name) !== file.sha256);
        const base = differs ? this.stale(f, ['debug', 'train']) : f;
        return clearStale({ ...base, current: 'code', code: { form: request.form, files: generated.files, compiledAt: generated.compiledAt } }, 'code');
      });
    };
    const result = this.codeQueue.then(run, run);
    this.codeQueue = result.catch(() => undefined);
    return result;
  }

  requireProject(facts: WizardFactsData): NonNullable<WizardFactsData['project']> {
    if (!facts.project) throw new AppError('PROJECT_INVALID', 'No agent project chosen yet: choose the project folder (scaffold or adopt) in the "Agent project" step first.');
    return facts.project;
  }

  // ------------------------------------------------------------ step 3: the swarm server

  async chooseSwarm(choice: SwarmChoiceData): Promise<WizardStateData> {
    this.locked('swarm');
    if (choice.kind === 'profile') this.options.profiles.get(choice.profileId);
    return this.change((f) => {
      if (f.swarm && sameChoice(f.swarm.choice, choice)) return { ...f, current: 'swarm' };
      // The debug episode ran against the other server: run it again against this one.
      const base = this.stale(f, ['debug', 'train']);
      return clearStale(
        { ...base, current: 'swarm', swarm: { choice, phase: 'idle', detail: null, engineId: null, containerId: null, url: null }, swarmReadyAt: null, goneProfile: null },
        'swarm',
      );
    });
  }

  /** One start at a time: a second press while one runs waits for the same outcome. */
  startSwarm(options: { restartDryRun?: boolean } = {}): Promise<WizardStateData> {
    this.swarmStart ??= this.runSwarmStart(options).finally(() => {
      this.swarmStart = null;
    });
    return this.swarmStart;
  }

  private async runSwarmStart(options: { restartDryRun?: boolean }): Promise<WizardStateData> {
    const facts = this.locked('swarm');
    const choice = facts.swarm?.choice;
    const llm = facts.llm;
    if (!choice || !llm) throw new AppError('VALIDATION_FAILED', 'Choose where the swarm server runs (the dry run or a profile) first.');
    const progress = async (patch: SwarmProgress) => {
      await this.change((f) => (f.swarm && sameChoice(f.swarm.choice, choice) ? { ...f, swarm: { ...f.swarm, ...patch } } : f));
    };
    await this.change((f) => ({
      ...f,
      current: 'swarm',
      swarmReadyAt: null,
      swarm: f.swarm ? { ...f.swarm, phase: 'starting', detail: 'starting', url: null } : f.swarm,
    }));
    try {
      const target = await startSwarm(choice, llm, {
        handlers: this.options.handlers,
        profiles: this.options.profiles,
        progress,
        waits: this.options.swarmWaits ?? DEFAULT_SWARM_WAITS,
      }, options);
      return await this.change((f) => {
        if (!f.swarm || !sameChoice(f.swarm.choice, choice)) return f;
        return clearStale({ ...f, swarm: { ...f.swarm, ...target, phase: 'ready', detail: null }, swarmReadyAt: new Date().toISOString() }, 'swarm');
      });
    } catch (error) {
      // Another LLM on the running dry run is a question for the user (the step offers "Restart"),
      // said once by the step: nothing started or failed.
      if (isAppError(error) && error.params?.holder === 'wizard-other-llm') {
        await progress({ phase: 'idle', detail: null }).catch(() => undefined);
        throw error;
      }
      const detail = isAppError(error) ? error.message : 'The start failed unexpectedly; the app log has the details.';
      await progress({ phase: 'failed', detail }).catch(() => undefined);
      throw error;
    }
  }

  // ------------------------------------------------------------ steps 4 and 5: debug, train

  async runDebug(): Promise<JobViewData> {
    const facts = this.locked('debug');
    const project = this.requireProject(facts);
    const { swarm, code } = facts;
    if (!swarm?.engineId || !swarm.containerId || !code) throw new AppError('WIZARD_STEP_LOCKED', 'Start the swarm server and generate the scripts first.');
    return this.startJob(
      {
        kind: 'debug-episode',
        cwd: project.buildDir,
        script: join(project.buildDir, 'agent_roll_one_episode_debug.py'),
        python: await this.project.pythonFor(project),
        llmSecretId: facts.llm?.secretId ?? null,
        swarm: { engineId: swarm.engineId, containerId: swarm.containerId, profileId: swarm.choice.kind === 'profile' ? swarm.choice.profileId : null },
        remoteModelPath: code.form.modelPath,
        label: `Debug episode · ${this.describe(swarm.choice)}`,
      },
      { purpose: 'debug', itemId: null, choice: swarm.choice },
      'debug',
    );
  }

  async train(confirmEngineRestart: boolean): Promise<JobViewData> {
    const facts = this.locked('train');
    const project = this.requireProject(facts);
    const { swarm, code } = facts;
    if (!swarm?.engineId || !swarm.containerId || !code) throw new AppError('WIZARD_STEP_LOCKED', 'Start the swarm server and generate the scripts first.');
    const previous = facts.train ? this.jobOrNull(facts.train.jobId) : null;
    if (previous && !hasEnded(previous)) throw new AppError('JOB_BUSY', `Training already runs (job ${previous.id}). Stop it first, or watch it on the dashboard.`);
    const job = await this.startJob(
      {
        kind: 'train',
        cwd: project.buildDir,
        script: join(project.buildDir, 'agent_roll.py'),
        python: await this.project.pythonFor(project),
        llmSecretId: facts.llm?.secretId ?? null,
        swarm: { engineId: swarm.engineId, containerId: swarm.containerId, profileId: swarm.choice.kind === 'profile' ? swarm.choice.profileId : null },
        remoteModelPath: code.form.modelPath,
        confirmEngineRestart,
        label: `Training · ${this.describe(swarm.choice)}`,
      },
      { purpose: 'train', itemId: null, choice: swarm.choice },
      'train',
    );
    await this.change((f) => clearStale({ ...f, train: { jobId: job.id, at: job.startedAt } }, 'train'));
    return job;
  }

  async stopTrain(): Promise<JobViewData> {
    const train = this.facts().train;
    if (!train) throw new AppError('JOB_NOT_FOUND', 'No training run was started from the wizard.');
    return this.options.jobs.cancel(train.jobId);
  }

  private jobOrNull(jobId: string): JobViewData | null {
    try {
      return this.options.jobs.get(jobId);
    } catch {
      return null;
    }
  }

  // ------------------------------------------------------------ the training form's pre-fill

  private suggestion(facts: WizardFactsData): TrainingFormSuggestionData {
    const project = facts.project;
    const experimentName = project?.buildId
      ? `opencode_build_${project.buildId}`
      : project
        ? basename(project.projectDir).replace(/[^A-Za-z0-9_.-]+/g, '_') || 'agent_training'
        : 'agent_training';
    const profiles = this.options.profiles.list();
    const choice = facts.swarm?.choice;
    const chosen = choice?.kind === 'profile' ? profiles.find((p) => p.id === choice.profileId) : undefined;
    // The chosen profile's mount; before a choice, the only profile that has one.
    const withModel = profiles.filter((p) => p.model);
    const source = chosen ?? (withModel.length === 1 ? withModel[0] : undefined);
    return {
      experimentName,
      modelPath: source?.model?.containerPath ?? null,
      modelPathSource: source?.model ? `profile "${source.label}": its model mount` : null,
    };
  }
}

function sameChoice(a: SwarmChoiceData, b: SwarmChoiceData): boolean {
  return a.kind === b.kind && (a.kind === 'dry-run' || (b.kind === 'profile' && a.profileId === b.profileId));
}
