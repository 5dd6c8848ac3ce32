// withNativeProcesses: dispatch by id prefix and spec runtime, the merged list when one side fails,
// and the pure parts of follow (line cursor, partial lines, end) and events (die with the exit code).
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../electron/shared/errors';
import type { ContainerEngine, ContainerEvent, ContainerSpec, ContainerSummary, EngineHost, EngineLogLine, HostExecResult } from '../../../../electron/services/engines/container-engine';
import { withNativeProcesses } from '../../../../electron/services/native/native-engine';
import { followNativeLog, lineCursor, lineOfCursor } from '../../../../electron/services/native/native-log-follow';
import { watchNativeRuns } from '../../../../electron/services/native/native-events';
import type { NativeRunRecord } from '../../../../electron/services/native/native-records';

function summary(id: string): ContainerSummary {
  return { id, name: id, image: 'img', state: 'running', statusText: 'Up', labels: {}, createdAt: '', startedAt: null, finishedAt: null, exitCode: null, oomKilled: false };
}

/** TEST DOUBLE of a Docker engine: records which calls reached it; listContainers fails on demand. */
function dockerDouble(host: EngineHost | null, listFails = false): ContainerEngine & { calls: string[] } {
  const calls: string[] = [];
  const record = (name: string) => (...args: unknown[]) => {
    calls.push(`${name}:${String(args[0])}`);
    return Promise.resolve(name === 'inspectContainer' ? summary(String(args[0])) : name === 'createContainer' ? 'docker-id' : undefined);
  };
  return {
    calls,
    summary: { id: 'e', kind: 'local-docker', label: 'Test Docker', endpoint: 'x' },
    wording: { product: 'Docker', pullImage: () => '', unreachable: () => '', permissionDenied: () => '', noGpuRuntime: () => '' },
    host,
    health: () => Promise.resolve({ id: 'e', reachable: true, version: '1', apiVersion: '1', error: null }),
    listContainers: () => (listFails ? Promise.reject(new AppError('ENGINE_UNREACHABLE', 'Docker is down')) : Promise.resolve([summary('abc')])),
    inspectContainer: record('inspectContainer') as ContainerEngine['inspectContainer'],
    imageExists: () => Promise.resolve(true),
    createContainer: record('createContainer') as ContainerEngine['createContainer'],
    startContainer: record('startContainer') as ContainerEngine['startContainer'],
    stopContainer: record('stopContainer') as ContainerEngine['stopContainer'],
    removeContainer: record('removeContainer') as ContainerEngine['removeContainer'],
    readLog: () => Promise.resolve([]),
    info: () => Promise.reject(new Error('unused')),
    inspectImage: () => Promise.resolve(null),
    pullImage: () => Promise.resolve(),
    followLog: () => Promise.resolve(),
    watchEvents: () => () => undefined,
    readContainerFile: () => Promise.resolve(null),
    execInContainer: record('execInContainer') as unknown as ContainerEngine['execInContainer'],
    isHostPortFree: () => Promise.resolve(true),
    urlForHostPort: (port) => Promise.resolve(`http://127.0.0.1:${port}`),
    dispose: () => Promise.resolve(),
  };
}

/** TEST DOUBLE of a host: answers every script with `answer(script)`. */
function hostDouble(answer: (script: string) => HostExecResult | Error): EngineHost & { scripts: string[] } {
  const scripts: string[] = [];
  return {
    kind: 'ssh',
    label: 'gpu-1',
    scripts,
    exec: (script) => {
      scripts.push(script);
      const result = answer(script);
      return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
    },
  };
}

const ok = (stdout = ''): HostExecResult => ({ code: 0, stdout, stderr: '' });
const nativeRun = (name: string) => `@@run 1|42|1767225600 0|\n@@spec ${JSON.stringify({ version: 1, name, labels: { k: 'v' }, port: 1, cmd: ['ajet-swarm'], activate: null, envNames: [], marker: 'ajet-swarm', createdAt: '' })}\n`;
const spec = (runtime?: 'native'): ContainerSpec => ({ name: 'n', image: 'i', cmd: ['ajet-swarm', 'start'], env: {}, labels: {}, network: { mode: 'host' }, init: true, gpus: { mode: 'none' }, shm: { mode: 'ipc-host' }, binds: [], ...(runtime ? { runtime } : {}) });

describe('withNativeProcesses', () => {
  it('sends native ids and native specs to the host, everything else to Docker', async () => {
    const host = hostDouble(() => ok(nativeRun('n')));
    const docker = dockerDouble(host);
    const engine = withNativeProcesses(docker);
    await engine.inspectContainer('abc');
    await engine.stopContainer('abc', 1);
    expect(await engine.createContainer(spec())).toBe('docker-id');
    expect(docker.calls).toEqual(['inspectContainer:abc', 'stopContainer:abc', 'createContainer:[object Object]']);
    expect(host.scripts).toHaveLength(0);
    expect(await engine.createContainer(spec('native'))).toBe('native-n');
    expect((await engine.inspectContainer('native-n')).state).toBe('running');
    await engine.stopContainer('native-n', 1);
    await engine.removeContainer('native-n');
    expect(docker.calls).toHaveLength(3);
    expect(host.scripts).toHaveLength(4);
    expect(host.scripts[3]).toContain('kill -KILL'); // remove is docker rm -f: forced
    expect(engine.summary).toBe(docker.summary);
  });

  it('runs a command "in" a native server on its host (argv quoted), and in a container through Docker', async () => {
    const host = hostDouble((script) => (script.startsWith("'nvidia-smi'") ? { code: 0, stdout: 'GPU 0: X (UUID: GPU-1)\n', stderr: '' } : ok(nativeRun('n'))));
    const docker = dockerDouble(host);
    const engine = withNativeProcesses(docker);
    await expect(engine.execInContainer('native-n', ['nvidia-smi', '-L'], { timeoutMs: 1000 })).resolves.toEqual({ code: 0, stdout: 'GPU 0: X (UUID: GPU-1)\n', stderr: '' });
    expect(host.scripts.at(-1)).toBe(`'nvidia-smi' '-L'`);
    await engine.execInContainer('abc', ['nvidia-smi', '-L'], { timeoutMs: 1000 });
    expect(docker.calls).toEqual(['execInContainer:abc']);
  });

  it('lists both kinds; Docker down still shows native servers, a failing host still shows containers, both down is Docker\'s error', async () => {
    const healthy = hostDouble(() => ok(nativeRun('n')));
    expect((await withNativeProcesses(dockerDouble(healthy)).listContainers({})).map((c) => c.id)).toEqual(['abc', 'native-n']);
    expect((await withNativeProcesses(dockerDouble(healthy, true)).listContainers({})).map((c) => c.id)).toEqual(['native-n']);
    const broken = hostDouble(() => new AppError('SSH_DISCONNECTED', 'gone'));
    expect((await withNativeProcesses(dockerDouble(broken)).listContainers({})).map((c) => c.id)).toEqual(['abc']);
    await expect(withNativeProcesses(dockerDouble(broken, true)).listContainers({})).rejects.toMatchObject({ code: 'ENGINE_UNREACHABLE' });
  });

  it('without a host shell: native create fails with a clear error, lists and Docker calls are unchanged', async () => {
    const engine = withNativeProcesses(dockerDouble(null, true));
    await expect(engine.createContainer(spec('native'))).rejects.toMatchObject({ code: 'CONTAINER_START_FAILED', message: expect.stringContaining('cannot run commands on the host of Test Docker') });
    await expect(engine.listContainers({})).rejects.toMatchObject({ code: 'ENGINE_UNREACHABLE' });
    await expect(engine.inspectContainer('native-x')).rejects.toMatchObject({ code: 'CONTAINER_NOT_FOUND' });
  });
});

describe('native log follow', () => {
  it('cursors are line numbers that sort as strings and parse back; others start from the top', () => {
    expect(lineCursor(42)).toBe('line:000000000042');
    expect(lineOfCursor(lineCursor(42))).toBe(42);
    expect(lineCursor(9) < lineCursor(10)).toBe(true);
    expect(lineOfCursor('2026-01-01T00:00:00.000000000Z')).toBeNull();
  });

  it('resumes after the cursor line, keeps a partial line until it is complete, and ends after the server died', async () => {
    // The file as the host sees it over three polls: a partial line completes, then the server ends.
    const file = ['one\ntwo\nthr', 'one\ntwo\nthree\nfour\nlast-without-newline', 'one\ntwo\nthree\nfour\nlast-without-newline'];
    let poll = 0;
    const offsets: number[] = [];
    const run = (script: string): Promise<HostExecResult> => {
      if (script.includes('head -n 1 ')) return Promise.resolve(ok('4')); // "one\n"
      const offset = Number(/tail -c \+(\d+)/.exec(script)![1]) - 1;
      offsets.push(offset);
      const text = file[Math.min(poll, 2)]!;
      const alive = poll < 2 ? 1 : 0;
      poll += 1;
      return Promise.resolve(ok(`@@follow ${alive} ${Buffer.byteLength(text)}\n${text.slice(offset)}`));
    };
    const got: EngineLogLine[] = [];
    await followNativeLog(run, 'n', { sinceTimestamp: lineCursor(1), signal: new AbortController().signal, onLines: (lines) => got.push(...lines) });
    expect(got.map((l) => `${l.timestamp} ${l.text}`)).toEqual([
      'line:000000000002 two',
      'line:000000000003 three',
      'line:000000000004 four',
      'line:000000000005 last-without-newline',
    ]);
    expect(offsets).toEqual([4, 8, 19]);
  }, 120_000);
});

describe('native events', () => {
  function rec(name: string, alive: boolean, exitCode: number | null): NativeRunRecord {
    return { spec: { version: 1, name, labels: { k: 'v' }, port: 1, cmd: [], activate: null, envNames: [], marker: 'ajet-swarm', createdAt: '' }, alive, pid: 1, startedAtMs: 1, startOffset: 0, exitCode, finishedAtMs: null };
  }

  it('emits start, die with the exit code the wrapper wrote (waiting a poll for it), and destroy', async () => {
    const states: NativeRunRecord[][] = [
      [rec('a', true, null)], // baseline: nothing
      [rec('a', true, null), rec('b', true, null)], // b starts
      [rec('a', false, null), rec('b', true, null)], // a gone, exit file not yet written
      [rec('a', false, 143), rec('b', true, null)], // a: die 143
      [rec('a', false, 143)], // b's folder removed while running: die, destroy
    ];
    let i = 0;
    const events: ContainerEvent[] = [];
    const done = new Promise<void>((resolve) => {
      const stop = watchNativeRuns(
        () => Promise.resolve(states[Math.min(i++, states.length - 1)]!),
        { k: 'v' },
        (e) => events.push(e),
        5,
      );
      const timer = setInterval(() => {
        if (i > states.length) {
          clearInterval(timer);
          stop();
          resolve();
        }
      }, 5);
    });
    await done;
    expect(events.map((e) => `${e.action} ${e.containerId} ${e.exitCode}`)).toEqual(['start native-b null', 'die native-a 143', 'die native-b null', 'destroy native-b null']);
  });
});
