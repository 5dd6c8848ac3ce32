import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import ClientVenv from '../../renderer/src/pages/jobs/workers/ClientVenv.svelte';
import TrainWorkers from '../../renderer/src/pages/jobs/workers/TrainWorkers.svelte';
import WorkerPools from '../../renderer/src/pages/jobs/workers/WorkerPools.svelte';
import { TrainingForm } from '../../electron/shared/schemas-wizard';
import { readyDryRun, wizardAtSwarm } from './fakes/wizard-run';
import type { PoolViewData, WorkerViewData } from '../../electron/shared/schemas-workers';
import { FakeApi } from './fake-api';

// The worker pool table (issue 34) against the fake API (a TEST DOUBLE of the backend's pool service).
let api: FakeApi;

function worker(index: number, overrides: Partial<WorkerViewData> = {}): WorkerViewData {
  return {
    index, placement: { kind: 'local' }, where: 'this computer', state: 'running', exitCode: null, signal: null, pid: 100 + index, jobId: null,
    batchShare: 2, parallelEpisodes: 4, clientUuid: `uuid-${index}`, episodes: 10 * (index + 1), failedEpisodes: 0, episodesPerMinute: 6, llmCalls: 12, lastError: null,
    startedAt: '2026-12-05T00:00:00Z', endedAt: null, logLines: 0, note: null, notes: [], ...overrides,
  };
}

function pool(overrides: Partial<PoolViewData> = {}): PoolViewData {
  return {
    poolId: 'pool-1', label: 'exp_1', createdAt: '2026-12-05T00:00:00Z', state: 'running',
    swarm: { engineId: 'local', containerId: '0123456789ab', profileId: null }, swarmUrl: 'http://127.0.0.1:10086',
    split: { batchSize: 4, grpoN: 2, workers: 2, shares: [{ index: 0, batchShare: 2, parallelEpisodes: 4 }, { index: 1, batchShare: 2, parallelEpisodes: 4 }], totalParallelEpisodes: 8 },
    workers: [worker(0), worker(1, { placement: { kind: 'ssh', serverId: 'cpu-box', python: 'python3', reach: { kind: 'tunnel' } }, where: 'cpu-box', state: 'failed', exitCode: 1, episodesPerMinute: null, lastError: 'RuntimeError: boom' })],
    episodesPerMinute: 6, episodes: 30, ...overrides,
  };
}

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
  setLocale('en');
});

describe('worker pools', () => {
  it('shows each worker with state, client uuid, share, episodes, rate and last error, the split and the total rate; the actions reach the backend', async () => {
    api.answer('workers:list', () => [pool()]);
    api.answer('workers:restart-failed', () => pool({ workers: [worker(0), worker(1, { where: 'cpu-box' })] }));
    api.answer('workers:stop-all', () => pool({ state: 'ended', workers: [worker(0, { state: 'stopped' }), worker(1, { state: 'stopped' })] }));
    render(WorkerPools, { props: { api } });
    await waitFor(() => expect(screen.getAllByTestId('worker-row')).toHaveLength(2));
    const [first, second] = screen.getAllByTestId('worker-row');
    expect(first!.textContent).toContain('uuid-0');
    expect(first!.textContent).toContain('2 tasks · 4 at once');
    expect(within(second!).getByText(/failed/)).toBeTruthy();
    expect(second!.textContent).toContain('RuntimeError: boom');
    expect(second!.textContent).toContain('cpu-box');
    expect(within(first!).getByTestId('worker-llm-calls').textContent).toBe('12');
    expect(screen.getByTestId('worker-pool-split').textContent).toContain('batch 4 × group 2 = 8 episodes at once, as 2 + 2');
    expect(screen.getByTestId('worker-pool-rate').textContent).toContain('6 episodes/min in total · 30 episodes');

    await fireEvent.click(screen.getByRole('button', { name: 'Restart failed' }));
    await waitFor(() => expect(screen.getAllByTestId('worker-row').map((r) => r.dataset.state)).toEqual(['running', 'running']));
    expect(api.requestsOn('workers:restart-failed')).toEqual([{ poolId: 'pool-1' }]);
    await fireEvent.click(screen.getByRole('button', { name: 'Stop all' }));
    await waitFor(() => expect(screen.getAllByTestId('worker-row').map((r) => r.dataset.state)).toEqual(['stopped', 'stopped']));

    // A pushed snapshot replaces the pool (a worker died while the page showed it).
    api.emit('workers:changed', pool({ workers: [worker(0, { state: 'failed', lastError: 'killed' }), worker(1)] }));
    await waitFor(() => expect(screen.getAllByTestId('worker-row')[0]!.dataset.state).toBe('failed'));
  });

  it('says so when there is no pool', async () => {
    render(WorkerPools, { props: { api } });
    expect(await screen.findByText(/No worker pools yet/)).toBeTruthy();
  });

  it('shows only the given swarm server\'s pools when the Train step passes its server', async () => {
    api.answer('workers:list', () => [pool(), pool({ poolId: 'pool-2', label: 'other', swarm: { engineId: 'local', containerId: 'fedcba987654', profileId: null } })]);
    render(WorkerPools, { props: { api, server: { engineId: 'local', containerId: 'fedcba987654' } } });
    await waitFor(() => expect(screen.getAllByTestId('worker-pool')).toHaveLength(1));
    expect(screen.getByTestId('worker-pool').dataset.poolId).toBe('pool-2');
    expect(screen.queryByTestId('worker-pools')).toBeNull();
  });

  it('shows the exact venv command before anything runs, runs it only when asked, and hands its python over', async () => {
    const command = 'python3 -m venv "$HOME"/.agentswarm/venvs/agentjet-client && …';
    api.answer('workers:client-venv-plan', () => ({ host: 'cpu-box', command, python: '"$HOME"/.agentswarm/venvs/agentjet-client/bin/python' }));
    api.answer('workers:client-venv-create', () => ({ host: 'cpu-box', command, python: '"$HOME"/.agentswarm/venvs/agentjet-client/bin/python', output: ['Successfully installed agentjet', 'ajet installed'] }));
    const chosen: string[] = [];
    render(ClientVenv, { props: { api, serverId: 'cpu-box', onPython: (p: string) => chosen.push(p) } });
    await fireEvent.click(screen.getByTestId('client-venv-open'));
    expect((await screen.findByTestId('client-venv-command')).textContent).toBe(command);
    expect(api.requestsOn('workers:client-venv-create')).toEqual([]);
    await fireEvent.click(screen.getByRole('button', { name: 'Run it on cpu-box' }));
    await screen.findByTestId('client-venv-done');
    expect(api.requestsOn('workers:client-venv-create')).toEqual([{ serverId: 'cpu-box' }]);
    expect(chosen).toEqual(['"$HOME"/.agentswarm/venvs/agentjet-client/bin/python']);
    expect(screen.getByText(/Successfully installed agentjet/)).toBeTruthy();
  });

  it('shows the Slurm array script before submission and submits it under the previewed pool id', async () => {
    const base = wizardAtSwarm({ current: 'train', swarm: readyDryRun() });
    const ws = { ...base, project: { ...base.project!, python: '/p/.venv/bin/python' }, code: { form: TrainingForm.parse({ experimentName: 'exp_1', modelPath: '/m', batchSize: 4, grpoN: 2 }), files: [], compiledAt: '2026-12-05T00:00:00Z' } };
    api.answer('servers:list', () => [{ profile: { id: 'hpc', label: 'hpc login' } }] as never);
    api.answer('workers:slurm-preview', () => ({ poolId: 'pool-shown', arrays: [{ host: 'hpc login', script: '#!/bin/bash -l\n#SBATCH --array=0-1\n', command: 'mkdir -p ~/x/out && cd ~/x && sbatch --parsable job.sh', tasks: 2 }] }));
    api.answer('workers:start', () => pool({ poolId: 'pool-shown' }));
    render(TrainWorkers, { props: { api, ws } });
    await fireEvent.input(screen.getByTestId('workers-local-count'), { target: { value: '0' } });
    await waitFor(() => expect(screen.getAllByRole('option', { name: 'hpc login' }).length).toBeGreaterThan(0));
    await fireEvent.change(screen.getByTestId('workers-slurm-server'), { target: { value: 'hpc' } });
    await fireEvent.input(screen.getByTestId('workers-slurm-count'), { target: { value: '2' } });
    await fireEvent.input(screen.getByTestId('workers-slurm-partition'), { target: { value: 'cpu' } });
    await fireEvent.click(await screen.findByRole('button', { name: 'Show the Slurm script for 2 workers' }));
    const shown = await screen.findByTestId('workers-slurm-preview');
    expect(shown.textContent).toContain('#SBATCH --array=0-1');
    expect(shown.textContent).toContain('sbatch --parsable job.sh');
    expect(api.requestsOn('workers:start')).toEqual([]);
    const asked = api.requestsOn('workers:slurm-preview')[0] as { placements: { kind: string; partition: string }[] };
    expect(asked.placements.map((p) => `${p.kind}:${p.partition}`)).toEqual(['slurm:cpu', 'slurm:cpu']);
    await fireEvent.click(screen.getByRole('button', { name: 'Submit and start 2 workers' }));
    await waitFor(() => expect(api.requestsOn('workers:start')).toHaveLength(1));
    expect(api.requestsOn('workers:start')[0]).toMatchObject({ poolId: 'pool-shown' });
  });
});
