import { render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import WorkerPools from '../../renderer/src/pages/jobs/workers/WorkerPools.svelte';
import type { PoolViewData, WorkerViewData } from '../../electron/shared/schemas-workers';
import { FakeApi } from './fake-api';

// Issue 32: a worker's notes come as data (WorkerView.notes, the shapes of
// test/unit/services/workers/worker-notes.spec.ts) and are worded here, so a Chinese user reads them in
// Chinese; where a local worker runs is named in the page's language; the worker's own error line stays
// as it wrote it, in <code>.

let api: FakeApi;

function worker(index: number, overrides: Partial<WorkerViewData> = {}): WorkerViewData {
  return {
    index, placement: { kind: 'local' }, where: 'this computer', state: 'running', exitCode: null, signal: null, pid: 100 + index, jobId: null,
    batchShare: 2, parallelEpisodes: 4, clientUuid: `uuid-${index}`, episodes: 10, failedEpisodes: 0, episodesPerMinute: 6, llmCalls: 12, lastError: null,
    startedAt: '2026-12-05T00:00:00Z', endedAt: null, logLines: 0, note: null, notes: [], ...overrides,
  };
}

function pool(workers: WorkerViewData[]): PoolViewData {
  return {
    poolId: 'pool-1', label: 'exp_1', createdAt: '2026-12-05T00:00:00Z', state: 'running',
    swarm: { engineId: 'local', containerId: '0123456789ab', profileId: null }, swarmUrl: 'http://127.0.0.1:10086',
    split: { batchSize: 4, grpoN: 2, workers: 2, shares: [{ index: 0, batchShare: 2, parallelEpisodes: 4 }, { index: 1, batchShare: 2, parallelEpisodes: 4 }], totalParallelEpisodes: 8 },
    workers, episodesPerMinute: 6, episodes: 20,
  };
}

const WORKERS = (): WorkerViewData[] => [
  worker(0, { note: 'started again: the app was closed while it ran', notes: [{ key: 'resumed', params: {} }] }),
  worker(1, {
    placement: { kind: 'ssh', serverId: 'cpu-box', python: 'python3', reach: { kind: 'tunnel' } },
    where: 'cpu-box',
    state: 'failed',
    exitCode: 1,
    lastError: 'RuntimeError: boom',
    note: 'reaches the swarm server through a reverse tunnel …; project ab12: 3 file(s) sent, 6 reused',
    notes: [
      { key: 'reverseTunnel', params: {} },
      { key: 'projectSent', params: { hash: 'ab12', sent: 3, reused: 6 } },
    ],
  }),
];

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});
afterEach(() => setLocale('en'));

describe('worker notes worded from data', () => {
  it('in Chinese: the notes and this computer, no English note; the worker’s error line in <code>', async () => {
    setLocale('zh-CN');
    api.answer('workers:list', () => [pool(WORKERS())]);
    render(WorkerPools, { props: { api } });
    await waitFor(() => expect(screen.getAllByTestId('worker-row')).toHaveLength(2));
    const [first, second] = screen.getAllByTestId('worker-row');
    expect(within(first!).getByTestId('worker-notes').textContent).toBe('已重新启动：它运行时应用被关闭了');
    expect(first!.textContent).toContain('本机');
    expect(first!.textContent).not.toContain('this computer');
    expect(within(second!).getByTestId('worker-notes').textContent).toBe(
      '通过到本机的反向隧道连接 swarm 服务器：这个 worker 的每次 LLM 调用都经过本机及其到服务器的链路（更慢；本应用或其网络断开时，worker 就不再提供数据）；项目 ab12：发送了 3 个文件，复用了 6 个',
    );
    expect(within(second!).getByText('RuntimeError: boom').tagName).toBe('CODE');
    // Marked English: only the worker's own error line.
    expect([...screen.getByTestId('worker-pool').querySelectorAll('[lang="en"]')].map((el) => el.textContent)).toEqual(['RuntimeError: boom']);
  });

  it('in English the same notes; a pool saved before notes were data shows its English note, marked so', async () => {
    setLocale('en');
    api.answer('workers:list', () => [pool([worker(0, { note: 'restarted', notes: [] }), ...WORKERS().slice(1)])]);
    render(WorkerPools, { props: { api } });
    await waitFor(() => expect(screen.getAllByTestId('worker-row')).toHaveLength(2));
    const [first, second] = screen.getAllByTestId('worker-row');
    expect(first!.querySelector('small[lang="en"]')?.textContent).toBe('restarted');
    expect(first!.textContent).toContain('this computer');
    expect(within(second!).getByTestId('worker-notes').textContent).toBe(
      'reaches the swarm server through a reverse tunnel to this computer: every LLM call of this worker crosses this computer and its link to the server (slower; the worker stops feeding when this app or its network goes away); project ab12: 3 file(s) sent, 6 reused',
    );
  });
});
