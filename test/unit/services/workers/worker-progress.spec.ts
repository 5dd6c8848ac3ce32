import { describe, expect, it } from 'vitest';
import { WorkerProgress } from '../../../../electron/services/workers/worker-progress';

describe('WorkerProgress', () => {
  it('reads the client uuid, episodes and a per-minute rate from the progress lines, and the last error line', () => {
    const p = new WorkerProgress();
    expect(p.perMinute()).toBeNull();
    p.see('AGENTSWARM_PROGRESS {"client_uuid": "8c1e-42", "episodes": 10, "failed_episodes": 1}', 0);
    expect(p.perMinute()).toBeNull();
    p.see('episode of task q3 gave no reward and was given back: RuntimeError: boom', 10_000);
    p.see('AGENTSWARM_PROGRESS {"client_uuid": "8c1e-42", "episodes": 30, "failed_episodes": 2}', 30_000);
    expect(p).toMatchObject({ clientUuid: '8c1e-42', episodes: 30, failedEpisodes: 2, lastError: expect.stringContaining('RuntimeError: boom') });
    expect(p.perMinute()).toBe(40);
    p.ended();
    expect(p.perMinute()).toBeNull();
  });

  it('ignores broken or hostile progress lines, and starts the rate over when a restarted worker counts from 0', () => {
    const p = new WorkerProgress();
    p.see('AGENTSWARM_PROGRESS not json', 0);
    p.see('AGENTSWARM_PROGRESS {"client_uuid": "a b; rm -rf /", "episodes": -3}', 0);
    expect(p).toMatchObject({ clientUuid: null, episodes: 0 });
    p.see('AGENTSWARM_PROGRESS {"episodes": 50}', 0);
    p.see('AGENTSWARM_PROGRESS {"episodes": 2}', 60_000);
    p.see('AGENTSWARM_PROGRESS {"episodes": 12}', 120_000);
    expect(p.perMinute()).toBe(10);
    expect(p.lastError).toBeNull();
  });

  it('reads the LLM calls the worker reports (null until it says: an older script does not)', () => {
    const p = new WorkerProgress();
    p.see('AGENTSWARM_PROGRESS {"episodes": 3}', 0);
    expect(p.llmCalls).toBeNull();
    const before = p.signature();
    p.see('AGENTSWARM_PROGRESS {"episodes": 3, "llm_calls": 7}', 1000);
    expect(p.llmCalls).toBe(7);
    expect(p.signature()).not.toBe(before);
    p.see('AGENTSWARM_PROGRESS {"episodes": 4, "llm_calls": "many"}', 2000);
    expect(p.llmCalls).toBe(7);
  });
});
