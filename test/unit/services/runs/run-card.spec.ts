import { describe, expect, it } from 'vitest';
import { runCardHtml, runCardMarkdown } from '../../../../electron/services/runs/run-card';
import { runStats } from '../../../../electron/services/runs/run-stats';
import { sideBySide } from '../../../../electron/services/runs/yaml-diff';
import { forgetSecretValue, rememberSecretValue } from '../../../../electron/services/util/redact';
import type { RunDetail } from '../../../../electron/shared/schemas-runs';
import type { TrainingPoint } from '../../../../electron/shared/schemas-training';

const CANARY = 'sk-canary-unit-Zq8Lw3Rt5Yv7Xb9N0001';
const VAULT_VALUE = 'vault-known-value-77';

function point(step: number, reward: number | null): TrainingPoint {
  return { step, at: new Date(Date.UTC(2026, 0, 1, 0, step)).toISOString(), batch: 'pool', rewardMean: reward, rewardStd: 0, rewardMin: reward, rewardMax: reward, episodes: 2, seconds: 3, llmTokens: null, llmCalls: null, failures: null, secondsInStatus: {} };
}

function run(points: TrainingPoint[], yaml: string | null): RunDetail {
  return {
    runId: '20260101T000000000Z-ab12',
    engineId: 'local',
    engineKind: 'local-docker',
    containerId: 'c0ffee000001',
    serverName: 'Qwen <small> & "quoted"',
    profileId: 'p1',
    profileLabel: 'Qwen',
    image: 'ghcr.io/modelscope/agentjet:main',
    imageDigest: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T02:30:00.000Z',
    endKind: 'engine-stopped',
    endCode: null,
    stats: runStats(points),
    gpus: 4,
    gpuSource: 'sample',
    gpuHours: 10,
    cost: 25,
    currency: 'USD',
    yamlSha256: 'f'.repeat(64),
    scriptCount: 1,
    bytes: 1000,
    yaml,
    yamlNote: null,
    yamlPath: '/workspace/saved_experiments/x/yaml_backup.yaml',
    scripts: [{ name: 'agent_roll.py', path: '/p/agent_roll.py', sha256: 'a'.repeat(64), bytes: 40, text: `KEY = "${VAULT_VALUE}"\nprint("hi")\n` }],
    points,
    timeline: [],
  };
}

describe('run card', () => {
  it('HTML: self-contained (no URL to fetch), the chart inline, facts escaped, no secret', () => {
    rememberSecretValue(VAULT_VALUE);
    try {
      const html = runCardHtml(run([point(1, 0.1), point(2, null), point(3, 0.7)], `ajet:\n  judge:\n    api_key: ${CANARY}\n    url: https://user:pw-in-url-123@judge.example/v1\n`));
      expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
      expect(html).toContain('<polyline');
      expect(html).toContain("default-src 'none'");
      expect(html).toContain('Qwen &lt;small&gt; &amp; &quot;quoted&quot;');
      expect(html).not.toContain(CANARY);
      expect(html).not.toContain(VAULT_VALUE);
      expect(html).not.toContain('pw-in-url-123');
      // Nothing a browser would fetch: no src/href attributes, no url() in CSS, no @import.
      expect(html).not.toMatch(/\s(?:src|href)\s*=/i);
      expect(html).not.toMatch(/url\(|@import/i);
    } finally {
      forgetSecretValue(VAULT_VALUE);
    }
  });

  it('Markdown: facts table, the PNG beside it, the YAML fenced, no secret', () => {
    const md = runCardMarkdown(run([point(1, 0.5)], `a: 1\napi_key: ${CANARY}\n`), 'agentswarm-run-x.png');
    expect(md).toContain('| GPU-hours | 10 |');
    expect(md).toContain('| Cost | 25 USD |');
    expect(md).toContain('![Mean reward per step](agentswarm-run-x.png)');
    expect(md).toContain('```yaml\na: 1\napi_key: [REDACTED]\n```');
    expect(md).not.toContain(CANARY);
  });

  it('a run without rewards still draws a chart that says so', () => {
    expect(runCardHtml(run([], null))).toContain('No step with a reward was recorded.');
  });
});

describe('YAML side by side', () => {
  it('pairs changed lines, keeps added and removed ones, folds long unchanged stretches', () => {
    const common = Array.from({ length: 20 }, (_, i) => `k${i}: ${i}`).join('\n');
    const left = `ajet:\n  lr: 0.001\n${common}\n  batch: 8\n`;
    const right = `ajet:\n  lr: 0.0005\n${common}\n  batch: 8\n  extra: true\n`;
    const { rows, changed } = sideBySide(left, right);
    expect(rows[0]).toMatchObject({ kind: 'same', left: 'ajet:', leftLine: 1, rightLine: 1 });
    expect(rows[1]).toMatchObject({ kind: 'changed', left: '  lr: 0.001', right: '  lr: 0.0005', leftLine: 2, rightLine: 2 });
    expect(rows.find((r) => r.kind === 'folded')).toMatchObject({ count: 15 });
    expect(rows.at(-1)).toMatchObject({ kind: 'added', left: null, right: '  extra: true', rightLine: 24 });
    expect(changed).toBe(2);
  });

  it('two equal texts give no change', () => {
    expect(sideBySide('a: 1\n', 'a: 1\n')).toEqual({ rows: [{ kind: 'same', count: 1, left: 'a: 1', right: 'a: 1', leftLine: 1, rightLine: 1 }], changed: 0 });
  });
});
