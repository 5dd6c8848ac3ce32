// Issue 32, item 5: the profile the wizard's swarm step used is removed. The swarm step is to do again (its old
// server's status cleared), the debug episode that ran there is out of date, and the state names the profile
// that went away. Real ProfileStore and wizard store on disk; the other domains are not called (TEST DOUBLES
// that throw if they were).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WizardServiceOptions } from '../../../../electron/services/wizard/wizard-service';
import { WizardService } from '../../../../electron/services/wizard/wizard-service';
import { ProfileStore } from '../../../../electron/services/profiles/profile-store';
import { ProfileInput } from '../../../../electron/shared/schemas-profiles';
import type { WizardStateData } from '../../../../electron/shared/schemas-wizard';

const unused = new Proxy({}, { get: () => () => { throw new Error('not used by this test'); } });

describe('removing the profile the wizard used', () => {
  let dir: string;
  let profiles: ProfileStore;
  let service: WizardService;
  const sent: WizardStateData[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wizard-gone-'));
    profiles = new ProfileStore(dir);
    await profiles.load();
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    service = new WizardService({
      dataDir: dir,
      resourcesDir: dir,
      events: { emit: (_channel: string, state: WizardStateData) => void sent.push(state) },
      jobs: unused,
      handlers: () => unused,
      profiles,
      vault: unused,
      logger,
    } as unknown as WizardServiceOptions);
    await service.load();
  });

  afterEach(() => {
    service.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('marks the steps that used it out of date, clears its server status and names it', async () => {
    const profile = await profiles.add(ProfileInput.parse({ label: 'GPU box', engineId: 'local', mode: 'container', image: 'ghcr.io/modelscope/agentjet:main' }));
    const choice = { kind: 'profile' as const, profileId: profile.id };
    const at = new Date().toISOString();
    await service.change((f) => ({
      ...f,
      current: 'debug',
      swarm: { choice, phase: 'ready', detail: null, engineId: 'local', containerId: 'abc123abc123', url: 'http://127.0.0.1:10086' },
      swarmReadyAt: at,
      debug: { jobId: 'job-1', choice, reward: 1, passed: true, at },
    }));
    expect(service.state().steps.find((s) => s.id === 'debug')?.status).toBe('done');

    await profiles.remove(profile.id);
    await expect.poll(() => service.state().goneProfile).toEqual({ id: profile.id, label: 'GPU box' });
    const state = service.state();
    expect(state.swarm).toMatchObject({ phase: 'idle', engineId: null, containerId: null, url: null });
    expect(state.steps.find((s) => s.id === 'swarm')?.status).toBe('todo');
    const debug = state.steps.find((s) => s.id === 'debug');
    expect(debug?.status).toBe('stale');
    // Named by its label, not its id.
    expect(debug?.fact).toContain('"GPU box" (removed)');
    expect(debug?.summary).toEqual({ step: 'debug', server: { kind: 'profile', label: 'GPU box', removed: true }, reward: 1 });
    expect(sent.at(-1)?.goneProfile?.label).toBe('GPU box');
  });
});
