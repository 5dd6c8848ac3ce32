// Issue 32, item 7: a first run writes its training code before any profile exists, so the model path
// may be left empty; the debug episode and training then pass the model folder the chosen profile
// mounts (read when they start), and the dry run needs none. Real ProfileStore and wizard store on
// disk; the other domains are not called (TEST DOUBLES that throw if they were).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../../electron/shared/errors';
import { ProfileInput } from '../../../../electron/shared/schemas-profiles';
import { TrainingForm } from '../../../../electron/shared/schemas-wizard';
import { ProfileStore } from '../../../../electron/services/profiles/profile-store';
import { WizardService, type WizardServiceOptions } from '../../../../electron/services/wizard/wizard-service';

const unused = new Proxy({}, { get: () => () => { throw new Error('not used by this test'); } });

describe('the model path of a first run', () => {
  let dir: string;
  let profiles: ProfileStore;
  let service: WizardService;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wizard-model-'));
    profiles = new ProfileStore(dir);
    await profiles.load();
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    service = new WizardService({ dataDir: dir, resourcesDir: dir, events: { emit: () => undefined }, jobs: unused, handlers: () => unused, profiles, vault: unused, logger } as unknown as WizardServiceOptions);
    await service.load();
  });

  afterEach(() => {
    service.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a training form without a model path, and suggests none while no profile mounts one', () => {
    const form = TrainingForm.parse({ experimentName: 'first_run', modelPath: '' });
    expect(form.modelPath).toBe('');
    expect(profiles.list()).toEqual([]);
    expect(service.state().suggestedForm).toMatchObject({ modelPath: null, modelPathProfile: null });
  });

  it('passes no model to the dry run, the profile’s model mount to a profile, and a typed path to either', async () => {
    const empty = TrainingForm.parse({ experimentName: 'first_run', modelPath: '' });
    expect(service.runs.modelPathFor(empty, { kind: 'dry-run' })).toBeNull();

    const withModel = await profiles.add(
      ProfileInput.parse({ label: 'GPU box', engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main', model: { hostPath: '/srv/models/qwen', containerPath: '/models/qwen' } }),
    );
    expect(service.runs.modelPathFor(empty, { kind: 'profile', profileId: withModel.id })).toBe('/models/qwen');
    // The only profile with a model mount pre-fills the form, named by its label for the renderer's words.
    expect(service.state().suggestedForm).toMatchObject({ modelPath: '/models/qwen', modelPathProfile: 'GPU box' });

    const typed = TrainingForm.parse({ experimentName: 'first_run', modelPath: '/models/other' });
    expect(service.runs.modelPathFor(typed, { kind: 'profile', profileId: withModel.id })).toBe('/models/other');
    expect(service.runs.modelPathFor(typed, { kind: 'dry-run' })).toBe('/models/other');
  });

  it('refuses a profile run when neither the form nor the profile names a model, saying what to do', async () => {
    const bare = await profiles.add(ProfileInput.parse({ label: 'No model', engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' }));
    const empty = TrainingForm.parse({ experimentName: 'first_run', modelPath: '' });
    let thrown: unknown;
    try {
      service.runs.modelPathFor(empty, { kind: 'profile', profileId: bare.id });
    } catch (error) {
      thrown = error;
    }
    expect(isAppError(thrown) && thrown.code).toBe('VALIDATION_FAILED');
    expect(isAppError(thrown) && thrown.params).toEqual({ reason: 'no-model-path', profile: 'No model' });
    expect((thrown as Error).message).toContain('mounts no model folder');
  });
});
