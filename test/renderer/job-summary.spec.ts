import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import JobSummary from '../../renderer/src/components/JobSummary.svelte';
import { setLocale } from '../../renderer/src/lib/i18n';
import { makeJobView } from './fakes/wizard';

// JobSummary renders a job view as the backend sends it (TEST DOUBLE data from makeJobView).
const ended = { startedAt: '2026-12-04T10:00:00.000Z', endedAt: '2026-12-04T10:01:05.000Z', durationMs: 65_000, pid: null };

describe('JobSummary', () => {
  it('shows a successful episode: state, exit code, duration, reward, and the raw result collapsed', () => {
    render(JobSummary, {
      props: {
        job: makeJobView({
          id: 'ep-1',
          label: 'Test episode · item 3',
          state: 'succeeded',
          exitCode: 0,
          ...ended,
          result: { reward: 0.7500001, count: null, items: [], raw: { reward: 0.7500001, turns: 4 } },
        }),
      },
    });
    const summary = screen.getByRole('region', { name: 'Summary of Test episode · item 3' });
    expect(within(summary).getByTestId('job-state').textContent).toContain('Succeeded');
    expect(within(summary).getByTestId('job-exit').textContent).toBe('exit code 0');
    expect(within(summary).getByTestId('job-duration').textContent).toBe('1 min 5 s');
    expect(within(summary).getByTestId('job-reward').textContent).toBe('0.75');
    expect(within(summary).queryByTestId('job-failure')).toBeNull();
    const raw = within(summary).getByTestId('job-result-json') as HTMLDetailsElement;
    expect(raw.open).toBe(false);
    expect(within(raw).getByText('The result as JSON')).toBeTruthy();
    expect(JSON.parse(raw.querySelector('pre')!.textContent!)).toEqual({ reward: 0.7500001, turns: 4 });
  });

  it('shows a dataset test by its item count and first items, without a reward', () => {
    render(JobSummary, {
      props: {
        job: makeJobView({
          kind: 'dataset-test',
          state: 'succeeded',
          exitCode: 0,
          ...ended,
          result: { reward: null, count: 120, items: [{ id: 'a' }, { id: 'b' }], raw: { count: 120 } },
        }),
      },
    });
    expect(screen.getByTestId('job-count').textContent).toBe('120');
    expect(screen.queryByTestId('job-reward')).toBeNull();
    const items = screen.getByText('The first 2 items').closest('details')!;
    expect(items.querySelector('pre')!.textContent).toBe('{"id":"a"}\n{"id":"b"}');
  });

  it('shows a crash with the traceback\'s exception, file and line, and the whole traceback collapsed', async () => {
    const text = 'Traceback (most recent call last):\n  File "/home/me/agent/agent_run.py", line 42, in run\n    x = items[3]\nIndexError: list index out of range';
    render(JobSummary, {
      props: {
        job: makeJobView({
          state: 'failed',
          exitCode: 1,
          ...ended,
          failure: {
            code: 'JOB_CRASHED',
            message: 'agent_run.py raised IndexError at line 42.',
            traceback: { file: '/home/me/agent/agent_run.py', line: 42, exception: 'IndexError: list index out of range', text },
          },
        }),
      },
    });
    expect(screen.getByTestId('job-state').textContent).toContain('Failed');
    expect(screen.getByTestId('job-exit').textContent).toBe('exit code 1');
    const failure = screen.getByTestId('job-failure');
    expect(within(failure).getByText('The script stopped with an error.')).toBeTruthy();
    expect(within(failure).getByText('agent_run.py raised IndexError at line 42.').getAttribute('lang')).toBe('en');
    const where = within(failure).getByTestId('job-traceback');
    expect(where.textContent).toContain('IndexError: list index out of range');
    expect(where.textContent).toContain('at /home/me/agent/agent_run.py, line 42');
    const details = within(failure).getByText('The whole traceback').closest('details')!;
    expect(details.open).toBe(false);
    await fireEvent.click(within(details).getByText('The whole traceback'));
    expect(details.querySelector('pre')!.textContent).toBe(text);
  });

  it("words a failure from its data in the user's language, not the backend's English message", () => {
    setLocale('zh-CN');
    try {
      render(JobSummary, {
        props: {
          job: makeJobView({
            state: 'failed',
            exitCode: 1,
            ...ended,
            failure: {
              code: 'JOB_CRASHED',
              message: "The script exited with code 1: KeyError: 'id' at /p/crash.py, line 2. Fix it there, then run again.",
              params: { reason: 'crashed-traceback', exitCode: 1, exception: "KeyError: 'id'", file: '/p/crash.py', line: 2 },
              traceback: { file: '/p/crash.py', line: 2, exception: "KeyError: 'id'", text: 'Traceback' },
            },
          }),
        },
      });
      const failure = screen.getByTestId('job-failure');
      expect(within(failure).getByTestId('job-failure-detail').textContent).toBe("脚本以退出码 1 结束：KeyError: 'id'，位于 /p/crash.py 第 2 行。请在那里修复，然后重新运行。");
      expect(failure.textContent).not.toContain('Fix it there');
    } finally {
      setLocale('en');
    }
  });

  it('says what to print when the result line is missing', () => {
    render(JobSummary, {
      props: {
        job: makeJobView({
          state: 'failed',
          exitCode: 0,
          ...ended,
          failure: { code: 'JOB_RESULT_MISSING', message: 'run_episode_once.py ended without printing AGENTSWARM_RESULT.', traceback: null },
        }),
      },
    });
    const failure = screen.getByTestId('job-failure');
    expect(failure.dataset.errorCode).toBe('JOB_RESULT_MISSING');
    expect(within(failure).getByText('The script ended without its result line.')).toBeTruthy();
    expect(failure.textContent).toContain('AGENTSWARM_RESULT {"reward": …}');
    expect(within(failure).queryByTestId('job-traceback')).toBeNull();
  });

  it('shows a run that was killed by a signal, and one that still runs (duration so far, result to come)', () => {
    const { unmount } = render(JobSummary, { props: { job: makeJobView({ state: 'cancelled', signal: 'SIGKILL', ...ended }) } });
    expect(screen.getByTestId('job-exit').textContent).toBe('signal SIGKILL');
    expect(screen.getByTestId('job-state').textContent).toContain('Cancelled');
    unmount();
    render(JobSummary, { props: { job: makeJobView({ state: 'running', startedAt: new Date(Date.now() - 3000).toISOString() }) } });
    expect(screen.getByTestId('job-state').textContent).toContain('Running');
    expect(screen.getByTestId('job-duration').textContent).toMatch(/^\d+ s so far$/);
    expect(screen.queryByTestId('job-exit')).toBeNull();
    expect(screen.getByText('The result comes when the script ends.')).toBeTruthy();
  });

  it('lists how it ran: python, folder, script and arguments, AJET_SWARM_URL, and the log file with Copy', async () => {
    const writes: string[] = [];
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void writes.push(text) } });
    render(JobSummary, {
      props: {
        job: makeJobView({
          id: 'dbg-1',
          kind: 'debug-episode',
          script: 'agent_roll_one_episode_debug.py',
          args: ['--item', 'task 3'],
          swarmUrl: 'http://127.0.0.1:10086',
          state: 'succeeded',
          ...ended,
        }),
      },
    });
    const how = screen.getByTestId('job-how');
    expect(within(how).getByText('/home/me/agent/.venv/bin/python')).toBeTruthy();
    expect(within(how).getByText('/home/me/agent')).toBeTruthy();
    expect(within(how).getByTestId('job-command').textContent).toBe('agent_roll_one_episode_debug.py --item "task 3"');
    expect(within(how).getByTestId('job-swarm-url').textContent).toBe('http://127.0.0.1:10086');
    expect(within(how).getByRole('textbox', { name: 'Log file' })).toHaveProperty('value', '/data/jobs/dbg-1.log');
    await fireEvent.click(within(how).getByRole('button', { name: 'Copy the path' }));
    expect(writes).toEqual(['/data/jobs/dbg-1.log']);
    expect(await within(how).findByText('Copied.')).toBeTruthy();
    // No swarm: said in words.
    expect(screen.queryByText('not set (no swarm server)')).toBeNull();
  });

  it('speaks Chinese', () => {
    setLocale('zh-CN');
    render(JobSummary, { props: { job: makeJobView({ state: 'succeeded', exitCode: 0, ...ended, result: { reward: 1, count: null, items: [], raw: { reward: 1 } } }) } });
    expect(screen.getByTestId('job-state').textContent).toContain('成功');
    expect(screen.getByTestId('job-exit').textContent).toBe('退出码 0');
    expect(screen.getByText('奖励')).toBeTruthy();
    expect(screen.getByText('未设置（没有 swarm 服务器）')).toBeTruthy();
  });
});
