import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { call, CANARY_KEY, makeSampleProject, SAMPLE_AGENT_COMMAND, smallForm, useWizardSuite, startWizardApp, type WizardApp } from './support/wizard-fixtures';

/**
 * The wizard's project step in its other shapes, through the app's handlers with real Python: the LLM judge
 * as reward (the fake LLM, a TEST DOUBLE, grades), the user's own files adopted, and every refusal
 * (PROJECT_INVALID, WIZARD_FILE_EXISTS) leaving the user's folder as it was.
 */
let llm: FakeLlm;
let wizard: WizardApp | null = null;
const folders: string[] = [];

useWizardSuite({ llmStarted: (started) => (llm = started), current: () => wizard, ended: () => (wizard = null), folders });

async function ready(): Promise<{ w: WizardApp; dir: string; python: string }> {
  const { dir, python } = await makeSampleProject();
  folders.push(dir);
  const w = await startWizardApp(llm);
  wizard = w;
  await call(w.app, 'wizard:set-llm', { secretId: w.secretId });
  return { w, dir, python };
}

/** What a user who wrote their own episode runner has: the item id as its argument, the reward as its last JSON line. */
const OWN_EPISODE_RUNNER = [
  'import json, subprocess, sys',
  '',
  'if __name__ == "__main__":',
  '    item = sys.argv[1]',
  '    out = subprocess.run([sys.executable, "agent.py", "--item", item], capture_output=True, text=True, check=True).stdout',
  '    print(json.dumps({"reward": json.loads(out.strip().splitlines()[-1])["score"], "item": item}))',
  '',
].join('\n');

describe('wizard project step', () => {
  it('judge reward style: the debug LLM grades the agent\'s answer with the rubric, with the vault\'s key', async () => {
    const { w, python, dir } = await ready();
    const state = await call(w.app, 'wizard:set-project', { mode: 'scaffold', projectDir: dir, buildId: 'judged', rewardStyle: 'judge', agentCommand: SAMPLE_AGENT_COMMAND });
    expect(state.project).toMatchObject({ rewardStyle: 'judge', buildId: 'judged' });
    expect(await readFile(state.project!.episodeFile, 'utf8')).toContain('REWARD_STYLE = "judge"');
    await call(w.app, 'wizard:set-python', { python });
    await w.events.recorded((await call(w.app, 'wizard:test-dataset', {})).id);

    // The agent's own call gets the default answer (wrong for q2: its own score would be 0); the judge says 0.8.
    const before = llm.calls.length;
    llm.script([{ kind: 'text' }, { kind: 'text', text: '0.8' }]);
    const episode = await call(w.app, 'wizard:test-episode', { itemId: 'q2' });
    const { job, state: after } = await w.events.recorded(episode.id);
    expect(job).toMatchObject({ state: 'succeeded', result: { reward: 0.8, raw: { reward_style: 'judge', item_id: 'q2' } } });
    expect(after.project?.episode).toMatchObject({ itemId: 'q2', reward: 0.8 });
    expect(after.steps[1]).toMatchObject({ status: 'done', fact: expect.stringContaining('reward 0.8') });
    const [agentCall, judgeCall] = llm.calls.slice(before).filter((c) => c.path === '/v1/chat/completions');
    expect(JSON.stringify(agentCall?.body)).toContain('What is 2 + 2?');
    const judged = judgeCall?.body as { model: string; messages: { role: string; content: string }[] };
    expect(judged.model).toBe('fake-debug-model');
    expect(judged.messages[0]?.content).toMatch(/You are a strict grader/);
    expect(judged.messages[1]?.content).toContain('Rubric:');
    expect(judged.messages[1]?.content).toContain('fake answer to: What is 2 + 2?');
    expect(judgeCall?.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
  }, 60_000);

  it("adopt: the user's own collector and episode runner are tested as they are, and the training code imports them from where they are", async () => {
    const { w, python, dir } = await ready();
    await writeFile(join(dir, 'episode.py'), OWN_EPISODE_RUNNER);
    const state = await call(w.app, 'wizard:set-project', { mode: 'adopt', projectDir: dir, collectorFile: join(dir, 'collector.py'), episodeFile: join(dir, 'episode.py') });
    expect(state.project).toMatchObject({ mode: 'adopt', buildId: null, buildDir: dir, collectorFile: join(dir, 'collector.py'), episodeFile: join(dir, 'episode.py'), rewardStyle: null });
    await call(w.app, 'wizard:set-python', { python });
    const dataset = await w.events.recorded((await call(w.app, 'wizard:test-dataset', {})).id);
    expect(dataset.state.project?.dataset).toMatchObject({ count: 4, first: ['q1', 'q2', 'q3', 'q4'] });
    const episode = await w.events.recorded((await call(w.app, 'wizard:test-episode', { itemId: 'q1' })).id);
    expect(episode.job).toMatchObject({ state: 'succeeded', cwd: dir, result: { reward: 1, raw: { item: 'q1' } } });
    expect(episode.state.steps[1]?.status).toBe('done');

    const preview = await call(w.app, 'wizard:preview-code', smallForm());
    const roll = preview.files[0]!.content;
    expect(preview.files[0]?.path).toBe(join(dir, 'agent_roll.py'));
    expect(roll).toContain('from collector import get_training_dataset_item_list');
    expect(roll).toContain('import episode as episode_runner');
    expect((await call(w.app, 'wizard:generate-code', { form: smallForm(), overwrite: [] })).steps[2]?.status).toBe('done');
    // The user's files are untouched; the two generated ones sit beside them.
    expect(await readFile(join(dir, 'episode.py'), 'utf8')).toBe(OWN_EPISODE_RUNNER);
    expect((await readdir(dir)).filter((n) => n.endsWith('.py')).sort()).toEqual(['agent.py', 'agent_roll.py', 'agent_roll_one_episode_debug.py', 'collector.py', 'episode.py']);
  }, 60_000);

  it('refuses unusable folders and files with PROJECT_INVALID, and never writes over a scaffold the user changed (WIZARD_FILE_EXISTS)', async () => {
    const { w, dir, python } = await ready();
    const setProject = (input: Parameters<typeof call<'wizard:set-project'>>[2]) => call(w.app, 'wizard:set-project', input);
    const invalid = (message: RegExp) => ({ code: 'PROJECT_INVALID', message: expect.stringMatching(message) });

    await expect(setProject({ mode: 'scaffold', projectDir: join(dir, 'missing') })).rejects.toMatchObject(invalid(/does not exist/));
    await expect(setProject({ mode: 'scaffold', projectDir: join(dir, 'agent.py') })).rejects.toMatchObject(invalid(/is a file, not a folder/));
    // A path under a regular file: no user (not even root) can create anything there.
    await expect(setProject({ mode: 'scaffold', projectDir: join(dir, 'agent.py', 'sub') })).rejects.toMatchObject(invalid(/does not exist/));

    const outside = await mkdtemp(join(tmpdir(), 'agentswarm-outside-'));
    folders.push(outside);
    await writeFile(join(outside, 'collector.py'), await readFile(join(dir, 'collector.py'), 'utf8'));
    await writeFile(join(dir, 'episode.py'), OWN_EPISODE_RUNNER);
    const adopt = (collector: string, episode = join(dir, 'episode.py')) => setProject({ mode: 'adopt', projectDir: dir, collectorFile: collector, episodeFile: episode });
    await expect(adopt(join(outside, 'collector.py'))).rejects.toMatchObject(invalid(/outside the project folder/));
    await expect(adopt(join(dir, 'nope.py'))).rejects.toMatchObject(invalid(/does not exist/));
    await writeFile(join(dir, 'my-collector.py'), await readFile(join(dir, 'collector.py'), 'utf8'));
    await expect(adopt(join(dir, 'my-collector.py'))).rejects.toMatchObject(invalid(/"my-collector\.py" cannot be imported by the training scripts.*my_collector\.py/));
    await writeFile(join(dir, 'json.py'), OWN_EPISODE_RUNNER);
    await expect(adopt(join(dir, 'collector.py'), join(dir, 'json.py'))).rejects.toMatchObject(invalid(/has the name of a module the training scripts import/));
    // Renamed as told (a json.py in the project also breaks the job runner's interpreter probe, which runs there).
    await rm(join(dir, 'json.py'));
    // The training scripts import both files from the episode runner's folder: a collector elsewhere would not be found.
    await mkdir(join(dir, 'data'));
    await writeFile(join(dir, 'data', 'items.py'), await readFile(join(dir, 'collector.py'), 'utf8'));
    await expect(adopt(join(dir, 'data', 'items.py'))).rejects.toMatchObject(invalid(/must be in the same folder/));
    await expect(adopt(join(dir, 'agent.py'))).rejects.toMatchObject(invalid(/does not look like a dataset collector/));
    await expect(adopt(join(dir, 'collector.py'), join(dir, 'collector.py'))).rejects.toMatchObject(invalid(/does not look like an episode runner/));
    await mkdir(join(dir, 'data.py'));
    await expect(adopt(join(dir, 'data.py'))).rejects.toMatchObject(invalid(/is not a file/));
    expect((await call(w.app, 'wizard:state', {})).project).toBeNull();

    // Scaffold with a chosen id; then the user edits the episode runner; scaffolding the same id again is refused.
    const first = await setProject({ mode: 'scaffold', projectDir: dir, buildId: 'mine', agentCommand: SAMPLE_AGENT_COMMAND });
    const episodeFile = first.project!.episodeFile;
    const collectorText = await readFile(first.project!.collectorFile, 'utf8');
    // The same files once more: nothing differs, nothing to confirm.
    expect((await setProject({ mode: 'scaffold', projectDir: dir, buildId: 'mine', agentCommand: SAMPLE_AGENT_COMMAND })).project).toEqual(first.project);
    const edited = `${await readFile(episodeFile, 'utf8')}\n# tuned by hand\n`;
    await writeFile(episodeFile, edited);
    await expect(setProject({ mode: 'scaffold', projectDir: dir, buildId: 'mine', rewardStyle: 'judge', agentCommand: SAMPLE_AGENT_COMMAND })).rejects.toMatchObject({
      code: 'WIZARD_FILE_EXISTS',
      message: expect.stringMatching(/run_episode_once\.py was changed since the wizard wrote it.*Confirm overwriting, choose another build id, or adopt/),
    });
    expect(await readFile(episodeFile, 'utf8')).toBe(edited);
    expect(await readFile(first.project!.collectorFile, 'utf8')).toBe(collectorText);
    // No id given: the build in use is updated in place (issue 32: no orphaned folders), so the user's edit still
    // stops it. A new id is a new folder beside it, never the old one. Without an agent command the episode
    // runner is a marked TODO: it runs, but its reward 0 proves nothing, so the step stays todo.
    await expect(setProject({ mode: 'scaffold', projectDir: dir, agentCommand: '' })).rejects.toMatchObject({ code: 'WIZARD_FILE_EXISTS' });
    const fresh = await setProject({ mode: 'scaffold', projectDir: dir, buildId: 'fresh', agentCommand: '' });
    await call(w.app, 'wizard:set-python', { python });
    await w.events.recorded((await call(w.app, 'wizard:test-dataset', {})).id);
    const todo = await w.events.recorded((await call(w.app, 'wizard:test-episode', { itemId: 'q1' })).id);
    expect(todo.job).toMatchObject({ state: 'succeeded', result: { reward: 0, raw: { placeholder: true, note: expect.stringContaining('AGENT_COMMAND is empty') } } });
    expect(todo.state.project).toMatchObject({ dataset: { count: 4 }, episode: null });
    expect(todo.state.steps[1]?.status).toBe('todo');
    expect(fresh.project?.buildId).not.toBe('mine');
    expect((await readdir(join(dir, 'tutorial'))).sort()).toEqual([`opencode_build_${fresh.project!.buildId}`, 'opencode_build_mine'].sort());
    expect(await readFile(episodeFile, 'utf8')).toBe(edited);
  }, 60_000);
});
