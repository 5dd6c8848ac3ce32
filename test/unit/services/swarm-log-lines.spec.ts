import { describe, expect, it } from 'vitest';
import { pickExplainingLines } from '../../../electron/services/swarm/log-lines';

// Shapes of upstream's log: loguru lines, Python tracebacks, the start-up banner (agentjet-swarm.md §3).
const BANNER = [
  '2026-12-02 10:00:00.000 | SUCCESS  | ajet.tuner_lib.experimental.oai_model_server:401 - Interchange server is running in blocking mode on:',
  '------',
  'URL 1: http://127.0.0.1:10086',
  '------',
  'Press Ctrl+C to stop.',
];

describe('pickExplainingLines', () => {
  it("takes a traceback's last frame and exception, not the banner around it", () => {
    const lines = [
      ...BANNER,
      'Traceback (most recent call last):',
      '  File "/opt/venv/bin/ajet", line 8, in <module>',
      '    sys.exit(main())',
      '  File "/workspace/ajet/backbone/main_verl.py", line 12, in <module>',
      '    import vllm',
      "ModuleNotFoundError: No module named 'vllm'",
      '2026-12-02 10:00:01.000 | INFO     | ajet.utils:1 - cleaning up',
    ];
    expect(pickExplainingLines(lines)).toEqual({
      lines: ['File "/workspace/ajet/backbone/main_verl.py", line 12, in <module>', "ModuleNotFoundError: No module named 'vllm'"],
      explains: true,
    });
  });

  it('takes error-level lines of loguru, logging and Ray, newest last, at most `max`', () => {
    const lines = [
      '2026-12-02 10:00:00.000 | ERROR    | ajet.utils.launch_utils:88 - first',
      'INFO:root:fine',
      'ERROR:root:second',
      '(raylet) [2026-12-02 10:00:02,000 E 12 12] [ERROR] third',
      '2026-12-02 10:00:03.000 | WARNING  | x:1 - only a warning',
      'RuntimeError: fourth',
      'CRITICAL fifth',
    ];
    const picked = pickExplainingLines(lines, 3);
    expect(picked).toEqual({ lines: [expect.stringContaining('third'), 'RuntimeError: fourth', 'CRITICAL fifth'], explains: true });
  });

  it('falls back to the last lines, marked as not explaining, when nothing is an error', () => {
    expect(pickExplainingLines(BANNER)).toEqual({ lines: ['URL 1: http://127.0.0.1:10086', '------', 'Press Ctrl+C to stop.'], explains: false });
    expect(pickExplainingLines([])).toEqual({ lines: [], explains: false });
  });

  it('clips very long lines and does not repeat the same line', () => {
    const long = `ValueError: ${'x'.repeat(1000)}`;
    const picked = pickExplainingLines([long, 'ERROR: same', 'ERROR: same']);
    expect(picked.lines).toHaveLength(2);
    expect(picked.lines[0]).toHaveLength(301);
    expect(picked.lines[0]?.endsWith('…')).toBe(true);
  });
});
