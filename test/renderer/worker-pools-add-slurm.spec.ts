import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import WorkerPools from '../../renderer/src/pages/jobs/workers/WorkerPools.svelte';
import type { PoolViewData, WorkerPlacementData, WorkerViewData } from '../../electron/shared/schemas-workers';
import { FakeApi } from './fake-api';

// "Add workers" for a pool with Slurm workers (issue 34), against the fake API (a TEST DOUBLE of the backend's pool
// service): the added array's script and the new split are shown first, then submitted as shown.
let api: FakeApi;

const slurm: WorkerPlacementData = { kind: 'slurm', serverId: 'hpc', python: 'python3', partition: 'cpu', timeLimit: null, cpusPerTask: null, reach: { kind: 'cluster' } };

function worker(index: number, overrides: Partial<WorkerViewData> = {}): WorkerViewData {
  return {
    index, placement: slurm, where: 'hpc (Slurm)', state: 'running', exitCode: null, signal: null, pid: null, jobId: null,
    batchShare: 2, parallelEpisodes: 4, clientUuid: `uuid-${index}`, episodes: 0, failedEpisodes: 0, episodesPerMinute: null, llmCalls: null, lastError: null,
    startedAt: '2026-12-05T00:00:00Z', endedAt: null, logLines: 0, note: null, notes: [], ...overrides,
  };
}

function pool(workers: WorkerViewData[], overrides: Partial<PoolViewData> = {}): PoolViewData {
  return {
    poolId: 'pool-s', label: 'exp_s', createdAt: '2026-12-05T00:00:00Z', state: 'running',
    swarm: { engineId: 'slurm-hpc', containerId: '77', profileId: null }, swarmUrl: null,
    split: { batchSize: 4, grpoN: 2, workers: workers.length, shares: workers.map((w) => ({ index: w.index, batchShare: 2, parallelEpisodes: 4 })), totalParallelEpisodes: 8 },
    workers, episodesPerMinute: 0, episodes: 0, ...overrides,
  };
}

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
  setLocale('en');
});

describe('adding Slurm workers to a pool', () => {
  it('shows the added array and the new split first, then adds the workers with what was shown', async () => {
    api.answer('workers:list', () => [pool([worker(0), worker(1)]), pool([worker(0, { placement: { kind: 'local' }, where: 'this computer' })], { poolId: 'pool-l' })]);
    const split = { batchSize: 4, grpoN: 2, workers: 4, shares: [0, 1, 2, 3].map((index) => ({ index, batchShare: 1, parallelEpisodes: 2 })), totalParallelEpisodes: 8 };
    api.answer('workers:slurm-add-preview', () => ({
      poolId: 'pool-s',
      arrays: [{ host: 'hpc login', script: '#!/bin/bash -l\n#SBATCH --array=0-3\n', command: 'mkdir -p ~/.agentswarm/workers/pool-s-slurm-0-ab12/out && cd ~/.agentswarm/workers/pool-s-slurm-0-ab12 && sbatch --parsable job.sh', tasks: 4 }],
      split,
      shown: { tag: 'ab12', revision: '0123456789abcdef0123456789abcdef' },
    }));
    api.answer('workers:add', () => pool([0, 1, 2, 3].map((i) => worker(i))));
    render(WorkerPools, { props: { api } });
    // Only the pool with Slurm workers offers them.
    await waitFor(() => expect(screen.getAllByTestId('worker-pool')).toHaveLength(2));
    expect(screen.getAllByTestId('workers-add-slurm')).toHaveLength(1);
    await fireEvent.input(screen.getByTestId('workers-add-slurm-count'), { target: { value: '2' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Show the Slurm script to add 2' }));
    const shown = await screen.findByTestId('workers-add-slurm-preview');
    expect(shown.textContent).toContain('#SBATCH --array=0-3');
    expect(shown.textContent).toContain('sbatch --parsable job.sh');
    expect(screen.getByTestId('workers-add-slurm-split').textContent).toContain('4 workers: 1 / 1 / 1 / 1 tasks each');
    // The two running ones restart in the array with their smaller share.
    expect(shown.textContent).toContain('2 running Slurm worker(s) restart in this array');
    expect(api.requestsOn('workers:slurm-add-preview')).toEqual([{ poolId: 'pool-s', placements: [slurm, slurm] }]);
    expect(api.requestsOn('workers:add')).toEqual([]);
    await fireEvent.click(screen.getByRole('button', { name: 'Submit and add 2 workers' }));
    await waitFor(() => expect(api.requestsOn('workers:add')).toHaveLength(1));
    expect(api.requestsOn('workers:add')[0]).toEqual({ poolId: 'pool-s', placements: [slurm, slurm], shown: { tag: 'ab12', revision: '0123456789abcdef0123456789abcdef' } });
    await waitFor(() => expect(screen.getAllByTestId('worker-row')).toHaveLength(5));
  });

  it('shows why the backend refused the preview under the pool', async () => {
    api.answer('workers:list', () => [pool([worker(0)])]);
    api.failNext('workers:slurm-add-preview', { code: 'VALIDATION_FAILED', message: 'The batch has 4 tasks: it cannot be split over 5 workers.' });
    render(WorkerPools, { props: { api } });
    await fireEvent.click(await screen.findByRole('button', { name: 'Show the Slurm script to add 1' }));
    await waitFor(() => expect(screen.getByTestId('error-banner').dataset.errorCode).toBe('VALIDATION_FAILED'));
    expect(screen.queryByTestId('workers-add-slurm-preview')).toBeNull();
  });
});
