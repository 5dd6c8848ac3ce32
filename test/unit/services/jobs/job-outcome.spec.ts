import { describe, expect, it } from 'vitest';
import { classifyEnd, isUserFrame, parseTraceback, ResultCandidates, type RunEnd } from '../../../../electron/services/jobs/job-outcome';

const TRACEBACK = [
  'some output',
  'Traceback (most recent call last):',
  '  File "/home/u/proj/run_episode_once.py", line 42, in <module>',
  '    main()',
  '  File "/home/u/proj/run_episode_once.py", line 30, in main',
  '    reward = score(answer)',
  '  File "/home/u/proj/lib/scoring.py", line 7, in score',
  '    return 1 / len(answer)',
  '           ~~^~~~~~~~~~~~~',
  '  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads',
  '    return _default_decoder.decode(s)',
  '  File "/home/u/proj/.venv/lib/python3.11/site-packages/openai/_client.py", line 99, in create',
  '    raise APIError()',
  'ZeroDivisionError: division by zero',
];

function end(overrides: Partial<RunEnd>): RunEnd {
  return { exitCode: 1, signal: null, lines: [], result: null, brokenResultLine: null, swarmUrl: null, python: '/p/python', installHint: 'HINT', ...overrides };
}

describe('result line', () => {
  it('takes the last AGENTSWARM_RESULT line (last wins), with reward, count and items', () => {
    const c = new ResultCandidates();
    c.seeOut('AGENTSWARM_RESULT {"reward": 0.1}');
    c.seeOut('hello');
    c.seeOut('AGENTSWARM_RESULT {"reward": 0.75, "count": 3, "items": ["a", "b"]}');
    c.seeOut('bye');
    expect(c.result()).toEqual({ reward: 0.75, count: 3, items: ['a', 'b'], raw: { reward: 0.75, count: 3, items: ['a', 'b'] } });
  });

  it('accepts a last stdout line that is a JSON object with a numeric reward (an adopted script)', () => {
    const c = new ResultCandidates();
    c.seeOut('working');
    c.seeOut('{"reward": 1, "note": "ok"}');
    expect(c.result()?.reward).toBe(1);
  });

  it('refuses a last JSON line without a numeric reward, and names a result line that is not JSON', () => {
    const c = new ResultCandidates();
    c.seeOut('{"reward": "high"}');
    expect(c.result()).toBeNull();
    c.seeOut('AGENTSWARM_RESULT reward=1');
    expect(c.result()).toBeNull();
    expect(c.brokenResultLine()).toBe('AGENTSWARM_RESULT reward=1');
  });

  it('redacts a key-shaped value inside the result', () => {
    const c = new ResultCandidates();
    c.seeOut('AGENTSWARM_RESULT {"reward": 0.5, "echo": "sk-abcdefghijklmnopqrstuvwxyz0123"}');
    expect(JSON.stringify(c.result())).not.toContain('sk-abcdefghijklmnopqrstuvwxyz0123');
  });
});

describe('traceback', () => {
  it('points at the innermost frame of the user files, not site-packages or the standard library', () => {
    const tb = parseTraceback(TRACEBACK)!;
    expect(tb).toMatchObject({ file: '/home/u/proj/lib/scoring.py', line: 7, exception: 'ZeroDivisionError: division by zero' });
    expect(tb.text.split('\n')[0]).toBe('Traceback (most recent call last):');
  });

  it('uses the last traceback of chained exceptions, and knows library paths', () => {
    const chained = [...TRACEBACK, '', 'During handling of the above exception, another exception occurred:', '', 'Traceback (most recent call last):', '  File "/w/a.py", line 3, in <module>', 'KeyError: 1'];
    expect(parseTraceback(chained)).toMatchObject({ file: '/w/a.py', line: 3, exception: 'KeyError: 1' });
    expect(isUserFrame('<frozen runpy>')).toBe(false);
    expect(isUserFrame('C:\\Users\\u\\venv\\Lib\\site-packages\\x.py')).toBe(false);
    expect(isUserFrame('/opt/conda/lib/python3.10/asyncio/base_events.py')).toBe(false);
    expect(isUserFrame('/home/u/proj/agent_roll.py')).toBe(true);
  });

  it('is null without one', () => {
    expect(parseTraceback(['all fine'])).toBeNull();
  });
});

describe('failure classification', () => {
  it('succeeds on exit 0 with a result', () => {
    expect(classifyEnd(end({ exitCode: 0, result: { reward: 1, count: null, items: [], raw: { reward: 1 } } }))).toBeNull();
  });

  it('JOB_CRASHED names the file, line and exception', () => {
    const f = classifyEnd(end({ lines: TRACEBACK }))!;
    expect(f.code).toBe('JOB_CRASHED');
    expect(f.message).toContain('ZeroDivisionError: division by zero at /home/u/proj/lib/scoring.py, line 7');
    expect(f.traceback?.line).toBe(7);
    // The same facts as data, for the renderer to word in the user's language.
    expect(f.params).toMatchObject({ reason: 'crashed-traceback', exitCode: 1, exception: 'ZeroDivisionError: division by zero', file: '/home/u/proj/lib/scoring.py', line: 7 });
  });

  it('JOB_CRASHED for a signal without a traceback says which', () => {
    const f = classifyEnd(end({ exitCode: null, signal: 'SIGKILL', lines: ['x'] }));
    expect(f?.message).toContain('killed by SIGKILL');
    expect(f?.params).toEqual({ reason: 'crashed-output', signal: 'SIGKILL', lastLine: 'x' });
  });

  it('JOB_RESULT_MISSING says which line to print', () => {
    const f = classifyEnd(end({ exitCode: 0, lines: ['done'] }))!;
    expect(f.code).toBe('JOB_RESULT_MISSING');
    expect(f.message).toContain('AGENTSWARM_RESULT {"reward": <number>}');
    expect(f.params).toEqual({ reason: 'result-missing' });
  });

  it('AJET_NOT_INSTALLED with the install hint', () => {
    const f = classifyEnd(end({ lines: ['Traceback (most recent call last):', '  File "/w/agent_roll.py", line 1, in <module>', "ModuleNotFoundError: No module named 'ajet'"] }))!;
    expect(f).toMatchObject({ code: 'AJET_NOT_INSTALLED', traceback: { file: '/w/agent_roll.py', line: 1 } });
    expect(f.message).toContain('HINT');
    expect(classifyEnd(end({ lines: ["ModuleNotFoundError: No module named 'ajetx'"] }))?.code).toBe('JOB_CRASHED');
  });

  it('SWARM_UNREACHABLE from the client text, or a refused connection to the swarm URL', () => {
    expect(classifyEnd(end({ lines: ['Unable to connect to swarm server, retrying'], swarmUrl: 'http://127.0.0.1:10086' }))).toMatchObject({ code: 'SWARM_UNREACHABLE', message: expect.stringContaining('http://127.0.0.1:10086') });
    expect(classifyEnd(end({ lines: ['requests to http://127.0.0.1:10086/health: [Errno 111] Connection refused'], swarmUrl: 'http://127.0.0.1:10086' }))?.code).toBe('SWARM_UNREACHABLE');
    // Refused by something else (the LLM): not blamed on the swarm server.
    expect(classifyEnd(end({ lines: ['http://127.0.0.1:9999/v1: Connection refused'], swarmUrl: 'http://127.0.0.1:10086' }))?.code).toBe('JOB_CRASHED');
  });

  it('PORT_IN_USE from "Address already in use"', () => {
    const f = classifyEnd(end({ lines: ['OSError: [Errno 98] Address already in use'] }))!;
    expect(f.code).toBe('PORT_IN_USE');
  });
});
