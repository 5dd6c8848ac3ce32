// The level a log line states, whatever stream it came on (renderer/src/lib/log-level.ts). The lines are as the
// tools print them: AgentJet's loguru lines, Python's logging, vLLM, a traceback.
import { describe, expect, it } from 'vitest';
import { isMarkedLevel, logLevelOf } from '../../../renderer/src/lib/log-level';

describe('logLevelOf', () => {
  it.each([
    ['2026-12-02 10:00:00.000 | ERROR    | ajet.utils.launch_utils:88 - Failed to start Ray: no GPU found', 'error'],
    ['17:25:14 | INFO     | Synced train config to Swarm server', 'info'],
    ['2026-12-02 10:00:01.000 | SUCCESS  | ajet.swarm:12 - Engine is ROLLING', 'success'],
    ['2026-12-02 10:00:02.000 | WARNING  | ajet.swarm:30 - Sync new training configuration', 'warning'],
    ['12:00:00 | TRACE | x', 'debug'],
    ['ERROR:root:could not open the dataset', 'error'],
    ['WARNING:ajet.client:retrying the claim', 'warning'],
    ['2026-12-05 10:00:00,123 - ray.worker - WARNING - Task was slow', 'warning'],
    ['2026-12-05 10:00:00 [ERROR] out of memory', 'error'],
    ['[CRITICAL] engine died', 'critical'],
    ['INFO 12-05 10:00:00 [llm_engine.py:75] Initializing an LLM engine', 'info'],
    ['Traceback (most recent call last):', 'error'],
    ["ModuleNotFoundError: No module named 'verl'", 'error'],
    ['torch.OutOfMemoryError: CUDA out of memory.', 'error'],
    ['KeyboardInterrupt: ', 'error'],
  ] as const)('%s → %s', (line, level) => {
    expect(logLevelOf(line)).toBe(level);
  });

  it('reads no level into ordinary text that mentions one', () => {
    expect(logLevelOf('Error budget: none')).toBeNull();
    expect(logLevelOf('step 7: reward 0.5, no ERROR this time')).toBeNull();
    expect(logLevelOf('Press Ctrl+C to stop.')).toBeNull();
    expect(logLevelOf('  File "/workspace/ajet/backbone/main_verl.py", line 12, in <module>')).toBeNull();
  });

  it('marks warnings and worse, not the ordinary run of a log', () => {
    expect(['debug', 'info', 'success', null].map((l) => isMarkedLevel(l as never))).toEqual([false, false, false, false]);
    expect(['warning', 'error', 'critical'].map((l) => isMarkedLevel(l as never))).toEqual([true, true, true]);
  });
});
