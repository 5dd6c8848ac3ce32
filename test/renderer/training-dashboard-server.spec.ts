import { render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveServerState } from '../../electron/services/server-state/derive';
import type { SwarmContainer } from '../../electron/shared/schemas';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import TrainingDashboard from '../../renderer/src/pages/servers/training/TrainingDashboard.svelte';
import { FakeApi, makeStatus, makeTrainingView } from './fake-api';

// Issue 31: the card's training dashboard wears the server's badge in the words of every other surface, also when
// nothing is polled (a queued Slurm job), and stops counting an engine status once its server ended.
const C = '4711';
const NOW = Date.now();
let api: FakeApi;

const container = (over: Partial<SwarmContainer>): SwarmContainer => ({
  id: C, name: 'agentswarm-a', engineId: 'local', image: 'i', state: 'running', statusText: '', port: 10086, networkMode: 'publish',
  createdAt: new Date(NOW - 60_000).toISOString(), startedAt: null, finishedAt: null, exitCode: null, ...over,
});

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
  setLocale('en');
});
afterEach(() => {
  setApiForTests(null);
  setLocale('en');
});

describe('the training dashboard says what the server state says', () => {
  it('a queued job (nothing polled): the badge with its reason in words and its place', async () => {
    const server = deriveServerState(
      { engineKind: 'slurm', container: container({ state: 'created', queue: { reason: 'Resources', position: 1 } }), status: undefined, stopping: false },
      undefined,
      NOW,
    );
    render(TrainingDashboard, { props: { api, engineId: 'local', containerId: C, server } });
    const badge = await screen.findByTestId('training-phase');
    expect(badge.textContent).toMatch(/^Queued: waiting for free GPUs\/CPUs \(position 1\) · for /);
    expect(badge.dataset.phase).toBe('queued');
  });

  it('an ended server: its end, and no engine status counting on ("ROLLING for 2 minutes" after the end was a lie)', async () => {
    // The last view still says ROLLING (read before the crash); the state says how the server ended.
    api.trainingViews = [makeTrainingView(C, { engineStatus: 'ENGINE.ROLLING' })];
    const exit = { kind: 'crashed' as const, code: 1, finishedAt: new Date(NOW - 5000).toISOString(), log: { lines: [], explains: false } };
    const server = deriveServerState(
      { engineKind: 'local-docker', container: container({ state: 'exited', startedAt: new Date(NOW - 50_000).toISOString(), exitCode: 1 }), status: makeStatus(C, { connection: 'stopped', engineStatus: null, exit }), stopping: false },
      undefined,
      NOW,
    );
    render(TrainingDashboard, { props: { api, engineId: 'local', containerId: C, server } });
    await waitFor(() => expect(screen.getByTestId('training-phase').textContent).toBe('Crashed (exit code 1)'));
    expect(screen.queryByTestId('training-status')).toBeNull();
  });
});
