import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import type { JobViewData } from '../../shared/schemas-jobs';
import type { SwarmChoiceData, TrainingFormData } from '../../shared/schemas-wizard';
import type { JobsApi } from '../jobs/jobs-api';
import type { ProfileStore } from '../profiles/profile-store';
import { hasEnded } from './job-facts';
import type { WizardFactsData } from './wizard-facts';
import type { WizardService } from './wizard-service';
import { choiceInEnglish, clearStale } from './wizard-steps';

/**
 * Steps 4 and 5: the debug episode and training against the started swarm server, each a job of
 * the runner whose end the wizard records.
 */
export class RunSteps {
  constructor(
    private readonly wizard: WizardService,
    private readonly options: { jobs: JobsApi; profiles: ProfileStore },
  ) {}

  async runDebug(): Promise<JobViewData> {
    const facts = this.wizard.locked('debug');
    const { project, swarm, code } = this.started(facts);
    return this.wizard.startJob(
      {
        kind: 'debug-episode',
        cwd: project.buildDir,
        script: join(project.buildDir, 'agent_roll_one_episode_debug.py'),
        python: await this.wizard.project.pythonFor(project),
        llmSecretId: facts.llm?.secretId ?? null,
        swarm: { engineId: swarm.engineId, containerId: swarm.containerId, profileId: swarm.choice.kind === 'profile' ? swarm.choice.profileId : null },
        remoteModelPath: this.modelPathFor(code.form, swarm.choice),
        label: `Debug episode · ${choiceInEnglish(this.wizard.describe(swarm.choice))}`,
      },
      { purpose: 'debug', itemId: null, choice: swarm.choice },
      'debug',
    );
  }

  async train(confirmEngineRestart: boolean): Promise<JobViewData> {
    const facts = this.wizard.locked('train');
    const { project, swarm, code } = this.started(facts);
    const previous = facts.train ? this.wizard.jobOrNull(facts.train.jobId) : null;
    if (previous && !hasEnded(previous)) throw new AppError('JOB_BUSY', `Training already runs (job ${previous.id}). Stop it first, or watch it on the dashboard.`);
    const job = await this.wizard.startJob(
      {
        kind: 'train',
        cwd: project.buildDir,
        script: join(project.buildDir, 'agent_roll.py'),
        python: await this.wizard.project.pythonFor(project),
        llmSecretId: facts.llm?.secretId ?? null,
        swarm: { engineId: swarm.engineId, containerId: swarm.containerId, profileId: swarm.choice.kind === 'profile' ? swarm.choice.profileId : null },
        remoteModelPath: this.modelPathFor(code.form, swarm.choice),
        confirmEngineRestart,
        label: `Training · ${choiceInEnglish(this.wizard.describe(swarm.choice))}`,
      },
      { purpose: 'train', itemId: null, choice: swarm.choice },
      'train',
    );
    await this.wizard.change((f) => clearStale({ ...f, train: { jobId: job.id, at: job.startedAt } }, 'train'));
    return job;
  }

  async stopTrain(): Promise<JobViewData> {
    const train = this.wizard.facts().train;
    if (!train) throw new AppError('JOB_NOT_FOUND', 'No training run was started from the wizard.');
    return this.options.jobs.cancel(train.jobId);
  }

  /**
   * The model path the run passes as REMOTE_MODEL_PATH (issue 32, a first run has no profile when it
   * writes the training code): the one typed in the form; else the model folder the chosen profile
   * mounts, read now; the dry run trains nothing and needs none.
   */
  modelPathFor(form: TrainingFormData, choice: SwarmChoiceData): string | null {
    if (form.modelPath !== '') return form.modelPath;
    if (choice.kind === 'dry-run') return null;
    const profile = this.options.profiles.get(choice.profileId);
    if (profile.model) return profile.model.containerPath;
    throw new AppError(
      'VALIDATION_FAILED',
      `The training code names no model path and profile "${profile.label}" mounts no model folder: add the model folder to the profile (Servers → the profile → Edit), or type the model path inside its container in the "Training code" step and generate the files again.`,
      { params: { reason: 'no-model-path', profile: profile.label } },
    );
  }

  private started(facts: WizardFactsData) {
    const project = this.wizard.requireProject(facts);
    const { swarm, code } = facts;
    if (!swarm?.engineId || !swarm.containerId || !code) throw new AppError('WIZARD_STEP_LOCKED', 'Start the swarm server and generate the scripts first.');
    return { project, code, swarm: { ...swarm, engineId: swarm.engineId, containerId: swarm.containerId } };
  }
}
