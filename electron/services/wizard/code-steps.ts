import { basename } from 'node:path';
import type { z } from 'zod';
import { AppError } from '../../shared/errors';
import type { CodePreview, TrainingFormData, TrainingFormSuggestionData, WizardStateData } from '../../shared/schemas-wizard';
import type { Handlers } from '../ipc/handlers';
import type { ProfileStore } from '../profiles/profile-store';
import { generateTrainingCode, previewTrainingCode, type GeneratedName } from '../project/training-code';
import { requireKind } from '../secrets/secret-binding';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { WizardFactsData } from './wizard-facts';
import type { WizardService } from './wizard-service';
import { clearStale } from './wizard-steps';

/**
 * Step 0, the debug LLM (a vault secret that answers a test), and step 2, the training code: the
 * form's pre-fill, a preview with diffs, and the files written and compiled.
 */
export class CodeSteps {
  private codeQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly wizard: WizardService,
    private readonly options: { resourcesDir: string; handlers: () => Handlers; profiles: ProfileStore; vault: SecretVaultApi },
  ) {}

  async setLlm(secretId: string): Promise<WizardStateData> {
    const meta = this.options.vault.meta(secretId);
    if (!meta) throw new AppError('SECRET_NOT_FOUND', `No secret with id "${secretId}" in the vault. Save the LLM endpoint in Settings → Secrets (or in this step), then choose it.`);
    requireKind(meta, ['llm'], 'The wizard’s debug LLM');
    if (!meta.llm) {
      throw new AppError('VALIDATION_FAILED', `"${meta.name}" is not an LLM endpoint with a base URL and model. Choose an LLM endpoint, or edit this one to add them.`);
    }
    const llm = meta.llm;
    const result = await this.options.handlers()['secrets:test']({ id: secretId });
    return this.wizard.change((f) => {
      const changed = !f.llm || f.llm.secretId !== secretId || f.llm.baseUrl !== llm.baseUrl || f.llm.model !== llm.model;
      // The episode test and the debug episode ran with the old LLM: they must run again.
      const base = changed ? this.wizard.stale(f, ['project', 'debug', 'train']) : f;
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

  async previewCode(form: TrainingFormData): Promise<z.infer<typeof CodePreview>> {
    const project = this.wizard.requireProject(this.wizard.locked('code'));
    return { files: await previewTrainingCode(this.options.resourcesDir, project, form) };
  }

  async generateCode(request: { form: TrainingFormData; overwrite: GeneratedName[] }): Promise<WizardStateData> {
    // Two generate clicks (two windows) must not interleave their writes and restores.
    const run = async () => {
      const project = this.wizard.requireProject(this.wizard.locked('code'));
      // The project's interpreter (else the runner's recommendation): a bare 'python3' is not on every PATH (Windows).
      const generated = await generateTrainingCode(this.options.resourcesDir, project, request, await this.wizard.project.pythonFor(project));
      return this.wizard.change((f) => {
        const before = new Map((f.code?.files ?? []).map((file) => [file.name, file.sha256]));
        const differs = f.code !== null && generated.files.some((file) => before.get(file.name) !== file.sha256);
        const base = differs ? this.wizard.stale(f, ['debug', 'train']) : f;
        return clearStale({ ...base, current: 'code', code: { form: request.form, files: generated.files, compiledAt: generated.compiledAt } }, 'code');
      });
    };
    const result = this.codeQueue.then(run, run);
    this.codeQueue = result.catch(() => undefined);
    return result;
  }

  /** The training form's pre-fill: an experiment name from the build, the model path from the chosen (or only) profile's mount. */
  suggestion(facts: WizardFactsData): TrainingFormSuggestionData {
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
      modelPathProfile: source?.model ? source.label : null,
    };
  }
}
