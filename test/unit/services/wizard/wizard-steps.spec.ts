import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../../electron/shared/errors';
import { EMPTY_FACTS, type WizardFactsData } from '../../../../electron/services/wizard/wizard-facts';
import { clearStale, deriveSteps, markStale, requireUnlocked } from '../../../../electron/services/wizard/wizard-steps';

const describeChoice = () => ({ kind: 'dry-run' as const });
const at = '2026-12-03T21:00:00.000Z';

function statuses(facts: WizardFactsData): Record<string, string> {
  return Object.fromEntries(deriveSteps(facts, describeChoice).map((s) => [s.id, s.status]));
}

const llmOk: WizardFactsData['llm'] = { secretId: 'llm', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', test: { ok: true, latencyMs: 12, message: '1 model', at } };
const project = (dataset: number | null, reward: number | null): WizardFactsData['project'] => ({
  mode: 'scaffold',
  projectDir: '/p',
  buildId: 'abc',
  buildDir: '/p/tutorial/opencode_build_abc',
  collectorFile: '/p/tutorial/opencode_build_abc/get_training_dataset_item_list.py',
  episodeFile: '/p/tutorial/opencode_build_abc/run_episode_once.py',
  rewardStyle: 'native',
  python: null,
  dataset: dataset === null ? null : { jobId: 'j1', count: dataset, first: [], at },
  episode: reward === null ? null : { jobId: 'j2', itemId: '0', reward, durationMs: 2100, at },
});
const code: WizardFactsData['code'] = {
  form: { experimentName: 'x', algorithm: 'grpo', grpoN: 4, epochs: 1, batchSize: 1, gpusPerNode: 1, modelPath: '/m', discardEpisodeTimeout: 60, sampleCollectionMethod: 'rollout_until_finish_enough_tasks', lora: { rank: 0, alpha: 16, targetModules: 'all-linear', loadFormat: 'auto', layeredSummon: false, lr: null }, forceRestart: false },
  files: [{ name: 'agent_roll.py', path: '/p/a', sha256: 'a' }],
  compiledAt: at,
};

describe('wizard step derivation', () => {
  it('starts with every step todo and each later step naming what it needs', () => {
    const steps = deriveSteps(EMPTY_FACTS, describeChoice);
    expect(steps.map((s) => [s.id, s.status, s.missing])).toEqual([
      ['llm', 'todo', []],
      ['project', 'todo', ['llm']],
      ['code', 'todo', ['project']],
      ['swarm', 'todo', ['llm']],
      ['debug', 'todo', ['code', 'swarm']],
      ['train', 'todo', ['debug']],
    ]);
  });

  it('marks the LLM done only when its test answered ok, with the latency in the fact', () => {
    const failed = { ...EMPTY_FACTS, llm: { ...llmOk!, test: { ...llmOk!.test!, ok: false } } };
    expect(statuses(failed).llm).toBe('todo');
    const ok = deriveSteps({ ...EMPTY_FACTS, llm: llmOk }, describeChoice);
    expect(ok[0]).toMatchObject({ status: 'done', fact: 'answered in 12 ms: 1 model', doneAt: at });
    // The same fact as data for the renderer's words (issue 32): the model that answered and how fast.
    expect(ok[0]!.summary).toEqual({ step: 'llm', model: 'm', latencyMs: 12 });
    expect(ok[1]!.missing).toEqual([]);
  });

  it('needs both a dataset of at least one item and an episode reward for the project', () => {
    expect(statuses({ ...EMPTY_FACTS, llm: llmOk, project: project(3, null) }).project).toBe('todo');
    expect(statuses({ ...EMPTY_FACTS, llm: llmOk, project: project(0, 0.5) }).project).toBe('todo');
    expect(statuses({ ...EMPTY_FACTS, llm: llmOk, project: project(null, 0.5) }).project).toBe('todo');
    const done = deriveSteps({ ...EMPTY_FACTS, llm: llmOk, project: project(3, 0.5) }, describeChoice)[1]!;
    expect(done).toMatchObject({ status: 'done', fact: '3 items · reward 0.5 in 2.1 s' });
    expect(done.summary).toEqual({ step: 'project', items: 3, reward: 0.5, durationMs: 2100 });
  });

  it('sends every done step\'s fact as data naming the server by kind and label, and none while todo', () => {
    const profile = { kind: 'profile' as const, profileId: 'p1' };
    const named = () => ({ kind: 'profile' as const, label: 'GPU box', removed: true });
    const facts: WizardFactsData = {
      ...EMPTY_FACTS,
      llm: llmOk,
      project: project(3, 0.5),
      code,
      swarm: { choice: profile, phase: 'ready', detail: null, engineId: 'e', containerId: 'c', url: 'http://127.0.0.1:10086' },
      swarmReadyAt: at,
      debug: { jobId: 'j3', choice: profile, reward: 1, passed: true, at },
      train: { jobId: 'j4', at },
    };
    const summaries = Object.fromEntries(deriveSteps(facts, named).map((s) => [s.id, s.summary]));
    expect(summaries).toEqual({
      llm: { step: 'llm', model: 'm', latencyMs: 12 },
      project: { step: 'project', items: 3, reward: 0.5, durationMs: 2100 },
      code: { step: 'code', files: ['agent_roll.py'] },
      swarm: { step: 'swarm', server: { kind: 'profile', label: 'GPU box', removed: true }, url: 'http://127.0.0.1:10086' },
      debug: { step: 'debug', server: { kind: 'profile', label: 'GPU box', removed: true }, reward: 1 },
      train: { step: 'train', jobId: 'j4' },
    });
    expect(deriveSteps(EMPTY_FACTS, named).every((s) => s.summary === null)).toBe(true);
  });

  it('makes only done steps stale, and a stale prerequisite locks the steps after it', () => {
    const facts: WizardFactsData = { ...EMPTY_FACTS, llm: llmOk, project: project(3, 0.5), code };
    const stale = markStale(facts, ['project', 'debug'], describeChoice);
    // debug had no fact: it stays todo rather than becoming "stale".
    expect(stale.stale).toEqual(['project']);
    expect(statuses(stale)).toMatchObject({ llm: 'done', project: 'stale', code: 'done' });
    expect(deriveSteps(stale, describeChoice)[2]!.missing).toEqual(['project']);
    expect(statuses(clearStale(stale, 'project')).project).toBe('done');
  });

  it('refuses an action on a locked step with WIZARD_STEP_LOCKED naming the missing steps', () => {
    let thrown: unknown;
    try {
      requireUnlocked({ ...EMPTY_FACTS, llm: llmOk }, 'debug', describeChoice);
    } catch (error) {
      thrown = error;
    }
    expect(isAppError(thrown) && thrown.code).toBe('WIZARD_STEP_LOCKED');
    expect((thrown as Error).message).toContain('Training code');
    expect((thrown as Error).message).toContain('Swarm server');
    expect(() => requireUnlocked({ ...EMPTY_FACTS, llm: llmOk }, 'project', describeChoice)).not.toThrow();
  });
});
