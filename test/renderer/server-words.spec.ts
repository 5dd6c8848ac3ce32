import { afterEach, describe, expect, it } from 'vitest';
import { deriveServerState } from '../../electron/services/server-state/derive';
import type { SwarmContainer, SwarmExit } from '../../electron/shared/schemas';
import { say } from '../../renderer/src/lib/durations';
import { setLocale } from '../../renderer/src/lib/i18n';
import { phaseView } from '../../renderer/src/lib/server-words';
import { swarmRowView } from '../../renderer/src/lib/swarm-status-view';
import { notificationWords } from '../../renderer/src/pages/servers/training/browser-notifications';
import { makeStatus } from './fake-api';

const NOW = Date.parse('2026-12-05T10:00:00Z');
const container = (over: Partial<SwarmContainer> = {}): SwarmContainer => ({
  id: 'c1', name: 'agentswarm-a', engineId: 'local', image: 'i', state: 'exited', statusText: '', port: 10086, networkMode: 'publish',
  createdAt: '2026-12-05T09:00:00Z', startedAt: '2026-12-05T09:00:01Z', finishedAt: '2026-12-05T09:59:00Z', exitCode: 1, ...over,
});
const endOf = (kind: SwarmExit['kind'], code: number | null): SwarmExit => ({ kind, code, finishedAt: '2026-12-05T09:59:00Z', log: { lines: [], explains: false } });
const ended = (exit: SwarmExit) =>
  deriveServerState({ engineKind: 'slurm', container: container(), status: makeStatus('c1', { connection: 'stopped', engineStatus: null, exit }), stopping: false }, undefined, NOW);

afterEach(() => setLocale('en'));

describe('one wording of every end and phase', () => {
  // Every end the model knows, in both languages: the badge of a row, a card, the jobs panel and the wizard.
  const ends: [SwarmExit['kind'], number | null, string, string, string][] = [
    ['stopped', 143, 'Stopped', '已停止', 'muted'],
    ['stopped-outside', 143, 'Stopped outside the app', '在应用之外被停止', 'warn'],
    ['crashed', 1, 'Crashed (exit code 1)', '已崩溃（退出码 1）', 'danger'],
    ['killed', 137, 'Killed (exit code 137)', '已被强制终止（退出码 137）', 'danger'],
    ['out-of-memory', 137, 'Out of memory', '内存不足', 'danger'],
    ['unexpected-stop', 0, 'Stopped unexpectedly (exit code 0)', '意外停止（退出码 0）', 'danger'],
    ['time-limit', 0, 'Time limit reached', '已到达时间限制', 'warn'],
    ['node-failure', null, 'Node failed', '节点故障', 'danger'],
    ['preempted', null, 'Preempted', '已被抢占', 'warn'],
    ['cancelled', 0, 'Cancelled in the scheduler', '已在调度器中取消', 'warn'],
  ];
  it.each(ends)('%s', (kind, code, en, zh, tone) => {
    const view = phaseView(ended(endOf(kind, code)), NOW);
    expect(view).toMatchObject({ phase: 'ended', kind, tone, duration: null });
    expect(say(view.text)).toBe(en);
    setLocale('zh-CN');
    expect(say(phaseView(ended(endOf(kind, code)), NOW).text)).toBe(zh);
  });

  it('words a queued job with its reason and place, and how long it has waited', () => {
    const queued = deriveServerState(
      { engineKind: 'slurm', container: container({ state: 'created', startedAt: null, finishedAt: null, exitCode: null, queue: { reason: 'Resources', position: 2 } }), status: undefined, stopping: false },
      undefined,
      NOW,
    );
    const view = phaseView(queued, NOW);
    // The reason in the words the jobs panel uses for it; a limit's family keeps Slurm's code beside it.
    expect(say(view.text)).toBe('Queued: waiting for free GPUs/CPUs (position 2)');
    expect(say(view.duration!)).toBe('for 1 h 0 min');
    const limited = { ...queued, queue: { reason: 'QOSMaxGRESPerUser', position: null } };
    expect(say(phaseView(limited, NOW).text)).toBe('Queued: a QoS limit is reached (too many GPUs or jobs of yours already run) (QOSMaxGRESPerUser)');
    setLocale('zh-CN');
    expect(say(view.text)).toMatch(/^排队中：.+（第 2 位）$/);
  });

  it('words an end notification in the page language from its data', () => {
    const notification = {
      kind: 'server-ended' as const, title: 'Slurm job 123 ended', body: 'x', engineId: 'slurm-a', containerId: '123',
      end: { kind: 'node-failure' as const, code: null, name: 'agentswarm-a', line: null, engineKind: 'slurm' as const },
    };
    expect(notificationWords(notification)).toEqual({ title: 'Slurm job 123 ended', body: 'agentswarm-a: Node failed' });
    setLocale('zh-CN');
    expect(notificationWords({ ...notification, end: { ...notification.end, kind: 'crashed', code: 1, line: 'ImportError: verl', engineKind: 'local-docker' } })).toEqual({
      title: 'Swarm 服务器已结束：agentswarm-a',
      body: 'agentswarm-a：已崩溃（退出码 1）。ImportError: verl',
    });
  });

  it('says how old a silent server\'s last answer is and through which link, in both languages', () => {
    const running = container({ state: 'running', finishedAt: null, exitCode: null });
    const silent = makeStatus('c1', { connection: 'unreachable', lastError: 'ssh-tunnel link: timed out', confirmedAt: new Date(NOW - 12_000).toISOString(), via: 'ssh-tunnel' });
    const state = deriveServerState({ engineKind: 'ssh-docker', container: running, status: silent, stopping: false }, undefined, NOW);
    expect(say(phaseView(state, NOW).text)).toBe('Unreachable');
    expect(say(swarmRowView(state, NOW).engine!.stale!)).toBe('Last answer 12 seconds ago, through the SSH tunnel.');
    setLocale('zh-CN');
    expect(say(swarmRowView(state, NOW).engine!.stale!)).toBe('最后一次应答在 12 秒前，经由SSH 隧道。');
    // Answering again: nothing stale to say.
    const back = deriveServerState({ engineKind: 'ssh-docker', container: running, status: makeStatus('c1', { confirmedAt: new Date(NOW).toISOString(), via: 'ssh-tunnel' }), stopping: false }, state, NOW);
    expect(swarmRowView(back, NOW).engine!.stale).toBeNull();
  });
});
