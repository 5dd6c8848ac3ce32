// The wizard against a swarm PROFILE on the test bed's local dockerd: the fake swarm image (a labelled TEST
// DOUBLE of the GPU server) started through `profiles:start` (doctor included), then the generated debug episode
// against it. Creates containers: run it under `flock /tmp/agentswarm-docker.lock`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import type { FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { freePort } from '../support/helpers';
import { loadTestbed } from '../testbed/testbed';
import { call, runDebug, smallForm, useWizardSuite, startWizardApp, stepStatus, throughCode, type WizardApp } from './support/wizard-fixtures';

const MODEL_IN_CONTAINER = '/mnt/models/fake-qwen';
let llm: FakeLlm;
let wizard: WizardApp | null = null;
const folders: string[] = [];

useWizardSuite({ llmStarted: (started) => (llm = started), current: () => wizard, ended: () => (wizard = null), folders });

describe('wizard on a swarm profile (local Docker, fake swarm image)', () => {
  it('starts the profile through its doctor until /health answers, suggests its model mount, and passes a debug episode on it', async () => {
    wizard = await startWizardApp(llm);
    const { app, events } = wizard;
    const scratch = await mkdtemp(join(tmpdir(), 'agentswarm-wizard-profile-'));
    folders.push(scratch);
    const model = join(scratch, 'model');
    mkdirSync(model);
    writeFileSync(join(model, 'config.json'), '{"model_type":"qwen2"}');
    for (const dir of ['log', 'exp', 'ckpt']) mkdirSync(join(scratch, dir));
    const port = await freePort();
    const added = await call(app, 'profiles:add', ProfileInput.parse({
      label: 'Fake Qwen',
      engineId: 'local',
      image: loadTestbed().fakeSwarmImage,
      port,
      networkMode: 'host',
      gpus: { mode: 'none' },
      shm: { mode: 'size', gb: 1 },
      model: { hostPath: model, containerPath: MODEL_IN_CONTAINER },
      logDir: join(scratch, 'log'),
      experimentsDir: join(scratch, 'exp'),
      checkpointsDir: join(scratch, 'ckpt'),
      // The fake server's boot (model load) and weight sync, shortened.
      env: [
        { name: 'AJET_FAKE_BOOT_DELAY_MS', value: '300' },
        { name: 'AJET_FAKE_WEIGHT_SYNC_DELAY_MS', value: '100' },
      ],
    }));
    const profileId = added.profile.id;
    // The only profile with a model mount: the training form's model path is suggested from it.
    expect((await call(app, 'wizard:state', {})).suggestedForm).toMatchObject({ modelPath: MODEL_IN_CONTAINER, modelPathSource: 'profile "Fake Qwen": its model mount' });

    await throughCode(wizard, folders, { form: smallForm({ modelPath: MODEL_IN_CONTAINER }) });
    const chosen = await call(app, 'wizard:choose-swarm', { kind: 'profile', profileId });
    expect(chosen.swarm).toMatchObject({ choice: { kind: 'profile', profileId }, phase: 'idle' });
    const ready = await call(app, 'wizard:start-swarm', {});
    expect(ready.swarm).toMatchObject({ phase: 'ready', engineId: 'local', containerId: expect.any(String), url: `http://127.0.0.1:${port}` });
    expect(ready.steps[3]).toMatchObject({ status: 'done', fact: `profile "Fake Qwen" answered /health at http://127.0.0.1:${port}` });
    expect(events.states.map((s) => s.swarm?.phase)).toEqual(expect.arrayContaining(['doctor', 'health', 'ready']));
    expect((await call(app, 'profiles:list', {})).find((v) => v.profile.id === profileId)?.runtime.container).toMatchObject({ id: ready.swarm!.containerId, state: 'running' });

    const debug = await runDebug(wizard);
    expect(debug.started).toMatchObject({ kind: 'debug-episode', swarm: { engineId: 'local', containerId: ready.swarm!.containerId, profileId }, swarmUrl: `http://127.0.0.1:${port}`, label: 'Debug episode · profile "Fake Qwen"' });
    // The fake server echoes the question, which holds the expected word for q1: the agent scores itself 1.
    expect(debug.job).toMatchObject({ state: 'succeeded', result: { reward: 1, raw: { item_id: 'q1' } } });
    expect(debug.state.debug).toMatchObject({ choice: { kind: 'profile', profileId }, reward: 1, passed: true });
    expect(stepStatus(debug.state)).toMatchObject({ swarm: 'done', debug: 'done', train: 'todo' });
    expect(debug.state.steps[4]?.fact).toBe('reward 1 on profile "Fake Qwen"');

    // Back to the dry run: the debug episode ran on the other server, so it must run again there.
    const switched = await call(app, 'wizard:choose-swarm', { kind: 'dry-run' });
    expect(stepStatus(switched)).toMatchObject({ swarm: 'todo', debug: 'stale' });
  }, 180_000);
});
