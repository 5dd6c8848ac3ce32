import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUpProject } from '../../../../electron/services/project/project-files';
import { generateTrainingCode, previewTrainingCode } from '../../../../electron/services/project/training-code';
import { TrainingForm } from '../../../../electron/shared/schemas-wizard';
import { systemPython } from '../../../support/python-env';

/**
 * Writing the training code (training-code.ts) with the real templates and real Python: the compile check,
 * refusals that leave the user's folder as it was (a damaged template dir, an interpreter that cannot run),
 * and new build ids. The templates' own rendering is tested in templates.spec.ts.
 */
const RESOURCES = resolve(import.meta.dirname, '../../../../resources');
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-code-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const form = (overrides: Record<string, unknown> = {}) => TrainingForm.parse({ experimentName: 'exp', modelPath: '/models/m', ...overrides });

async function scaffold(agentCommand = 'python3 agent.py --item {item_id}') {
  return setUpProject(RESOURCES, { mode: 'scaffold', projectDir: dir, buildId: 'b1', rewardStyle: 'native', agentCommand });
}

describe('generated training code', () => {
  it('compiles as rendered, with force_restart only when asked, and the compile check writes no bytecode into the user\'s folder', async () => {
    const layout = await scaffold();
    const generated = await generateTrainingCode(RESOURCES, layout, { form: form({ forceRestart: true }), overwrite: [] }, systemPython());
    expect(generated.files.map((f) => f.name)).toEqual(['agent_roll.py', 'agent_roll_one_episode_debug.py']);
    expect(await readFile(join(layout.buildDir, 'agent_roll.py'), 'utf8')).toContain('force_restart=True');
    expect(await readFile(join(layout.buildDir, 'agent_roll_one_episode_debug.py'), 'utf8')).not.toContain('force_restart=True');
    expect((await readdir(layout.buildDir)).sort()).toEqual(['agent_roll.py', 'agent_roll_one_episode_debug.py', 'get_training_dataset_item_list.py', 'run_episode_once.py']);
  });

  it('a collector or runner the scripts cannot import by name is PROJECT_INVALID with a rename (not a plain error)', async () => {
    await expect(previewTrainingCode(RESOURCES, { buildDir: dir, collectorFile: join(dir, 'my-items.py'), episodeFile: join(dir, 'ep.py') }, form())).rejects.toMatchObject({
      code: 'PROJECT_INVALID',
      message: expect.stringContaining('my_items.py'),
    });
    await expect(previewTrainingCode(RESOURCES, { buildDir: dir, collectorFile: join(dir, 'items.py'), episodeFile: join(dir, 'json.py') }, form())).rejects.toMatchObject({ code: 'PROJECT_INVALID' });
  });
});

describe('a damaged template folder', () => {
  async function damagedResources(change: (templates: string) => Promise<void>): Promise<string> {
    const copy = join(dir, 'resources');
    await cp(RESOURCES, copy, { recursive: true });
    await change(join(copy, 'templates'));
    return copy;
  }

  it('a template that does not compile: CODE_CHECK_FAILED with the compiler\'s words; a confirmed overwrite is put back, a new file removed', async () => {
    const layout = await scaffold();
    const mine = '# my own agent_roll.py\nprint("mine")\n';
    await writeFile(join(layout.buildDir, 'agent_roll.py'), mine);
    const broken = await damagedResources(async (templates) => {
      const file = join(templates, 'agent_roll_one_episode_debug.py.tmpl');
      await writeFile(file, `${await readFile(file, 'utf8')}\ndef broken(:\n`);
    });
    await expect(generateTrainingCode(broken, layout, { form: form(), overwrite: ['agent_roll.py'] }, systemPython())).rejects.toMatchObject({
      code: 'CODE_CHECK_FAILED',
      message: expect.stringMatching(/put back as they were:[\s\S]*agent_roll_one_episode_debug\.py", line \d+[\s\S]*SyntaxError/),
    });
    expect(await readFile(join(layout.buildDir, 'agent_roll.py'), 'utf8')).toBe(mine);
    expect((await readdir(layout.buildDir)).sort()).toEqual(['agent_roll.py', 'get_training_dataset_item_list.py', 'run_episode_once.py']);
  });

  it('a missing template or an unknown placeholder: CODE_CHECK_FAILED before anything is written', async () => {
    const layout = await scaffold();
    const missing = await damagedResources((templates) => rm(join(templates, 'roll_common.py.part')));
    await expect(generateTrainingCode(missing, layout, { form: form(), overwrite: [] }, systemPython())).rejects.toMatchObject({ code: 'CODE_CHECK_FAILED', message: expect.stringContaining('roll_common.py.part') });
    await rm(join(dir, 'resources'), { recursive: true });
    const unknown = await damagedResources(async (templates) => {
      const file = join(templates, 'agent_roll.py.tmpl');
      await writeFile(file, `${await readFile(file, 'utf8')}\nX = {{NOT_A_VALUE}}\n`);
    });
    await expect(generateTrainingCode(unknown, layout, { form: form(), overwrite: [] }, systemPython())).rejects.toMatchObject({ code: 'CODE_CHECK_FAILED', message: expect.stringContaining('NOT_A_VALUE') });
    expect(await readdir(layout.buildDir)).not.toContain('agent_roll.py');
  });

  it('an interpreter that cannot run: PYTHON_NOT_FOUND and the files put back', async () => {
    const layout = await scaffold();
    await expect(generateTrainingCode(RESOURCES, layout, { form: form(), overwrite: [] }, join(dir, 'no-python'))).rejects.toMatchObject({ code: 'PYTHON_NOT_FOUND' });
    expect(await readdir(layout.buildDir)).not.toContain('agent_roll.py');
  });
});

describe('build ids', () => {
  it('a new id never lands on an existing build folder', async () => {
    await mkdir(join(dir, 'tutorial', 'opencode_build_aaaaaa'), { recursive: true });
    const ids = ['aaaaaa', 'bbbbbb'];
    const layout = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir: dir, buildId: null, rewardStyle: 'native', agentCommand: '' }, () => ids.shift()!);
    expect(layout.buildId).toBe('bbbbbb');
    expect(await readdir(join(dir, 'tutorial', 'opencode_build_aaaaaa'))).toEqual([]);
  });
});
