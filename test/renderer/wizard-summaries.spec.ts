import { afterEach, describe, expect, it } from 'vitest';
import type { WizardStepSummaryData } from '../../electron/shared/schemas-wizard';
import { setLocale } from '../../renderer/src/lib/i18n';
import { stepSummary } from '../../renderer/src/pages/wizard/wizard-format';

afterEach(() => setLocale('en'));

// Issue 32: the fact that completed a wizard step comes as data (WizardStepView.summary) and is worded
// here in both languages; only names, numbers, file names and the URL stay as they are.
describe('a wizard step’s fact in the user’s language', () => {
  const cases: [WizardStepSummaryData, string, string][] = [
    [{ step: 'llm', model: 'qwen-debug', latencyMs: 120 }, 'qwen-debug answered in 120 ms', 'qwen-debug 已应答，用时 120 ms'],
    [{ step: 'llm', model: 'qwen-debug', latencyMs: null }, 'qwen-debug answered', 'qwen-debug 已应答'],
    [{ step: 'project', items: 1, reward: 0.5, durationMs: 2100 }, '1 item · reward 0.5 in 2.1 s', '1 个条目 · 奖励 0.5，用时 2.1 s'],
    [{ step: 'project', items: 4, reward: 1, durationMs: 950 }, '4 items · reward 1 in 0.9 s', '4 个条目 · 奖励 1，用时 0.9 s'],
    [
      { step: 'code', files: ['agent_roll.py', 'agent_roll_one_episode_debug.py'] },
      'agent_roll.py and agent_roll_one_episode_debug.py written and compiled',
      'agent_roll.py和agent_roll_one_episode_debug.py 已写入并通过编译',
    ],
    [{ step: 'swarm', server: { kind: 'dry-run' }, url: 'http://127.0.0.1:10086' }, 'the dry run answered /health at http://127.0.0.1:10086', '试运行在 http://127.0.0.1:10086 应答了 /health'],
    [{ step: 'debug', server: { kind: 'profile', label: 'GPU box', removed: false }, reward: 1 }, 'reward 1 on profile “GPU box”', '奖励 1（配置“GPU box”）'],
    [{ step: 'debug', server: { kind: 'profile', label: 'GPU box', removed: true }, reward: 0 }, 'reward 0 on profile “GPU box” (removed)', '奖励 0（配置“GPU box”（已删除））'],
    [{ step: 'train', jobId: 'job-7' }, 'training started (job job-7)', '训练已开始（作业 job-7）'],
  ];
  it.each(cases)('%j', (summary, en, zh) => {
    expect(stepSummary(summary)).toBe(en);
    setLocale('zh-CN');
    expect(stepSummary(summary)).toBe(zh);
  });
});
