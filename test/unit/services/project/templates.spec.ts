import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engineRestartCalls } from '../../../../electron/services/jobs/job-preflight';
import { isPythonModuleName, pythonFloat, pythonLiteral, renderScaffold, renderTrainingCode, type PythonValue } from '../../../../electron/services/project/templates';
import { isAppError } from '../../../../electron/shared/errors';
import { DEBUG_EPISODE_MARK } from '../../../../electron/shared/schemas-dryrun';
import { TrainingForm, type TrainingFormInput } from '../../../../electron/shared/schemas-wizard';
import { AJET_STUB_DIR, systemPython } from '../../../support/python-env';

/**
 * The Python templates rendered from the real `resources/` folder and checked by the real
 * interpreter: every file compiles, every value arrives in Python exactly as given (no value can
 * break out of its literal), the training form reaches AgentJetJob (the ajet TEST DOUBLE, which
 * has AgentJet's constructor and validations), the engine restart appears only when asked.
 */
const RESOURCES = resolve(import.meta.dirname, '..', '..', '..', '..', 'resources');
const run = promisify(execFile);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'templates-spec-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function python(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  const { stdout } = await run(systemPython(), args, {
    cwd: options.cwd ?? dir,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env },
    timeout: 30_000,
  });
  return stdout;
}

/** Evaluates each literal in Python and gives back what json.dumps made of it. */
async function evalInPython(literals: string[]): Promise<unknown[]> {
  const file = join(dir, 'values.py');
  await writeFile(file, `import json\nvalues = [\n${literals.map((l) => `    ${l},\n`).join('')}]\nprint(json.dumps(values))\n`);
  return JSON.parse(await python([file])) as unknown[];
}

function form(overrides: Partial<TrainingFormInput> = {}) {
  return TrainingForm.parse({ experimentName: 'exp_1', modelPath: '/models/Qwen2.5-7B', ...overrides });
}

const modules = { collectorModule: 'get_training_dataset_item_list', episodeModule: 'run_episode_once' };

/** A scaffolded build folder inside a project (all four files), as the wizard lays it out. */
async function writeBuild(files: Record<string, string>): Promise<string> {
  const build = join(dir, 'project', 'tutorial', 'opencode_build_t1');
  await mkdir(build, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(build, name), text);
  return build;
}

const TRICKY = [
  'plain',
  'say "hi" and \'bye\'',
  '"""triple""" and \'\'\'triple\'\'\'',
  'back\\slash \\n not a newline \\',
  'line one\nline two\r\nline three\ttab',
  'nul\u0000 bell\u0007 del\u007f c1\u0085 ls\u2028 ps\u2029',
  'unicode: 中文 Ünïcödé 😀 𝔘',
  '"); import os; os.system("touch /tmp/pwned") #',
  "'''\n__import__('os').system('x')\n'''",
  '{item_id} {{BUILD_ID}} %s $1',
  '',
];

describe('pythonLiteral', () => {
  it('writes every string so Python reads back exactly the same text', async () => {
    const back = await evalInPython(TRICKY.map((s) => pythonLiteral(s)));
    expect(back).toEqual(TRICKY);
    // Nothing a value holds survives as a raw line break in the source.
    for (const s of TRICKY) expect(pythonLiteral(s)).not.toMatch(/[\n\r\u2028\u2029]/);
  });

  it('writes True/False/None, numbers, lists and dicts', async () => {
    const values: PythonValue[] = [true, false, null, 0, -3, 42, 3e-5, 1e-7, 0.5, [1, 'a', null], { 'k"ey': [true, { n: 1.25 }] }];
    expect(values.slice(0, 3).map(pythonLiteral)).toEqual(['True', 'False', 'None']);
    expect(await evalInPython(values.map(pythonLiteral))).toEqual(values);
    expect(pythonFloat(1)).toBe('1.0');
    expect(pythonFloat(3e-5)).toBe('0.00003');
    expect(pythonFloat(null)).toBe('None');
    expect(() => pythonLiteral(Number.NaN)).toThrow(/no Python literal/);
  });

  it('keeps a lone surrogate as an escape, not as broken UTF-8', async () => {
    const lone = 'a\ud800b';
    expect(pythonLiteral(lone)).toBe('"a\\ud800b"');
    const file = join(dir, 'lone.py');
    await writeFile(file, `print(len(${pythonLiteral(lone)}), hex(ord(${pythonLiteral(lone)}[1])))\n`);
    expect((await python([file])).trim()).toBe('3 0xd800');
  });
});

describe('renderScaffold', () => {
  it('renders both files for each reward style, with and without an agent command, and they compile', async () => {
    for (const rewardStyle of ['native', 'judge'] as const) {
      for (const agentCommand of ['{python} agent.py --item {item_id}', '']) {
        const files = await renderScaffold(RESOURCES, { buildId: 'b1', rewardStyle, agentCommand });
        expect(Object.keys(files).sort()).toEqual(['get_training_dataset_item_list.py', 'run_episode_once.py']);
        const episode = files['run_episode_once.py'];
        expect(episode).toContain(`REWARD_STYLE = "${rewardStyle}"`);
        expect(episode).toContain(`AGENT_COMMAND = ${pythonLiteral(agentCommand)}`);
        expect(episode).not.toMatch(/\{\{[A-Z_]+\}\}/);
        expect(files['get_training_dataset_item_list.py']).toContain('build b1');
        const build = await writeBuild(files);
        await python(['-m', 'py_compile', ...Object.keys(files).map((name) => join(build, name))]);
      }
    }
  });

  it('gives an empty agent command a marked TODO that still runs and returns reward 0 with a note', async () => {
    const build = await writeBuild(await renderScaffold(RESOURCES, { buildId: 'b1', rewardStyle: 'native', agentCommand: '  ' }));
    const out = await python([join(build, 'run_episode_once.py'), 'q1'], { cwd: build });
    const line = out.trim().split('\n').at(-1)!;
    expect(line.startsWith('AGENTSWARM_RESULT ')).toBe(true);
    expect(JSON.parse(line.slice('AGENTSWARM_RESULT '.length))).toMatchObject({ reward: 0, item_id: 'q1', note: expect.stringContaining('AGENT_COMMAND is empty') });
  });

  it('puts an agent command that tries to break out into Python as plain text, and splits it into arguments without a shell', async () => {
    const hostile = '{python} -c "print(1)" --x \'a b\' \'"); import os #\'\n{item_id}';
    const build = await writeBuild(await renderScaffold(RESOURCES, { buildId: 'b1', rewardStyle: 'native', agentCommand: hostile }));
    const out = await python(['-c', 'import json, run_episode_once as m; print(json.dumps([m.AGENT_COMMAND, m.agent_argv("id with space")]))'], { cwd: build });
    const [command, argv] = JSON.parse(out) as [string, string[]];
    expect(command).toBe(hostile.trim());
    expect(argv).toEqual([systemPythonResolved(argv[0]!), '-c', 'print(1)', '--x', 'a b', '"); import os #', 'id with space']);
    // A command a shell could not split either is an episode error that names the constant.
    const broken = await writeBuild(await renderScaffold(RESOURCES, { buildId: 'b1', rewardStyle: 'native', agentCommand: 'agent "unclosed' }));
    const failed = await python(['-c', 'import run_episode_once as m\ntry:\n    m.agent_argv("x")\nexcept m.EpisodeError as e:\n    print(e)'], { cwd: broken });
    expect(failed).toContain('AGENT_COMMAND');
  });

  it('reads the project dataset file found walking up from the build folder, else a TODO example list', async () => {
    const files = await renderScaffold(RESOURCES, { buildId: 'b1', rewardStyle: 'native', agentCommand: '' });
    const build = await writeBuild(files);
    const count = async () => JSON.parse((await python(['get_training_dataset_item_list.py'], { cwd: build })).trim()) as { count: number; first: unknown[] };
    expect(await count()).toEqual({ count: 2, first: ['example-item-1', 'example-item-2'] });
    await writeFile(join(dir, 'project', 'dataset.json'), JSON.stringify({ items: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] }));
    expect(await count()).toEqual({ count: 3, first: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });
    // dataset.jsonl comes before dataset.json in the same folder; a file in the build folder itself wins over the root's.
    await writeFile(join(dir, 'project', 'dataset.jsonl'), '{"id": "j1"}\n\n{"id": "j2"}\n');
    expect(await count()).toMatchObject({ count: 2, first: [{ id: 'j1' }, { id: 'j2' }] });
    await writeFile(join(build, 'dataset.json'), '["only"]');
    expect(await count()).toEqual({ count: 1, first: ['only'] });
    // Nothing above the project root is read.
    await rm(join(build, 'dataset.json'));
    await rm(join(dir, 'project', 'dataset.json'));
    await rm(join(dir, 'project', 'dataset.jsonl'));
    await writeFile(join(dir, 'dataset.jsonl'), '{"id": "outside"}\n');
    expect((await count()).count).toBe(2);
  });
});

/** agent_argv's {python} is sys.executable: the interpreter the test ran (resolved the way Python reports it). */
function systemPythonResolved(reported: string): string {
  expect(reported).toMatch(/python3?(\.\d+)?$/);
  return reported;
}

describe('probe_dataset.py', () => {
  const probe = join(RESOURCES, 'python', 'probe_dataset.py');
  async function runProbe(source: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const file = join(dir, 'collector_under_test.py');
    await writeFile(file, source);
    return new Promise((done) => {
      execFile(systemPython(), [probe, file], { cwd: dir, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, timeout: 30_000 }, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  it('prints the count and the first five items (JSON-safe) as the result line', async () => {
    const run = await runProbe('import datetime\nprint("noise on import")\ndef get_training_dataset_item_list():\n    return [{"id": i, "when": datetime.date(2026, 1, 1)} for i in range(7)]\n');
    expect(run.code).toBe(0);
    const line = run.stdout.trim().split('\n').at(-1)!;
    expect(line.startsWith('AGENTSWARM_RESULT ')).toBe(true);
    const result = JSON.parse(line.slice('AGENTSWARM_RESULT '.length)) as { reward: null; count: number; items: { id: number; when: string }[] };
    expect(result).toMatchObject({ reward: null, count: 7 });
    expect(result.items.map((i) => i.id)).toEqual([0, 1, 2, 3, 4]);
    expect(result.items[0]!.when).toBe('datetime.date(2026, 1, 1)');
  });

  it('says clearly when the function is missing, raises, or returns no list', async () => {
    const missing = await runProbe('def something_else():\n    return []\n');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('has no function get_training_dataset_item_list()');
    const raises = await runProbe('def get_training_dataset_item_list():\n    raise FileNotFoundError("data.csv")\n');
    expect(raises.code).toBe(1);
    expect(raises.stderr).toContain('get_training_dataset_item_list() raised FileNotFoundError: data.csv');
    expect(raises.stderr).toContain('Traceback');
    const notList = await runProbe('def get_training_dataset_item_list():\n    return "q1"\n');
    expect(notList.code).toBe(1);
    expect(notList.stderr).toContain('returned a str; it must return a list');
    const broken = await runProbe('import no_such_module_here\n');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('ModuleNotFoundError');
    for (const run of [missing, raises, notList, broken]) expect(run.stdout).not.toContain('AGENTSWARM_RESULT');
  });
});

describe('the judge reward', () => {
  it('reads a grade from 0 to 1 out of what judges answer, and None when there is none', async () => {
    const build = await writeBuild(await renderScaffold(RESOURCES, { buildId: 'b1', rewardStyle: 'judge', agentCommand: 'x' }));
    const answers = [
      '{"score": 0.7, "why": "ok"}',
      'Thinking about {"score": 0.2} first.\nFinal: {"score": 0.9}',
      'Score: 8/10',
      'reward = 0.25',
      '0.6',
      '3/4',
      '{"score": 2}',
      '{"grade": "0.4"}',
      'I cannot grade this.',
      'The answer mentions 1990 and 42.',
    ];
    const probe = `import json, run_episode_once as m; print(json.dumps([m.parse_grade(a) for a in json.loads(${pythonLiteral(JSON.stringify(answers))})]))`;
    expect(JSON.parse(await python(['-c', probe], { cwd: build }))).toEqual([0.7, 0.9, 0.8, 0.25, 0.6, 0.75, 1, 0.4, null, null]);
  });
});

describe('renderTrainingCode', () => {
  it('renders both roll scripts that compile, with the form in their constants', async () => {
    const files = await renderTrainingCode(RESOURCES, { form: form({ grpoN: 6, epochs: 3, batchSize: 16, gpusPerNode: 2, discardEpisodeTimeout: 120, algorithm: 'rloo' }), ...modules });
    expect(Object.keys(files).sort()).toEqual(['agent_roll.py', 'agent_roll_one_episode_debug.py']);
    for (const text of Object.values(files)) {
      expect(text).not.toMatch(/\{\{[A-Z_]+/);
      expect(text).toContain('EXPERIMENT_NAME = "exp_1"');
      expect(text).toContain('ALGORITHM = "rloo"');
      expect(text).toContain('GRPO_N = 6');
      expect(text).toContain('NUM_EPOCH = 3');
      expect(text).toContain('REMOTE_BATCH_SIZE = 16');
      expect(text).toContain('REMOTE_ALLOCATE_GPU_PER_NODE = 2');
      expect(text).toContain('DISCARD_EPISODE_TIMEOUT = 120');
      expect(text).toContain('SAMPLE_COLLECTION_METHOD = "rollout_until_finish_enough_tasks"');
      expect(text).toContain('swarm_mode_sample_collection_method=SAMPLE_COLLECTION_METHOD');
      expect(text).toContain('MODEL_PATH = "/models/Qwen2.5-7B"');
      expect(text).toContain('from get_training_dataset_item_list import get_training_dataset_item_list');
      expect(text).toContain('import run_episode_once as episode_runner');
    }
    expect(files['agent_roll_one_episode_debug.py']).toContain('swarm_worker.abort_episode(episode_uuid)');
    // Its abort carries the mark the dry run's trace reads (the same key as the backend's constant).
    expect(files['agent_roll_one_episode_debug.py']).toContain(`DEBUG_EPISODE_MARK = "${DEBUG_EPISODE_MARK}"`);
    expect(files['agent_roll_one_episode_debug.py']).toContain('abort_debug_episode(swarm_worker, url, episode_uuid, task, workflow_output)');
    expect(files['agent_roll_one_episode_debug.py']).not.toContain('end_episode(');
    const build = await writeBuild(files);
    await python(['-m', 'py_compile', join(build, 'agent_roll.py'), join(build, 'agent_roll_one_episode_debug.py')]);
  });

  it('passes the LoRA fields to AgentJetJob, which accepts them (ajet TEST DOUBLE with upstream validation)', async () => {
    const lora = { rank: 8, alpha: 32, targetModules: 'q_proj,v_proj', loadFormat: 'safetensors' as const, layeredSummon: true, lr: 3e-5 };
    const scaffold = await renderScaffold(RESOURCES, { buildId: 't1', rewardStyle: 'native', agentCommand: '' });
    const build = await writeBuild({ ...scaffold, ...(await renderTrainingCode(RESOURCES, { form: form({ lora }), ...modules })) });
    const probe = 'import json, agent_roll as m; job = m.make_job(); print(json.dumps(job.config_as_dict["ajet"]["lora"]) + "\\n" + json.dumps([job.lr, job.model, job.num_repeat, job.batch_size, job.n_gpu]))';
    const out = (await python(['-c', probe], { cwd: build, env: { PYTHONPATH: AJET_STUB_DIR, REMOTE_MODEL_PATH: '/models/from-env' } })).trim().split('\n');
    expect(JSON.parse(out.at(-2)!)).toMatchObject({ lora_rank: 8, lora_alpha: 32, target_modules: 'q_proj,v_proj', load_format: 'safetensors', layered_summon: true });
    expect(JSON.parse(out.at(-1)!)).toEqual([3e-5, '/models/from-env', 4, 32, 8]);
  });

  it('makes task ids stable: a dict id, a short string item itself, else a hash of the item', async () => {
    const scaffold = await renderScaffold(RESOURCES, { buildId: 't1', rewardStyle: 'native', agentCommand: '' });
    const build = await writeBuild({ ...scaffold, ...(await renderTrainingCode(RESOURCES, { form: form(), ...modules })) });
    await writeFile(join(dir, 'project', 'dataset.jsonl'), ['{"id": "q1", "question": "Why?"}', '{"task_id": 7}', '"plain-id"', '{"question": "no id"}', '{"question": "no id"}'].join('\n'));
    const probe = 'import json, agent_roll as m; print(json.dumps([[t.task_id, t.main_query, t.metadata["item_id"]] for t in m.load_tasks()]))';
    const first = JSON.parse(await python(['-c', probe], { cwd: build, env: { PYTHONPATH: AJET_STUB_DIR } })) as [string, string, string][];
    expect(first.slice(0, 3)).toEqual([
      ['q1', 'Why?', 'q1'],
      ['7', '7', '7'],
      ['plain-id', 'plain-id', 'plain-id'],
    ]);
    expect(first[3]![0]).toMatch(/^item-[0-9a-f]{16}$/);
    expect(first[4]![0]).toBe(first[3]![0]);
    const again = JSON.parse(await python(['-c', probe], { cwd: build, env: { PYTHONPATH: AJET_STUB_DIR } })) as unknown;
    expect(again).toEqual(first);
  });

  it('writes the engine restart only into agent_roll.py and only when the form asks for it', async () => {
    const plain = await renderTrainingCode(RESOURCES, { form: form(), ...modules });
    for (const text of Object.values(plain)) {
      expect(engineRestartCalls(text)).toEqual([]);
      expect(text).not.toContain('force_restart');
      expect(text).not.toContain('stop_engine');
    }
    const restart = await renderTrainingCode(RESOURCES, { form: form({ forceRestart: true }), ...modules });
    expect(engineRestartCalls(restart['agent_roll.py'])).toEqual(['force_restart=True']);
    expect(restart['agent_roll.py']).toContain('auto_sync_train_config_and_start_engine(ajet_job, force_restart=True)');
    expect(engineRestartCalls(restart['agent_roll_one_episode_debug.py'])).toEqual([]);
    expect(restart['agent_roll_one_episode_debug.py']).not.toContain('force_restart');
  });

  it('writes user text of the form as literals only (a model path that tries to break out stays a string)', async () => {
    const hostile = '/models/x"\nimport os; os.system("touch /tmp/pwned") #';
    const scaffold = await renderScaffold(RESOURCES, { buildId: 't1', rewardStyle: 'native', agentCommand: '' });
    const build = await writeBuild({ ...scaffold, ...(await renderTrainingCode(RESOURCES, { form: { ...form(), modelPath: hostile }, ...modules })) });
    const out = await python(['-c', 'import json, agent_roll as m; print(json.dumps(m.MODEL_PATH))'], { cwd: build, env: { PYTHONPATH: AJET_STUB_DIR } });
    expect(JSON.parse(out)).toBe(hostile);
  });

  it('refuses a collector or episode module name Python cannot import with PROJECT_INVALID naming the rename', async () => {
    for (const [field, bad] of [
      ['collectorModule', 'my-collector'],
      ['collectorModule', '1dataset'],
      ['episodeModule', 'class'],
      ['episodeModule', 'run episode'],
      ['episodeModule', ''],
    ] as const) {
      const error = await renderTrainingCode(RESOURCES, { form: form(), ...modules, [field]: bad }).catch((e: unknown) => e);
      expect(isAppError(error), `${field}=${bad}`).toBe(true);
      expect(error).toMatchObject({ code: 'PROJECT_INVALID', message: expect.stringMatching(/Rename it, e\.g\. to [A-Za-z_][A-Za-z0-9_]*\.py/) });
    }
    expect(isPythonModuleName('run_episode_once')).toBe(true);
    expect(isPythonModuleName('_x1')).toBe(true);
    expect(isPythonModuleName('None')).toBe(false);
  });
});

describe('the roll scripts with an adopted episode runner', () => {
  /** Runs execute_agent of the rendered agent_roll.py on a task with a made-up episode endpoint. */
  async function executeAgent(build: string): Promise<{ reward: number; metadata: Record<string, unknown> }> {
    const probe = [
      'import json, agent_roll as m',
      'from ajet.schema.task import Task',
      'from ajet.tuner_lib.as_oai_baseurl_apikey import OpenaiBaseUrlAndApiKey',
      'api = OpenaiBaseUrlAndApiKey(base_url="http://127.0.0.1:9/v1", api_key="sk-ajet-routing", episode_uuid="e1")',
      'out = m.execute_agent(Task(task_id="q1", metadata={"item_id": "q1", "item": {"id": "q1"}}), api)',
      'print(json.dumps({"reward": out.reward, "metadata": out.metadata}))',
    ].join('\n');
    const out = await python(['-c', probe], { cwd: build, env: { PYTHONPATH: AJET_STUB_DIR, OPENAI_API_KEY: 'sk-user-secret-key', OPENAI_BASE_URL: 'http://127.0.0.1:8/v1' } });
    return JSON.parse(out.trim().split('\n').at(-1)!) as { reward: number; metadata: Record<string, unknown> };
  }

  const collector = 'def get_training_dataset_item_list():\n    return [{"id": "q1"}]\n';

  it('runs a runner without run_episode() as a script with the episode endpoint as env (and --api-key only with the routing key)', async () => {
    // A script as AgentJet's guide has it (argparse, --base-url, --api-key), guarded by __main__ like a real one.
    const runner = [
      'import argparse, json, os, sys',
      'if __name__ == "__main__":',
      '    p = argparse.ArgumentParser(); p.add_argument("item"); p.add_argument("--base-url"); p.add_argument("--api-key")',
      '    a = p.parse_args()',
      '    print("noise")',
      '    print("AGENTSWARM_RESULT", json.dumps({"reward": 0.25, "item": a.item, "env_url": os.environ["OPENAI_BASE_URL"], "env_key": os.environ["OPENAI_API_KEY"], "arg_url": a.base_url, "arg_key": a.api_key}))',
    ].join('\n');
    const build = await writeBuild({ 'my_collector.py': collector, 'my_runner.py': runner, ...(await renderTrainingCode(RESOURCES, { form: form(), collectorModule: 'my_collector', episodeModule: 'my_runner' })) });
    const out = await executeAgent(build);
    expect(out.reward).toBe(0.25);
    expect(out.metadata).toMatchObject({ item: 'q1', env_url: 'http://127.0.0.1:9/v1', env_key: 'sk-ajet-routing', arg_url: 'http://127.0.0.1:9/v1', arg_key: 'sk-ajet-routing' });
    expect(JSON.stringify(out)).not.toContain('sk-user-secret-key');
  });

  it('calls a run_episode() that takes no item, and takes a plain number as its reward', async () => {
    const runner = 'def run_episode(item_id, base_url, api_key, model=None):\n    return 0.5 if base_url.endswith(":9/v1") and api_key == "sk-ajet-routing" else -1\n';
    const build = await writeBuild({ 'my_collector.py': collector, 'my_runner.py': runner, ...(await renderTrainingCode(RESOURCES, { form: form(), collectorModule: 'my_collector', episodeModule: 'my_runner' })) });
    expect(await executeAgent(build)).toEqual({ reward: 0.5, metadata: {} });
  });

  it('refuses a module name that would replace a module the scripts import', async () => {
    const error = await renderTrainingCode(RESOURCES, { form: form(), collectorModule: 'json', episodeModule: 'run_episode_once' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROJECT_INVALID', message: expect.stringContaining('Rename it, e.g. to my_json.py') });
  });
});
