import { AppError } from '../../shared/errors';
import type { JobViewData } from '../../shared/schemas-jobs';
import type { ProjectSetupData, WizardStateData } from '../../shared/schemas-wizard';
import type { JobsApi } from '../jobs/jobs-api';
import { setUpProject } from '../project/project-files';
import { datasetProbePath } from '../project/templates';
import type { WizardFactsData } from './wizard-facts';
import type { WizardService } from './wizard-service';
import { clearStale } from './wizard-steps';

type Project = NonNullable<WizardFactsData['project']>;

/**
 * Step 1, the agent project: choose (scaffold or adopt) the files, the interpreter, and the two
 * tests whose results complete the step (≥ 1 dataset item, a numeric episode reward).
 */
export class ProjectSteps {
  constructor(
    private readonly wizard: WizardService,
    private readonly options: { resourcesDir: string; jobs: JobsApi; newBuildId?: () => string },
  ) {}

  async setProject(setup: ProjectSetupData): Promise<WizardStateData> {
    const before = this.wizard.locked('project').project;
    // Creating the scripts again in the same folder updates the build folder in use (no new one
    // orphaning the old) unless the user typed another build id.
    const reuse = setup.mode === 'scaffold' && setup.buildId === null && before?.mode === 'scaffold' && before.projectDir === setup.projectDir && before.buildId;
    const request = reuse ? { ...setup, buildId: before.buildId } : setup;
    const known = new Map((before?.written ?? []).map((w) => [w.path, w.sha256] as const));
    const layout = await setUpProject(this.options.resourcesDir, request, this.options.newBuildId, known);
    return this.wizard.change((f) => {
      const before = f.project;
      const same =
        before !== null && before.projectDir === layout.projectDir && before.collectorFile === layout.collectorFile && before.episodeFile === layout.episodeFile;
      if (same) return { ...f, current: 'project', project: { ...before, ...layout } };
      // Other files: their tests must run again, and code generated for the old ones is stale.
      const base = this.wizard.stale(f, ['code', 'debug', 'train']);
      const python = before?.projectDir === layout.projectDir ? before.python : null;
      return clearStale({ ...base, current: 'project', project: { ...layout, python, dataset: null, episode: null } }, 'project');
    });
  }

  /** The interpreter every run of the project uses, checked by the job runner's discovery first. */
  async setPython(python: string): Promise<WizardStateData> {
    const project = this.wizard.requireProject(this.wizard.locked('project'));
    const discovery = await this.options.jobs.discoverPython({ projectDir: project.projectDir, extra: python });
    const found = discovery.interpreters.find((i) => i.path === python) ?? discovery.interpreters.find((i) => i.source === 'custom');
    if (!found || found.version === null) {
      throw new AppError('PYTHON_NOT_FOUND', `${python} cannot be used as the project's Python: ${found?.problem ?? 'it was not found or does not run'}. Choose another interpreter.`);
    }
    return this.wizard.change((f) => (f.project ? { ...f, current: 'project', project: { ...f.project, python: found.path } } : f));
  }

  /** The chosen interpreter; when none was chosen, the runner's recommendation (then kept). */
  async pythonFor(project: Project): Promise<string> {
    if (project.python) return project.python;
    const discovery = await this.options.jobs.discoverPython({ projectDir: project.projectDir, extra: null });
    const recommended = discovery.recommended;
    if (!recommended) throw new AppError('PYTHON_NOT_FOUND', `No Python interpreter runs on this computer (looked in the project's .venv/venv, conda and PATH). ${discovery.installHint}`);
    await this.wizard.change((f) => (f.project && f.project.python === null ? { ...f, project: { ...f.project, python: recommended } } : f));
    return recommended;
  }

  /** The collector through `probe_dataset.py` (count and first items), from the build folder. */
  async testDataset(): Promise<JobViewData> {
    const project = this.wizard.requireProject(this.wizard.locked('project'));
    return this.wizard.startJob(
      {
        kind: 'dataset-test',
        cwd: project.buildDir,
        script: datasetProbePath(this.options.resourcesDir),
        args: [project.collectorFile],
        python: await this.pythonFor(project),
        label: 'Test dataset',
      },
      { purpose: 'dataset', itemId: null, choice: null },
      'project',
    );
  }

  /** One item through the episode runner with the debug LLM (its key as env, never argv). */
  async testEpisode(itemId: string): Promise<JobViewData> {
    const facts = this.wizard.locked('project');
    const project = this.wizard.requireProject(facts);
    return this.wizard.startJob(
      {
        kind: 'episode-test',
        cwd: project.buildDir,
        script: project.episodeFile,
        args: [itemId],
        python: await this.pythonFor(project),
        llmSecretId: facts.llm?.secretId ?? null,
        label: `Test episode · item ${itemId}`,
      },
      { purpose: 'episode', itemId, choice: null },
      'project',
    );
  }
}
