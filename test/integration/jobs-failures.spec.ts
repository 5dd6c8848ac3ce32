import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, startRunner, type RunnerHarness } from './support/jobs-harness';
import { makeProject, startRequest } from './support/jobs-fixtures';

/**
 * How a run that went wrong is told to the user: real Python scripts that crash, forget their
 * result, find their port taken, or cannot reach the swarm server, through the JobRunner.
 */
let harness: RunnerHarness | null = null;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await harness?.close();
  harness = null;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function run(files: Record<string, string>, script: string, extra: Partial<Parameters<typeof startRequest>[0]> = {}) {
  harness ??= await startRunner();
  const project = await makeProject(files);
  const job = await harness.runner.start(startRequest({ cwd: project, script, ...extra }));
  return { project, ended: await harness.events.ended(job.id) };
}

describe('a run that fails says why', () => {
  it("JOB_CRASHED with the traceback's innermost frame in the user's code (file, line, exception), past the standard library", async () => {
    const { project, ended } = await run(
      {
        'agent/scoring.py': ['import json', '', 'def score(text):', '    data = json.loads(text)', '    return 1 / len(data)'].join('\n'),
        'run_episode_once.py': ['import sys', 'sys.path.insert(0, "agent")', 'from scoring import score', 'print("scoring item", sys.argv[1])', 'score("[]")'].join('\n'),
      },
      'run_episode_once.py',
      { args: ['3'] },
    );
    expect(ended).toMatchObject({ state: 'failed', exitCode: 1, signal: null, result: null });
    expect(ended.failure).toMatchObject({
      code: 'JOB_CRASHED',
      traceback: { file: join(project, 'agent', 'scoring.py'), line: 5, exception: 'ZeroDivisionError: division by zero' },
    });
    expect(ended.failure?.message).toBe(`The script exited with code 1: ZeroDivisionError: division by zero at ${join(project, 'agent', 'scoring.py')}, line 5. Fix it there, then run again.`);
    expect(ended.failure?.traceback?.text).toMatch(/^Traceback \(most recent call last\):\n[\s\S]*run_episode_once\.py", line 5[\s\S]*ZeroDivisionError: division by zero$/);
  });

  it('a crash inside the standard library still points at the line of the user that called it', async () => {
    const { project, ended } = await run({ 'ep.py': ['import json', 'json.loads("{not json")'].join('\n') }, 'ep.py');
    expect(ended.failure).toMatchObject({ code: 'JOB_CRASHED', traceback: { file: join(project, 'ep.py'), line: 2, exception: expect.stringMatching(/^json\.decoder\.JSONDecodeError: /) } });
  });

  it('a crash without a traceback (os._exit(3)) gives the exit code and the last line', async () => {
    const { ended } = await run({ 'ep.py': ['import os', 'print("giving up: no items", flush=True)', 'os._exit(3)'].join('\n') }, 'ep.py');
    expect(ended).toMatchObject({ state: 'failed', exitCode: 3, failure: { code: 'JOB_CRASHED', traceback: null } });
    expect(ended.failure?.message).toBe('The script exited with code 3. Its last line: giving up: no items See the log for more.');
  });

  it('JOB_RESULT_MISSING when a script exits 0 without its result line, and when the line is not JSON', async () => {
    const missing = await run({ 'ep.py': 'print("all done")\n' }, 'ep.py');
    expect(missing.ended).toMatchObject({ state: 'failed', exitCode: 0, result: null, failure: { code: 'JOB_RESULT_MISSING' } });
    expect(missing.ended.failure?.message).toContain('print("AGENTSWARM_RESULT", json.dumps({"reward": reward}))');
    const broken = await run({ 'ep.py': 'print("AGENTSWARM_RESULT {reward: 1}")\n' }, 'ep.py');
    expect(broken.ended.failure).toMatchObject({ code: 'JOB_RESULT_MISSING', message: expect.stringContaining('is not a JSON object: AGENTSWARM_RESULT {reward: 1}') });
  });

  it('PORT_IN_USE when the script binds a port another program holds', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => holder.close(() => resolve())));
    const port = (holder.address() as { port: number }).port;
    const { project, ended } = await run(
      { 'serve.py': ['import http.server, sys', 'print("serving on port", sys.argv[1], flush=True)', 'http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), http.server.SimpleHTTPRequestHandler)'].join('\n') },
      'serve.py',
      { args: [String(port)] },
    );
    expect(ended).toMatchObject({ state: 'failed', exitCode: 1, failure: { code: 'PORT_IN_USE', traceback: { file: join(project, 'serve.py'), line: 3, exception: 'OSError: [Errno 98] Address already in use' } } });
    expect(ended.failure?.message).toMatch(/another program already uses \("Address already in use"\)\. Stop that program or choose another port/);
  });

  it("SWARM_UNREACHABLE from the client's own error text when the server went away during the run", async () => {
    harness = await startRunner();
    const health = await startHealthServer();
    harness.swarms.set('local:fff000', health.url);
    const script = [
      'import os, sys, urllib.request',
      'url = os.environ["AJET_SWARM_URL"]',
      'print("waiting for the server to go", flush=True)',
      'import time',
      'while True:',
      '    try:',
      '        urllib.request.urlopen(url + "/health", timeout=1)',
      '        time.sleep(0.05)',
      '    except Exception as e:',
      '        print(f"GET {url}/health: {e}", flush=True)',
      '        raise RuntimeError("Unable to connect to swarm server.")', // AgentJet's client's own words (agentjet-swarm.md §3)
    ].join('\n');
    const project = await makeProject({ 'agent_roll.py': script });
    const job = await harness.runner.start(startRequest({ cwd: project, script: 'agent_roll.py', swarm: { engineId: 'local', containerId: 'fff000', profileId: null } }));
    await health.close();
    const ended = await harness.events.ended(job.id);
    expect(ended.failure).toMatchObject({ code: 'SWARM_UNREACHABLE', traceback: { file: join(project, 'agent_roll.py'), line: 11, exception: 'RuntimeError: Unable to connect to swarm server.' } });
    expect(ended.failure?.message).toContain(`at ${health.url}. Start the server`);
  });

  it('AJET_NOT_INSTALLED when a plain script fails on "import ajet"', async () => {
    const { ended } = await run({ 'roll.py': 'from ajet.copilot import something\n' }, 'roll.py');
    expect(ended.failure).toMatchObject({ code: 'AJET_NOT_INSTALLED', message: expect.stringContaining('pip install -e .') });
  });
});
