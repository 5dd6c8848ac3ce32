import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderScaffold, renderTrainingCode } from '../../../../electron/services/project/templates';
import { splitParallelism, workerShareEnv } from '../../../../electron/services/workers/parallelism-split';
import { isAppError } from '../../../../electron/shared/errors';
import { TrainingForm } from '../../../../electron/shared/schemas-wizard';
import { AJET_STUB_DIR, systemPython } from '../../../support/python-env';

/**
 * The parallelism split (issue 34, reference §6.2) and the generated `agent_roll.py` reading it:
 * the real template from `resources/`, the real interpreter, the ajet TEST DOUBLE for AgentJet.
 */
const RESOURCES = resolve(import.meta.dirname, '..', '..', '..', '..', 'resources');
const run = promisify(execFile);

describe('splitParallelism', () => {
  it('gives N workers shares that add up to the batch exactly (never over-claiming), the remainder to the first', () => {
    for (const [batchSize, grpoN, workers] of [[32, 4, 4], [32, 4, 3], [7, 2, 7], [8, 4, 1], [5, 3, 2]] as const) {
      const split = splitParallelism({ batchSize, grpoN, workers });
      expect(split.shares).toHaveLength(workers);
      expect(split.shares.reduce((sum, s) => sum + s.batchShare, 0)).toBe(batchSize);
      expect(split.shares.reduce((sum, s) => sum + s.parallelEpisodes, 0)).toBe(batchSize * grpoN);
      expect(split.totalParallelEpisodes).toBe(batchSize * grpoN);
      const sizes = split.shares.map((s) => s.batchShare);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
      for (const s of split.shares) expect(s.parallelEpisodes).toBe(s.batchShare * grpoN);
    }
    expect(splitParallelism({ batchSize: 32, grpoN: 4, workers: 3 }).shares.map((s) => s.batchShare)).toEqual([11, 11, 10]);
    // Upstream's formula, batch // N * grpo_n, where N divides the batch.
    expect(splitParallelism({ batchSize: 32, grpoN: 4, workers: 4 }).shares.map((s) => s.parallelEpisodes)).toEqual([32, 32, 32, 32]);
  });

  it('refuses more workers than tasks in a batch, and non-positive numbers, saying what to change', () => {
    const tooMany = (() => {
      try {
        splitParallelism({ batchSize: 2, grpoN: 4, workers: 3 });
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(isAppError(tooMany) && tooMany.code).toBe('VALIDATION_FAILED');
    expect((tooMany as Error).message).toMatch(/at most 2 workers/);
    expect(() => splitParallelism({ batchSize: 8, grpoN: 0, workers: 1 })).toThrow(/GRPO group size/);
    expect(() => splitParallelism({ batchSize: 8, grpoN: 2, workers: 1.5 })).toThrow(/number of workers/);
  });

  it('passes a share as three plain env values', () => {
    const split = splitParallelism({ batchSize: 5, grpoN: 2, workers: 2 });
    expect(workerShareEnv(split, 1)).toEqual({ AGENTSWARM_WORKER_INDEX: '1', AGENTSWARM_WORKER_COUNT: '2', AGENTSWARM_WORKER_BATCH_SHARE: '2' });
    expect(() => workerShareEnv(split, 2)).toThrow(/not in a pool of 2/);
  });
});

describe('agent_roll.py reads its share', { timeout: 30_000 }, () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'split-spec-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function build(): Promise<string> {
    const form = TrainingForm.parse({ experimentName: 'exp_1', modelPath: '/models/m', batchSize: 5, grpoN: 2 });
    const files = {
      ...(await renderScaffold(RESOURCES, { buildId: 't1', rewardStyle: 'native', agentCommand: '' })),
      ...(await renderTrainingCode(RESOURCES, { form, collectorModule: 'get_training_dataset_item_list', episodeModule: 'run_episode_once' })),
    };
    const folder = join(dir, 'project', 'tutorial', 'opencode_build_t1');
    await mkdir(folder, { recursive: true });
    for (const [name, text] of Object.entries(files)) await writeFile(join(folder, name), text);
    await writeFile(join(dir, 'project', 'dataset.jsonl'), Array.from({ length: 12 }, (_u, i) => JSON.stringify({ id: `q${i}` })).join('\n'));
    return folder;
  }

  async function probe(cwd: string, env: Record<string, string>): Promise<{ out: string; code: number }> {
    const code = 'import json, agent_roll as m; ts = m.load_tasks(); print(json.dumps([m.WORKER_INDEX, m.WORKER_COUNT, m.WORKER_BATCH_SHARE, [t.task_id for t in m.task_order(ts, 0)]]))';
    try {
      const { stdout } = await run(systemPython(), ['-c', code], { cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: AJET_STUB_DIR, ...env }, timeout: 30_000 });
      return { out: stdout.trim(), code: 0 };
    } catch (error) {
      const e = error as { stderr: string; code: number };
      return { out: e.stderr.trim(), code: e.code };
    }
  }

  it('runs as the only worker without the env, with the share the pool gives otherwise, in its own task order', async () => {
    const folder = await build();
    const alone = JSON.parse((await probe(folder, {})).out) as [number, number, number, string[]];
    expect(alone.slice(0, 3)).toEqual([0, 1, 5]);
    const split = splitParallelism({ batchSize: 5, grpoN: 2, workers: 2 });
    const first = JSON.parse((await probe(folder, workerShareEnv(split, 0))).out) as [number, number, number, string[]];
    const second = JSON.parse((await probe(folder, workerShareEnv(split, 1))).out) as [number, number, number, string[]];
    expect(first.slice(0, 3)).toEqual([0, 2, 3]);
    expect(second.slice(0, 3)).toEqual([1, 2, 2]);
    // Worker 0 keeps the single run's order; another worker starts elsewhere, with every task still in it.
    expect(first[3]).toEqual(alone[3]);
    expect(second[3]).not.toEqual(first[3]);
    expect([...second[3]].sort()).toEqual([...first[3]].sort());
  });

  it('refuses a share that does not fit the batch, before any episode', async () => {
    const folder = await build();
    const bad = await probe(folder, { AGENTSWARM_WORKER_INDEX: '0', AGENTSWARM_WORKER_COUNT: '2', AGENTSWARM_WORKER_BATCH_SHARE: '9' });
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/does not fit a batch of 5/);
    const word = await probe(folder, { AGENTSWARM_WORKER_COUNT: 'two' });
    expect(word.out).toMatch(/not a whole number/);
  });
});
