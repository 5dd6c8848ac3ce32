import { AppError } from '../../shared/errors';
import { JobStartRequest, type JobStartInput, type JobViewData } from '../../shared/schemas-jobs';
import type { SwarmChoiceData, SwarmChoiceNameData, WizardStateData, WizardStepName } from '../../shared/schemas-wizard';
import type { EventSink } from '../events';
import type { Handlers } from '../ipc/handlers';
import type { JobsApi } from '../jobs/jobs-api';
import type { ProfileStore } from '../profiles/profile-store';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { JsonStore } from '../util/json-store';
import type { Logger } from '../util/logger';
import { describeThrown } from '../util/logger';
import { CodeSteps } from './code-steps';
import { hasEnded, recordJobEnd } from './job-facts';
import { ProjectSteps } from './project-steps';
import { RunSteps } from './run-steps';
import type { SwarmWaits } from './swarm-starter';
import { SwarmSteps } from './swarm-steps';
import { createWizardStore, EMPTY_FACTS, type PendingJobData, type WizardFacts, type WizardFactsData } from './wizard-facts';
import { deriveState, markStale, requireUnlocked } from './wizard-steps';

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
 * first and then sent as a `wizard:changed` snapshot. The steps' actions live by use case in
 * `code` (the LLM and the training code), `project`, `swarm` and `runs` (debug episode, training).
 */
export class WizardService {
  private readonly store: JsonStore<typeof WizardFacts>;
  /** Jobs whose end we already wait for (a restart or a second look must not record twice). */
  private readonly watching = new Set<string>();
  private disposed = false;
  /** Profile labels as last seen: a removed profile is named by its label, not its id. */
  private profileLabels = new Map<string, string>();
  private stopWatchingProfiles: (() => void) | null = null;
  readonly project: ProjectSteps;
  readonly code: CodeSteps;
  readonly swarm: SwarmSteps;
  readonly runs: RunSteps;

  constructor(private readonly options: WizardServiceOptions) {
    this.store = createWizardStore(options.dataDir, options.logger);
    this.project = new ProjectSteps(this, options);
    this.code = new CodeSteps(this, options);
    this.swarm = new SwarmSteps(this, options);
    this.runs = new RunSteps(this, options);
  }

  /** Reads `wizard.json`; a swarm start cut short by the restart is failed; jobs still awaited are looked up by id. */
  async load(): Promise<void> {
    const facts = await this.store.load();
    this.rememberProfileLabels();
    this.stopWatchingProfiles = this.options.profiles.onChange(() => void this.profilesChanged().catch((error) => this.options.logger.warn(`wizard: ${describeThrown(error)}`)));
    if (facts.swarm && IN_PROGRESS.has(facts.swarm.phase)) {
      await this.store.update((f) => ({
        ...f,
        swarm: f.swarm
          ? { ...f.swarm, phase: 'failed' as const, detail: 'The app stopped while the server was starting. Press Start again.', say: { key: 'appStopped' as const, params: {} } }
          : null,
      }));
    } else if (facts.swarm?.choice.kind === 'dry-run' && facts.swarm.phase === 'ready') {
      // The dry run lives inside the backend: it ended with the app. A container (or a native server)
      // outlives the app and is found again, so only the dry run has to be started again.
      await this.store.update((f) => ({
        ...f,
        swarmReadyAt: null,
        swarm: f.swarm
          ? { ...f.swarm, phase: 'idle' as const, url: null, detail: 'The dry run ended when the app closed. Press Start again.', say: { key: 'dryRunEnded' as const, params: {} } }
          : null,
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
          swarm: { ...f.swarm, phase: 'idle', detail: null, say: null, engineId: null, containerId: null, url: null },
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
    return deriveState(facts, (c) => this.describe(c), this.code.suggestion(facts));
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

  /** A swarm choice as data: the dry run, or a profile by its label (a removed one by its label as last seen). */
  describe(choice: SwarmChoiceData): SwarmChoiceNameData {
    if (choice.kind === 'dry-run') return { kind: 'dry-run' };
    const profile = this.options.profiles.list().find((p) => p.id === choice.profileId);
    if (profile) return { kind: 'profile', label: profile.label, removed: false };
    const gone = this.profileLabels.get(choice.profileId);
    return gone ? { kind: 'profile', label: gone, removed: true } : { kind: 'profile', label: choice.profileId, removed: false };
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

  requireProject(facts: WizardFactsData): NonNullable<WizardFactsData['project']> {
    if (!facts.project) throw new AppError('PROJECT_INVALID', 'No agent project chosen yet: choose the project folder (scaffold or adopt) in the "Agent project" step first.');
    return facts.project;
  }

  jobOrNull(jobId: string): JobViewData | null {
    try {
      return this.options.jobs.get(jobId);
    } catch {
      return null;
    }
  }
}
