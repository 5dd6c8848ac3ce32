import { afterEach, describe, expect, it, vi } from 'vitest';
import { containerStatusText } from '../../electron/services/engines/container-engine';
import type { SwarmContainer, SwarmStatus } from '../../electron/shared/schemas';
import { containerText, say } from '../../renderer/src/lib/durations';
import { setLocale } from '../../renderer/src/lib/i18n';
import { Clock } from '../../renderer/src/lib/state/clock.svelte';
import { sayLine, sayStatusBar, statusBarView, swarmRowView, type Notice } from '../../renderer/src/lib/swarm-status-view';
import { deriveServerState } from '../../electron/services/server-state/derive';
import { makeStatus } from './fake-api';

/** The row of a server as the backend would state it: the real reducer makes the state, the view words it. */
function rowView(container: SwarmContainer, status: SwarmStatus | undefined, now: number) {
  return swarmRowView(deriveServerState({ engineKind: 'local-docker', container, status, stopping: false }, undefined, now), now);
}

const NOW = Date.parse('2026-12-03T08:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

function container(overrides: Partial<SwarmContainer> = {}): SwarmContainer {
  return {
    id: 'c0ffee000001',
    name: 'agentswarm-swarm-10086-abc123',
    engineId: 'local',
    image: 'ghcr.io/modelscope/agentjet:main',
    state: 'running',
    statusText: 'Up Less than a second',
    port: 10086,
    networkMode: 'publish',
    createdAt: ago(60_000),
    startedAt: ago(3_000),
    finishedAt: null,
    exitCode: null,
    ...overrides,
  };
}

const status = (overrides: Partial<SwarmStatus> = {}) => makeStatus('c0ffee000001', { checkedAt: ago(0), ...overrides });
const VLLM = ["File \"/workspace/ajet/backbone/verl_utils.py\", line 9, in <module>", "ModuleNotFoundError: No module named 'vllm'"];

function engineOf(s: SwarmStatus | undefined, now = NOW) {
  const engine = rowView(container(), s, now).engine;
  if (!engine) throw new Error('expected an engine view for a running container');
  return engine;
}

function words(notice: Notice | null) {
  if (!notice) return null;
  return {
    tone: notice.tone,
    text: say(notice.text),
    label: notice.log ? say(notice.log.label) : null,
    lines: notice.log?.lines ?? [],
    pointer: notice.pointer ? say(notice.pointer) : null,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('swarmRowView: a boot that fails or sticks', () => {
  it('says the engine stopped while booting, with the explaining log lines, and no "step 0"', () => {
    const engine = engineOf(
      status({
        engineStatus: 'ENGINE.OFFLINE',
        // What the backend makes of upstream's failure hook (global_step 0): no step at all.
        globalStep: null,
        lastGlobalStep: null,
        engineProblem: { kind: 'boot-failed', since: ago(1000), log: { lines: VLLM, explains: true } },
      }),
    );
    expect(say(engine.connectionText)).toBe('online');
    expect(engine.progress).toEqual([]);
    expect(engine.hint).toBeNull(); // not "no training engine is running yet": the problem says more
    expect(words(engine.problem)).toEqual({
      tone: 'danger',
      text: 'The training engine stopped while booting (BOOTING, then OFFLINE).',
      label: 'From the container log:',
      lines: VLLM,
      pointer: null,
    });
  });

  it('never shows a step that was not reached, even if a status carried 0', () => {
    const engine = engineOf(status({ engineStatus: 'ENGINE.OFFLINE', globalStep: 0, lastGlobalStep: 0 }));
    expect(engine.progress).toEqual([]);
    const rolling = engineOf(status({ engineStatus: 'ENGINE.ROLLING', globalStep: 0 }));
    expect(rolling.progress).toEqual([]);
  });

  it('shows how long BOOTING has lasted, ticking with the clock', () => {
    const booting = status({ engineStatus: 'ENGINE.BOOTING', bootingSince: ago(75_000) });
    expect(sayLine(engineOf(booting).progress)).toBe('booting for 1 min 15 s');
    expect(sayLine(engineOf(booting, NOW + 2000).progress)).toBe('booting for 1 min 17 s');
    expect(say(engineOf(booting).hint ?? { key: 'containers.engineUnknown' })).toBe('The training engine is starting (loading the model).');
    setLocale('zh-CN');
    expect(sayLine(engineOf(booting).progress)).toBe('启动已持续 1 分 15 秒');
  });

  it('says a boot that failed but stays BOOTING failed, with its duration and the log lines', () => {
    const engine = engineOf(
      status({
        engineStatus: 'ENGINE.BOOTING',
        bootingSince: ago(12_000),
        engineProblem: { kind: 'boot-errors', since: ago(10_000), log: { lines: VLLM, explains: true } },
      }),
    );
    expect(words(engine.problem)).toMatchObject({
      tone: 'danger',
      text: 'The training engine failed to start: the server has said BOOTING for 12 s and will keep saying it until stop_engine.',
      lines: VLLM,
    });
    expect(engine.hint).toBeNull();
  });

  it('past the threshold, points at the log and shows its latest output', () => {
    const engine = engineOf(
      status({
        engineStatus: 'ENGINE.BOOTING',
        bootingSince: ago(6 * 60_000),
        engineProblem: { kind: 'boot-slow', since: ago(1000), log: { lines: ['Loading safetensors shard 3/8'], explains: false } },
      }),
    );
    expect(words(engine.problem)).toEqual({
      tone: 'warn',
      text: 'The training engine has been booting for 6 min 0 s, longer than expected. Check the container log.',
      label: 'Latest output in the container log:',
      lines: ['Loading safetensors shard 3/8'],
      pointer: 'The container log may say more: docker logs agentswarm-swarm-10086-abc123 (podman logs on Podman)',
    });
  });

  it('points at the log when an engine ended without lines that explain it (not the banner)', () => {
    const engine = engineOf(
      status({ engineStatus: 'ENGINE.OFFLINE', engineProblem: { kind: 'engine-ended', since: ago(0), log: { lines: ['Press Ctrl+C to stop.'], explains: false } } }),
    );
    expect(words(engine.problem)).toMatchObject({ label: null, lines: [], pointer: expect.stringContaining('docker logs') });
  });
});

describe('swarmRowView: progress and history', () => {
  it('shows step and detail of a running engine as current, spaced the same in every language', () => {
    const engine = engineOf(status({ engineStatus: 'ENGINE.ROLLING', globalStep: 7, engineStatusDetail: 'rolling 3/8' }));
    expect(`${say(engine.connectionText)} · ${sayLine(engine.progress)}`).toBe('online · step 7');
    expect(say(engine.detail ?? { key: 'containers.engineUnknown' })).toBe('rolling 3/8');
    setLocale('zh-CN');
    expect(`${say(engine.connectionText)} · ${sayLine(engine.progress)}`).toBe('在线 · 第 7 步');
  });

  it('once OFFLINE, shows the last step and detail as history, never as current', () => {
    const engine = engineOf(status({ engineStatus: 'ENGINE.OFFLINE', lastGlobalStep: 5, lastEngineStatusDetail: 'syncing weights' }));
    expect(sayLine(engine.progress)).toBe('last step 5');
    expect(say(engine.detail ?? { key: 'containers.engineUnknown' })).toBe('last detail: syncing weights');
    expect(say(engine.hint ?? { key: 'containers.engineUnknown' })).toBe(
      'The server is up; its training engine is stopped (the values shown are from its last run).',
    );
    expect(sayLine(engine.progress)).not.toMatch(/^step/);
  });

  it('shows the poll error only while the server does not answer', () => {
    expect(engineOf(status({ connection: 'unreachable', lastError: 'ECONNREFUSED' })).lastError).toBe('ECONNREFUSED');
    expect(engineOf(status({ connection: 'starting', lastError: 'ECONNREFUSED' })).lastError).toBeNull();
  });
});

describe('swarmRowView: a container that is not running', () => {
  it('has no engine status and no stale hint, only why it ended', () => {
    const stale = status({ connection: 'stopped', engineStatus: 'ENGINE.BOOTING', bootingSince: ago(5000), exit: { kind: 'stopped', code: 143, finishedAt: ago(1000), log: { lines: [], explains: false } } });
    const view = rowView(container({ state: 'exited', exitCode: 143, finishedAt: ago(3000) }), stale, NOW);
    expect(view.engine).toBeNull();
    expect(words(view.exit)).toEqual({ tone: 'warn', text: 'Stopped on request (exit code 143).', label: null, lines: [], pointer: null });
  });

  it('words exit 0 of a server that should run for ever as an unexpected stop, and hides the banner', () => {
    const exit = { kind: 'unexpected-stop' as const, code: 0, finishedAt: ago(1000), log: { lines: ['URL 1: http://127.0.0.1:10086', 'Press Ctrl+C to stop.'], explains: false } };
    const view = rowView(container({ state: 'exited', exitCode: 0 }), status({ connection: 'stopped', engineStatus: null, exit }), NOW);
    expect(words(view.exit)).toEqual({
      tone: 'danger',
      text: 'Stopped unexpectedly (exit code 0): the swarm server should run until it is stopped.',
      label: null,
      lines: [],
      pointer: 'The container log may say more: docker logs agentswarm-swarm-10086-abc123 (podman logs on Podman)',
    });
  });

  it('shows a crash with the lines that explain it', () => {
    const exit = { kind: 'crashed' as const, code: 3, finishedAt: ago(1000), log: { lines: ['RuntimeError: boom'], explains: true } };
    const view = rowView(container({ state: 'exited', exitCode: 3 }), status({ connection: 'stopped', engineStatus: null, exit }), NOW);
    expect(words(view.exit)).toMatchObject({ tone: 'danger', text: 'Crashed (exit code 3).', label: 'From the container log:', lines: ['RuntimeError: boom'] });
  });

  it('shows the last lines of a crash report when no line explains the exit', () => {
    const tail = Array.from({ length: 50 }, (_, i) => `step ${i}`);
    const exit = { kind: 'killed' as const, code: 137, finishedAt: ago(1000), log: { lines: ['step 49'], explains: false }, tail };
    const view = rowView(container({ state: 'exited', exitCode: 137 }), status({ connection: 'stopped', engineStatus: null, exit }), NOW);
    expect(words(view.exit)).toMatchObject({ tone: 'danger', label: 'Latest output in the container log:', lines: tail, pointer: null });
  });

  it('before the monitor said why, shows the exit code Docker reports', () => {
    const view = rowView(container({ state: 'exited', exitCode: 137 }), undefined, NOW);
    expect(view.engine).toBeNull();
    expect(say(view.exit?.text ?? { key: 'containers.engineUnknown' })).toBe('Exited (exit code 137).');
  });
});

describe('container status text', () => {
  it('advances with the clock instead of freezing at the time it was read', () => {
    const c = container({ startedAt: ago(3000), statusText: 'Up Less than a second' });
    expect(say(rowView(c, undefined, NOW).containerText)).toBe('Up 3 seconds');
    expect(say(rowView(c, undefined, NOW + 60_000).containerText)).toBe('Up About a minute');
    const exited = container({ state: 'exited', exitCode: 143, finishedAt: ago(3000) });
    expect(say(rowView(exited, undefined, NOW).containerText)).toBe('Exited (143) 3 seconds ago');
    setLocale('zh-CN');
    expect(say(rowView(exited, undefined, NOW).containerText)).toBe('3 秒前退出（退出码 143）');
  });

  it('uses the same English words as the backend (start, stop and list) for every state and duration', () => {
    const durations = [0, 999, 1000, 2000, 59_999, 60_000, 119_000, 3_599_000, 3_600_000, 5_400_000, 47 * 3_600_000, 50 * 3_600_000, 20 * 86_400_000, 90 * 86_400_000, 800 * 86_400_000];
    const states: SwarmContainer['state'][] = ['running', 'paused', 'restarting', 'exited', 'created', 'removing', 'dead', 'unknown'];
    for (const state of states) {
      for (const ms of durations) {
        for (const stamps of [{ startedAt: ago(ms), finishedAt: ago(ms) }, { startedAt: null, finishedAt: null }]) {
          const c = { state, exitCode: state === 'running' ? null : 137, ...stamps };
          expect(say(containerText(c, NOW)), `${state} ${ms}`).toBe(containerStatusText(c, NOW));
        }
      }
    }
  });
});

describe('statusBarView', () => {
  /** A running server's state as the backend's reducer makes it from a status. */
  const stateOf = (st: SwarmStatus) => deriveServerState({ engineKind: 'local-docker', container: container({ id: st.containerId }), status: st, stopping: false }, undefined, NOW);

  it('tells boot problems too, in the words of the badges', () => {
    const failed = stateOf(status({ engineStatus: 'ENGINE.OFFLINE', engineProblem: { kind: 'boot-failed', since: ago(0), log: { lines: VLLM, explains: true } } }));
    const view = statusBarView([failed], false, NOW);
    expect(view.tone).toBe('problem');
    expect(sayStatusBar(view)).toBe('AgentJet swarm server: Engine failed to boot · 127.0.0.1:10086 · 1 server: engine failed to boot');
    const stuck = stateOf(status({ containerId: 'c0ffee000002', engineStatus: 'ENGINE.BOOTING', engineProblem: { kind: 'boot-errors', since: ago(0), log: { lines: VLLM, explains: true } } }));
    const slow = stateOf(status({ containerId: 'c0ffee000003', engineStatus: 'ENGINE.BOOTING', engineProblem: { kind: 'boot-slow', since: ago(0), log: { lines: [], explains: false } } }));
    expect(sayStatusBar(statusBarView([failed, stuck, slow], false, NOW))).toMatch(/ \(\+2 more\) · 2 servers: engine failed to boot · 1 server: engine slow to boot$/);
    setLocale('zh-CN');
    expect(sayStatusBar(view)).toBe('AgentJet swarm 服务器：引擎启动失败 · 127.0.0.1:10086 · 1 个服务器：引擎启动失败');
  });

  it('says nothing more when all is well, and leaves ended servers out', () => {
    const view = statusBarView([stateOf(status({ engineStatus: 'ENGINE.ROLLING', globalStep: 2 }))], false, NOW);
    expect(sayStatusBar(view)).toBe('AgentJet swarm server: Training · 127.0.0.1:10086');
    expect(view.tone).toBe('online');
    const crashed = deriveServerState(
      { engineKind: 'local-docker', container: container({ state: 'exited', exitCode: 1 }), status: status({ connection: 'stopped', engineStatus: null }), stopping: false },
      undefined,
      NOW,
    );
    expect(sayStatusBar(statusBarView([crashed], false, NOW))).toBe('AgentJet swarm server: none watched');
    expect(sayStatusBar(statusBarView([], true, NOW))).toBe('AgentJet swarm server: unknown (the app backend did not answer)');
  });
});

describe('Clock', () => {
  it('ticks every second while used, and stops when the last user lets go', () => {
    vi.useFakeTimers({ now: NOW });
    const clock = new Clock();
    const release = clock.use();
    const releaseToo = clock.use();
    vi.advanceTimersByTime(3000);
    expect(clock.now).toBe(NOW + 3000);
    release();
    release(); // twice is harmless
    vi.advanceTimersByTime(1000);
    expect(clock.now).toBe(NOW + 4000);
    releaseToo();
    vi.advanceTimersByTime(5000);
    expect(clock.now).toBe(NOW + 4000);
    expect(vi.getTimerCount()).toBe(0);
  });
});
