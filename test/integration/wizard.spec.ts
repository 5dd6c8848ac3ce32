import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../electron/services/project/training-code';
import type { FakeLlm } from '../fixtures/fake-llm/fake-llm';
import {
  call,
  CANARY_KEY,
  makeSampleProject,
  SAMPLE_AGENT_COMMAND,
  smallForm,
  useWizardSuite,
  startWizardApp,
  stepStatus,
  type WizardApp,
} from './support/wizard-fixtures';

/**
 * The wizard's steps 0–2 through the app's own handlers, as the UI drives them: the vault's LLM endpoint
 * against the fake LLM (TEST DOUBLE), a copy of the sample agent project with a venv that imports the ajet
 * stub (TEST DOUBLE), the real templates, the real job runner and real Python.
 */
let llm: FakeLlm;
let wizard: WizardApp | null = null;
const folders: string[] = [];

useWizardSuite({ llmStarted: (started) => (llm = started), current: () => wizard, ended: () => (wizard = null), folders });

async function project(): Promise<{ dir: string; python: string }> {
  const made = await makeSampleProject();
  folders.push(made.dir);
  return made;
}

/** Steps 0 and the project's folder, as a user gets there: the LLM answered, the scaffold written, the venv's python chosen. */
async function throughScaffold(w: WizardApp, rewardStyle: 'native' | 'judge' = 'native') {
  const { dir, python } = await project();
  await call(w.app, 'wizard:set-llm', { secretId: w.secretId });
  const state = await call(w.app, 'wizard:set-project', { mode: 'scaffold', projectDir: dir, buildId: null, rewardStyle, agentCommand: SAMPLE_AGENT_COMMAND });
  await call(w.app, 'wizard:set-python', { python });
  return { dir, python, project: state.project! };
}

/** Dataset test, then the episode test on `itemId`; returns the state after both were recorded. */
async function testProject(w: WizardApp, itemId: string) {
  const dataset = await call(w.app, 'wizard:test-dataset', {});
  const afterDataset = await w.events.recorded(dataset.id);
  const episode = await call(w.app, 'wizard:test-episode', { itemId });
  const afterEpisode = await w.events.recorded(episode.id);
  return { dataset, afterDataset, episode, afterEpisode };
}

describe('wizard steps 0–2 through the app', () => {
  it('step 0: the vault LLM answers → done with its latency; a wrong key keeps the step todo with the reason; later steps are locked by name', async () => {
    wizard = await startWizardApp(llm);
    const { app } = wizard;
    const first = await call(app, 'wizard:state', {});
    expect(first.current).toBe('llm');
    expect(Object.values(stepStatus(first))).toEqual(['todo', 'todo', 'todo', 'todo', 'todo', 'todo']);
    expect(first.steps.find((s) => s.id === 'debug')).toMatchObject({ dependsOn: ['code', 'swarm'], missing: ['code', 'swarm'] });

    // Locked: an action on a later step names what is missing and how to complete it.
    const { dir } = await project();
    await expect(call(app, 'wizard:set-project', { mode: 'scaffold', projectDir: dir })).rejects.toMatchObject({
      code: 'WIZARD_STEP_LOCKED',
      message: expect.stringMatching(/"Agent project" needs .*Debug LLM \(the LLM endpoint must answer a test\)/),
    });
    await expect(call(app, 'wizard:run-debug', {})).rejects.toMatchObject({ code: 'WIZARD_STEP_LOCKED', message: expect.stringMatching(/Training code.*Swarm server/) });
    await expect(call(app, 'wizard:train', {})).rejects.toMatchObject({ code: 'WIZARD_STEP_LOCKED', message: expect.stringContaining('Debug episode') });
    await expect(call(app, 'wizard:preview-code', smallForm())).rejects.toMatchObject({ code: 'WIZARD_STEP_LOCKED', message: expect.stringContaining('Agent project') });
    await expect(call(app, 'wizard:choose-swarm', { kind: 'dry-run' })).rejects.toMatchObject({ code: 'WIZARD_STEP_LOCKED', message: expect.stringContaining('Debug LLM') });
    // Nothing was written into the folder by the refused scaffold.
    expect(await readdir(dir)).not.toContain('tutorial');

    // A wrong key: the LLM refuses it, the step stays todo and says why.
    const wrong = await call(app, 'secrets:save', { name: 'Wrong key', kind: 'llm', value: 'sk-not-the-right-key-000000', llm: { baseUrl: llm.url, model: 'fake-debug-model' } });
    const refused = await call(app, 'wizard:set-llm', { secretId: wrong.id });
    expect(refused.llm).toMatchObject({ secretId: wrong.id, test: { ok: false, message: expect.stringMatching(/401|key/i) } });
    expect(refused.steps[0]).toMatchObject({ id: 'llm', status: 'todo', fact: null });
    expect(refused.steps[1]).toMatchObject({ id: 'project', missing: ['llm'] });

    const answered = await call(app, 'wizard:set-llm', { secretId: wizard.secretId });
    expect(answered.llm).toMatchObject({ secretId: wizard.secretId, baseUrl: llm.url, model: 'fake-debug-model', test: { ok: true, latencyMs: expect.any(Number) } });
    expect(answered.steps[0]).toMatchObject({ id: 'llm', status: 'done', fact: expect.stringMatching(/^answered in \d+ ms/), doneAt: expect.any(String) });
    expect(answered.steps[1]).toMatchObject({ id: 'project', status: 'todo', missing: [] });
    expect(llm.calls.some((c) => c.headers.authorization === `Bearer ${CANARY_KEY}`)).toBe(true);
    // The UI got the same snapshot as an event; no key anywhere in what it sees.
    expect(wizard.events.states.at(-1)).toEqual(answered);
    expect(JSON.stringify(wizard.events.states)).not.toContain(CANARY_KEY);
    expect(await call(app, 'wizard:state', {})).toEqual(answered);
  });

  it('step 1 (native reward): scaffolds the two files, tests the dataset and one episode with real Python → done; step 2 writes and compiles the training code, keeps a hand edit until overwrite is confirmed', async () => {
    wizard = await startWizardApp(llm);
    const { app, events } = wizard;
    const { dir, python, project: layout } = await throughScaffold(wizard);
    expect(layout).toMatchObject({ mode: 'scaffold', projectDir: dir, rewardStyle: 'native', buildDir: join(dir, 'tutorial', `opencode_build_${layout.buildId}`) });
    expect(layout.buildId).toMatch(/^[0-9a-f]{6}$/);
    expect((await readdir(layout.buildDir)).sort()).toEqual(['get_training_dataset_item_list.py', 'run_episode_once.py']);
    expect(layout.collectorFile).toBe(join(layout.buildDir, 'get_training_dataset_item_list.py'));
    expect(await readFile(layout.episodeFile, 'utf8')).toContain(`AGENT_COMMAND = "${SAMPLE_AGENT_COMMAND}"`);
    expect((await stat(layout.episodeFile)).mode & 0o777).toBe(0o644);
    expect((await call(app, 'wizard:state', {})).project?.python).toBe(python);

    // An interpreter that does not exist is refused with the runner's reason.
    await expect(call(app, 'wizard:set-python', { python: join(dir, 'no-such-python') })).rejects.toMatchObject({ code: 'PYTHON_NOT_FOUND' });

    const { dataset, afterDataset, episode, afterEpisode } = await testProject(wizard, 'q1');
    expect(dataset).toMatchObject({ kind: 'dataset-test', cwd: layout.buildDir, python, args: [layout.collectorFile] });
    expect(afterDataset.job).toMatchObject({ state: 'succeeded', result: { count: 4 } });
    expect(afterDataset.state.project?.dataset).toMatchObject({ jobId: dataset.id, count: 4 });
    expect(afterDataset.state.project?.dataset?.first[0]).toEqual({ id: 'q1', question: 'Reply with the single word apple.', answer: 'apple' });
    expect(afterEpisode.job).toMatchObject({ kind: 'episode-test', state: 'succeeded', args: ['q1'], llmSecretId: wizard.secretId, result: { reward: 1, raw: { item_id: 'q1', reward_style: 'native' } } });
    // The agent's call reached the debug LLM with the vault's key, through the environment (not argv).
    expect(JSON.stringify(afterEpisode.job)).not.toContain(CANARY_KEY);
    const state = await call(app, 'wizard:state', {});
    expect(state.project?.episode).toMatchObject({ jobId: episode.id, itemId: 'q1', reward: 1 });
    expect(state.steps[1]).toMatchObject({ id: 'project', status: 'done', fact: expect.stringMatching(/^4 items · reward 1 in \d+\.\d s$/) });
    expect(state.runningJobIds).toEqual([]);

    // Another item scores 0 (the agent's own score): still a reward, so still done, with the newest fact.
    const zero = await call(app, 'wizard:test-episode', { itemId: 'q2' });
    expect((await events.recorded(zero.id)).state.project?.episode).toMatchObject({ itemId: 'q2', reward: 0 });
    // An item that is not in the dataset: the run fails with the runner's words, and the step loses its fact.
    const missing = await call(app, 'wizard:test-episode', { itemId: 'nope' });
    const failed = await events.recorded(missing.id);
    expect(failed.job).toMatchObject({ state: 'failed', failure: { code: 'JOB_CRASHED', message: expect.stringContaining("no item 'nope'") } });
    expect(failed.state.steps[1]).toMatchObject({ status: 'todo' });
    await events.recorded((await call(app, 'wizard:test-episode', { itemId: 'q1' })).id);

    // Step 2: preview → two new files; generate → written and compiled.
    const form = smallForm();
    const preview = await call(app, 'wizard:preview-code', form);
    expect(preview.files.map((f) => [f.name, f.exists, f.changed, f.diff])).toEqual([
      ['agent_roll.py', false, false, ''],
      ['agent_roll_one_episode_debug.py', false, false, ''],
    ]);
    const roll = preview.files[0]!;
    expect(roll.path).toBe(join(layout.buildDir, 'agent_roll.py'));
    expect(roll.content).toContain('GRPO_N = 2');
    expect(roll.content).toContain('MODEL_PATH = "/models/debug"');
    // Without forceRestart the script joins the server's training; it never restarts the engine.
    expect(roll.content).toContain('    join_or_start_engine(swarm_worker, ajet_job)\n');
    expect(roll.content).not.toContain('force_restart=True');
    const generated = await call(app, 'wizard:generate-code', { form, overwrite: [] });
    expect(generated.code?.compiledAt).toEqual(expect.any(String));
    expect(generated.steps[2]).toMatchObject({ id: 'code', status: 'done', fact: 'agent_roll.py and agent_roll_one_episode_debug.py written and compiled' });
    for (const file of generated.code!.files) expect(sha256(await readFile(file.path, 'utf8'))).toBe(file.sha256);
    // The compile check leaves no __pycache__ in the user's folder.
    expect((await readdir(layout.buildDir)).sort()).toEqual(['agent_roll.py', 'agent_roll_one_episode_debug.py', 'get_training_dataset_item_list.py', 'run_episode_once.py']);
    // Generating the same code again changes nothing.
    expect((await call(app, 'wizard:generate-code', { form, overwrite: [] })).code?.files).toEqual(generated.code?.files);

    // A hand edit: the preview shows the diff; generating without confirmation keeps the user's file.
    const edited = `${await readFile(roll.path, 'utf8')}\n# my own tweak\n`;
    await writeFile(roll.path, edited);
    const again = await call(app, 'wizard:preview-code', form);
    expect(again.files[0]).toMatchObject({ name: 'agent_roll.py', exists: true, changed: true, diff: expect.stringContaining('-# my own tweak') });
    expect(again.files[1]).toMatchObject({ exists: true, changed: false, diff: '' });
    await expect(call(app, 'wizard:generate-code', { form, overwrite: [] })).rejects.toMatchObject({ code: 'WIZARD_FILE_EXISTS', message: expect.stringContaining('agent_roll.py') });
    expect(await readFile(roll.path, 'utf8')).toBe(edited);
    const replaced = await call(app, 'wizard:generate-code', { form, overwrite: ['agent_roll.py'] });
    expect(await readFile(roll.path, 'utf8')).toBe(roll.content);
    expect(replaced.steps[2]?.status).toBe('done');

    // forceRestart shows in the script as the literal call argument the job runner's confirmation check reads.
    const restart = await call(app, 'wizard:preview-code', smallForm({ forceRestart: true }));
    expect(restart.files[0]?.content).toContain('force_restart=True');
    expect(restart.files[1]?.content).not.toContain('force_restart=True');
  }, 120_000);
});
