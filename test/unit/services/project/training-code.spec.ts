import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUpProject } from '../../../../electron/services/project/project-files';
import { importableModuleName, renderScaffold, renderTrainingCode } from '../../../../electron/services/project/templates';
import { generateTrainingCode, previewTrainingCode } from '../../../../electron/services/project/training-code';
import { TrainingForm } from '../../../../electron/shared/schemas-wizard';
import { systemPython } from '../../../support/python-env';

/**
 * The real templates (resources/templates) rendered and checked with real Python: values a user typed stay
 * inside their literals, LoRA settings reach AgentJetJob, and a damaged template dir is refused without a
 * half-written project.
 */
const run = promisify(execFile);
const RESOURCES = resolve(import.meta.dirname, '../../../../resources');
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-code-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const form = (overrides: Record<string, unknown> = {}) => TrainingForm.parse({ experimentName: 'exp', modelPath: '/models/m', ...overrides });

/** A constant of a Python file, read by Python itself (ast.literal_eval of its assignment). */
async function pyConstant(file: string, name: string): Promise<unknown> {
  const code = `import ast, json, sys\ntree = ast.parse(open(sys.argv[1]).read())\nfor node in tree.body:\n    if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == sys.argv[2]:\n        print(json.dumps(ast.literal_eval(node.value)))\n`;
  const { stdout } = await run(systemPython(), ['-c', code, file, name]);
  return JSON.parse(stdout);
}

async function scaffold(agentCommand = 'python3 agent.py --item {item_id}') {
  return setUpProject(RESOURCES, { mode: 'scaffold', projectDir: dir, buildId: 'b1', rewardStyle: 'native', agentCommand });
}

describe('templates', () => {
  it('an agent command with quotes, backslashes, newlines and non-ASCII stays one Python string, exactly as typed', async () => {
    const typed = `sh -c "echo \\"{item_id}\\"" '''\n""" \\n ✓ é`;
    const layout = await scaffold(typed);
    expect(await pyConstant(layout.episodeFile, 'AGENT_COMMAND')).toBe(typed.trim());
    expect(await pyConstant(layout.episodeFile, 'REWARD_STYLE')).toBe('native');
  });

  it('LoRA settings become AgentJetJob arguments; without LoRA none are passed; the model path and names are literals', async () => {
    const layout = await scaffold();
    const lora = await renderTrainingCode(RESOURCES, { ...layout, form: form({ lora: { rank: 8, alpha: 32, loadFormat: 'safetensors', layeredSummon: true, lr: 3e-5, targetModules: 'q_proj,v_proj' } }) });
    expect(lora['agent_roll.py']).toContain('        lora_rank=8,\n        lora_alpha=32,\n        lora_target_modules="q_proj,v_proj",\n        lora_load_format="safetensors",\n        layered_summon=True,\n        lr=0.00003,\n    )');
    const plain = await renderTrainingCode(RESOURCES, { ...layout, form: form({ modelPath: '/models/with "quote"' }) });
    expect(plain['agent_roll.py']).not.toContain('lora_rank');
    expect(plain['agent_roll.py']).toContain('REMOTE_MODEL_PATH = os.getenv("REMOTE_MODEL_PATH", "/models/with \\"quote\\"")');
    expect(plain['agent_roll.py']).not.toMatch(/\{\{(?:[A-Z_]+\}\}|> )/);
    await writeFile(join(dir, 'roll.py'), plain['agent_roll.py']);
    expect(await pyConstant(join(dir, 'roll.py'), 'EXPERIMENT_NAME')).toBe('exp');
  });

  it('refuses a collector Python cannot import by its name with PROJECT_INVALID naming a rename', async () => {
    expect(importableModuleName('/p/collector.py')).toBe('collector');
    for (const bad of ['/p/my-collector.py', '/p/1st.py', '/p/class.py', '/p/dö t.py']) {
      expect(() => importableModuleName(bad)).toThrow(expect.objectContaining({ code: 'PROJECT_INVALID' }));
    }
    await expect(previewTrainingCode(RESOURCES, { buildDir: dir, collectorFile: join(dir, 'my-items.py'), episodeFile: join(dir, 'ep.py') }, form())).rejects.toMatchObject({
      code: 'PROJECT_INVALID',
      message: expect.stringContaining('my_items.py'),
    });
  });

  it('scaffold and training code compile with Python as rendered', async () => {
    const layout = await scaffold();
    const scaffolded = await renderScaffold(RESOURCES, { buildId: 'b2', rewardStyle: 'judge', agentCommand: '' });
    expect(scaffolded['run_episode_once.py']).toContain('AGENT_COMMAND = ""');
    const generated = await generateTrainingCode(RESOURCES, layout, { form: form({ forceRestart: true }), overwrite: [] }, systemPython());
    expect(generated.files.map((f) => f.name)).toEqual(['agent_roll.py', 'agent_roll_one_episode_debug.py']);
    expect(await readFile(join(layout.buildDir, 'agent_roll.py'), 'utf8')).toContain('force_restart=True');
    // The compile check writes no bytecode into the user's folder.
    expect((await readdir(layout.buildDir)).sort()).toEqual(['agent_roll.py', 'agent_roll_one_episode_debug.py', 'get_training_dataset_item_list.py', 'run_episode_once.py']);
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
    const missing = await damagedResources((templates) => rm(join(templates, '_roll_common.py.part')));
    await expect(generateTrainingCode(missing, layout, { form: form(), overwrite: [] }, systemPython())).rejects.toMatchObject({ code: 'CODE_CHECK_FAILED', message: expect.stringContaining('_roll_common.py.part cannot be read') });
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
