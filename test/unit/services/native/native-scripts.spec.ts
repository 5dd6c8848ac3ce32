// Native mode's shell scripts: quoting, no secret in argv, --autokill refused, and the whole run
// directory life cycle through a real /bin/sh with a throwaway HOME (no Docker, no network).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerSpec, EngineHost, HostExecResult } from '../../../../electron/services/engines/container-engine';
import { NativeProcesses } from '../../../../electron/services/native/native-processes';
import { parseRunRecords, summaryOfRecord } from '../../../../electron/services/native/native-records';
import { assertRunName, createScript, nativeRunPaths, envFileText, launchScript, startScript, stopScript, type NativeRunSpec } from '../../../../electron/services/native/native-scripts';

const SECRET = "sk-live-'quoted' $(touch /tmp/pwned) `id` \"x\"";

function nativeSpec(extra: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    name: 'unit-native',
    image: '',
    cmd: ['ajet-swarm', 'start', '--swarm-port=18650'],
    env: { SWANLAB_API_KEY: SECRET, NO_COLOR: '1' },
    labels: { 'io.agentswarm.port': '18650', role: 'test' },
    network: { mode: 'host' },
    init: false,
    gpus: { mode: 'none' },
    shm: { mode: 'ipc-host' },
    binds: [],
    runtime: 'native',
    nativeActivate: 'export PATH="$HOME/.local/bin:$PATH"',
    ...extra,
  };
}

/** A real /bin/sh whose HOME is a throwaway folder (LocalHost uses the test process's HOME). Records every call. */
class ShellWithHome implements EngineHost {
  readonly kind = 'local' as const;
  readonly label = 'this computer (test HOME)';
  readonly calls: { script: string; stdin: string | undefined }[] = [];
  constructor(private readonly home: string) {}
  exec(script: string, options: { timeoutMs?: number; stdin?: string } = {}): Promise<HostExecResult> {
    this.calls.push({ script, stdin: options.stdin });
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', script], { env: { ...process.env, HOME: this.home } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.stdin ?? '');
    });
  }
}

describe('native script builders', () => {
  const run: NativeRunSpec = {
    version: 1,
    name: 'n1',
    labels: {},
    port: 1,
    cmd: ['ajet-swarm', "it's", '$(x)'],
    activate: null,
    envNames: ['A'],
    marker: 'ajet-swarm',
    createdAt: 'now',
  };

  it('refuses run names that could leave the run folder or become options', () => {
    for (const bad of ['../x', 'a/b', '.hidden', '-rf', 'a b', '', 'x'.repeat(101), "it's"]) expect(() => assertRunName(bad)).toThrow(/cannot name/);
    expect(assertRunName('agentswarm-swarm-10086-abc123')).toBe('agentswarm-swarm-10086-abc123');
  });

  it('names the run folder and its files as a user would type them', () => {
    expect(nativeRunPaths('agentswarm-p-1a2b3c')).toEqual({ dir: '~/.agentswarm/run/agentswarm-p-1a2b3c', log: '~/.agentswarm/run/agentswarm-p-1a2b3c/server.log', pid: '~/.agentswarm/run/agentswarm-p-1a2b3c/pid', exit: '~/.agentswarm/run/agentswarm-p-1a2b3c/exit' });
  });

  it('quotes every command word and env value for sh; refuses env names that are not names', () => {
    expect(launchScript(run)).toContain(`'ajet-swarm' 'it'"'"'s' '$(x)' &`);
    expect(envFileText({ A: "v'1" })).toBe(`export A='v'"'"'1'\n`);
    expect(() => envFileText({ 'A=B; rm': 'x' })).toThrow(/not a valid environment variable name/);
  });

  it('never puts an env value in a script (scripts are argv of sh -c, which ps shows)', () => {
    const withSecret = { ...run, envNames: ['SWANLAB_API_KEY'] };
    for (const script of [createScript(withSecret), startScript(withSecret), stopScript('n1', 5), launchScript(withSecret)]) {
      expect(script).not.toContain('sk-live');
    }
  });
});

// Real sh processes, a stop that waits out its 1 s timeout before SIGKILL: vitest's 5 s default ran out on a loaded
// two-core machine, so these tests get 30 s.
describe('NativeProcesses on a real /bin/sh (run folder life cycle, no server process)', { timeout: 120_000 }, () => {
  let home: string;
  let host: ShellWithHome;
  let native: NativeProcesses;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agentswarm-native-unit-'));
    host = new ShellWithHome(home);
    native = new NativeProcesses(host);
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('refuses --autokill: it would kill every python process on the host', async () => {
    await expect(native.create(nativeSpec({ name: 'autokill', cmd: ['ajet-swarm', 'start', '--autokill'] }))).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('--autokill') });
    expect(host.calls).toHaveLength(0);
  });

  it('creates the run folder (0700) with the secret only in a 0600 env file written through stdin', async () => {
    const id = await native.create(nativeSpec());
    expect(id).toBe('native-unit-native');
    const call = host.calls.at(-1)!;
    expect(call.script).not.toContain('sk-live');
    expect(call.stdin).toContain('SWANLAB_API_KEY=');
    const dir = join(home, '.agentswarm/run/unit-native');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'env'))).mode & 0o777).toBe(0o600);
    const spec = JSON.parse(await readFile(join(dir, 'spec.json'), 'utf8')) as NativeRunSpec;
    expect(spec).toMatchObject({ name: 'unit-native', port: 18650, envNames: ['SWANLAB_API_KEY', 'NO_COLOR'], marker: 'ajet-swarm' });
    expect(JSON.stringify(spec)).not.toContain('sk-live');
    // Sourcing the env file gives back the exact value, quotes, $() and backticks untouched.
    const echoed = await host.exec(`. "$HOME/.agentswarm/run/unit-native/env"; printf '%s' "$SWANLAB_API_KEY"`);
    expect(echoed.stdout).toBe(SECRET);
    await expect(readdir('/tmp').then((names) => names.includes('pwned'))).resolves.toBe(false);
    const summary = await native.inspect(id);
    expect(summary).toMatchObject({ id, name: 'unit-native', state: 'created', exitCode: null, labels: { role: 'test' } });
    await expect(native.create(nativeSpec())).rejects.toMatchObject({ code: 'CONTAINER_CONFLICT' });
  });

  it('without ajet-swarm on PATH after the activate line: NATIVE_NOT_INSTALLED with the fix, nothing launched', async () => {
    const id = await native.create(nativeSpec({ name: 'not-installed', nativeActivate: 'export PATH=/nonexistent' }));
    const error = await native.start(id).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NATIVE_NOT_INSTALLED', message: expect.stringContaining('activate line') });
    expect((await native.inspect(id)).state).toBe('created');
  });

  it('runs a command with awkward arguments exactly, records its exit code and reads its log', async () => {
    const word = `it's $(echo no) \`echo no\` "q" ;|&`;
    const id = await native.create(nativeSpec({ name: 'echo-run', cmd: ['/bin/echo', word], env: {}, nativeActivate: null }));
    await native.start(id);
    let summary = await native.inspect(id);
    for (let i = 0; i < 50 && summary.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      summary = await native.inspect(id);
    }
    expect(summary).toMatchObject({ state: 'exited', exitCode: 0 });
    expect(summary.startedAt).not.toBeNull();
    expect(summary.finishedAt).not.toBeNull();
    expect(await native.readLog(id, { tail: 5 })).toEqual([word]);
    expect(await native.readFile(id, '/workspace/log/swarm_server.log', 1000)).toBe(`${word}\n`);
    expect(await native.readFile(id, 'no-such-file', 1000)).toBeNull();
  });

  it('finds a command after the activate line (the doctor\'s check), or says NATIVE_NOT_INSTALLED', async () => {
    expect(await native.which('export PATH=/bin:/usr/bin', 'sleep')).toMatch(/\/sleep$/);
    await expect(native.which('export PATH=/nonexistent')).rejects.toMatchObject({ code: 'NATIVE_NOT_INSTALLED' });
  });

  it('stop sends SIGTERM to the pid, then SIGKILL after the timeout to a server that ignores it (exit 137)', async () => {
    // The activate line makes the wrapper ignore TERM; the server inherits that across exec.
    const id = await native.create(nativeSpec({ name: 'stubborn', cmd: ['/bin/sleep', '30'], env: {}, nativeActivate: "trap '' TERM", labels: { role: 'stubborn' } }));
    await native.start(id);
    expect((await native.inspect(id)).state).toBe('running');
    const started = Date.now();
    await native.stop(id, 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(await native.inspect(id)).toMatchObject({ state: 'exited', exitCode: 137 });
    await native.remove(id);
  });

  it('a server that just died reads as exited with its code: inspect waits for the exit file while the wrapper lives', async () => {
    const id = await native.create(nativeSpec({ name: 'just-died', env: {}, labels: { role: 'race' } }));
    // The moment after the server died: its pid is gone, its wrapper (named like launch.sh) writes the code 400 ms later.
    await host.exec(
      [
        'd="$HOME/.agentswarm/run/just-died"',
        'echo "$(date +%s) 0" >"$d/started"',
        'echo 999999999 >"$d/pid"',
        `setsid /bin/sh -c 'sleep 0.4; echo "9 $(date +%s)" >"$(dirname "$0")/exit"' "$d/launch.sh" </dev/null >/dev/null 2>&1 &`,
        'echo $! >"$d/wrapper"',
      ].join('\n'),
    );
    expect(await native.inspect(id)).toMatchObject({ state: 'exited', exitCode: 9 });
    await native.remove(id);
  });

  it('lists by label, removes the run folder, and says CONTAINER_NOT_FOUND after', async () => {
    expect((await native.list({ role: 'test' })).map((c) => c.name).sort()).toEqual(['echo-run', 'not-installed', 'unit-native']);
    expect(await native.list({ role: 'other' })).toEqual([]);
    await native.remove('native-unit-native');
    await expect(native.inspect('native-unit-native')).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
    await expect(native.remove('native-unit-native')).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
  });
});

describe('run records', () => {
  it('parses the host report and words states like Docker', () => {
    const spec = { version: 1, name: 'r', labels: { a: '1' }, port: 1, cmd: ['ajet-swarm', 'start'], activate: null, envNames: [], marker: 'ajet-swarm', createdAt: '2026-01-01T00:00:00.000Z' };
    const out = [`@@run 0|123|1767225600.5 42|143 1767225660.25`, `@@spec ${JSON.stringify(spec)}`, '@@run 1|9||', '@@spec {half', '@@run 1|77|1767225600 0|', `@@spec ${JSON.stringify({ ...spec, name: 's' })}`].join('\n');
    const records = parseRunRecords(out);
    expect(records.map((r) => r.spec.name)).toEqual(['r', 's']);
    expect(records[0]).toMatchObject({ alive: false, pid: 123, startedAtMs: 1767225600500, startOffset: 42, exitCode: 143, finishedAtMs: 1767225660250 });
    const exited = summaryOfRecord(records[0]!, 1767225660250 + 5000);
    expect(exited).toMatchObject({ id: 'native-r', state: 'exited', exitCode: 143, statusText: 'Exited (143) 5 seconds ago' });
    expect(summaryOfRecord(records[1]!)).toMatchObject({ id: 'native-s', state: 'running', exitCode: null, finishedAt: null });
  });
});
