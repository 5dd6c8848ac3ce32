import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import TrainingDashboard from '../../renderer/src/pages/servers/training/TrainingDashboard.svelte';
import { FakeApi, makeStatus, makeTrainingView } from './fake-api';
import { showServer } from './rows';
import { installDryRunFake, makeEpisode, type DryRunFake } from './fakes/dryrun';
import { installVaultFake, makeSecret } from './fakes/vault';

let api: FakeApi;
let fake: DryRunFake;

beforeEach(() => {
  api = new FakeApi();
  api.engineList.push({ id: 'dry-run', kind: 'dry-run', label: 'This computer (dry run)', endpoint: 'in-app swarm server on 127.0.0.1' });
  fake = installDryRunFake(api);
  setApiForTests(api);
  setLocale('en');
});

// The dry run is a row of the Servers page's list (issue 32): its card shows once that row is chosen.
async function card(): Promise<HTMLElement> {
  await showServer('dry-run');
  return screen.findByTestId('dryrun-card');
}

async function fillAndStart(options: { key?: string; trainingStep?: string } = {}): Promise<HTMLElement> {
  render(App);
  const c = await card();
  await fireEvent.input(within(c).getByTestId('dryrun-base-url'), { target: { value: 'http://127.0.0.1:9999/v1' } });
  await fireEvent.input(within(c).getByTestId('dryrun-model'), { target: { value: 'fake-debug-model' } });
  await fireEvent.click(within(c).getByTestId('dryrun-key-session'));
  await fireEvent.input(await within(c).findByTestId('dryrun-session-key'), { target: { value: options.key ?? 'sk-typed-for-this-run-123456' } });
  if (options.trainingStep !== undefined) await fireEvent.input(within(c).getByTestId('dryrun-training-step'), { target: { value: options.trainingStep } });
  await fireEvent.click(within(c).getByTestId('dryrun-start'));
  return c;
}

describe('dry-run card on the Servers page', () => {
  it('is its own card, badged, and the dry-run engine gets no plain engine card', async () => {
    render(App);
    const c = await card();
    expect(c.querySelector('h2')?.textContent).toBe('This computer (dry run, no GPU)');
    expect(within(c).getByTestId('dryrun-badge').textContent).toBe('dry run: no weights change');
    expect(within(c).getByTestId('dryrun-state').textContent).toBe('Stopped');
    // The dry-run engine has its own row, not a plain engine row (with an engine card) as well.
    await waitFor(() => expect(screen.getAllByTestId('server-row').map((row) => row.dataset.row)).toEqual(['engine:local', 'dry-run']));
    expect(screen.queryAllByTestId('engine-card')).toHaveLength(0);
    // Nothing but the view is asked while no dry run exists (no monitor, no traces).
    expect(api.requestsOn('swarm:list')).toEqual([{ engineId: 'local' }]);
    expect(api.requestsOn('dryrun:traces')).toEqual([]);
  });

  it('starts with a key typed for this run: the key goes in the request only, the URL to use and the port note show', async () => {
    const c = await fillAndStart();
    await waitFor(() => expect(within(c).getByTestId('dryrun-env-line').textContent).toBe('AJET_SWARM_URL=http://127.0.0.1:10087'));
    expect(fake.starts).toHaveLength(1);
    expect(fake.starts[0]).toMatchObject({
      sessionKey: 'sk-typed-for-this-run-123456',
      config: { port: null, llm: { baseUrl: 'http://127.0.0.1:9999/v1', model: 'fake-debug-model', secretId: null }, bootDelayMs: 3000, trainingStepMs: 8000 },
    });
    // The simulated training step is said, at its default long enough for a client's 5 s poll: no warning.
    expect(within(c).getByTestId('dryrun-training-step').textContent).toContain('A simulated training step takes 8 s');
    expect(within(c).queryByTestId('dryrun-training-step-short')).toBeNull();
    expect(within(c).getByTestId('dryrun-port-note').textContent).toContain('port 10086 is taken (by python3 (pid 4242)), using 10087');
    expect(within(c).getByTestId('dryrun-llm').textContent).toContain('key: typed for this run');
    expect(within(c).queryByTestId('dryrun-start-form')).toBeNull();
    expect(document.body.innerHTML).not.toContain('sk-typed-for-this-run-123456');
    expect(within(c).getByTestId('dryrun-state').textContent).toBe('Running');
  });

  it('a training step shorter than a client poll period is sent as typed and warned about', async () => {
    const c = await fillAndStart({ trainingStep: '2.5' });
    await waitFor(() => expect(within(c).getByTestId('dryrun-training-step').textContent).toContain('takes 2.5 s'));
    expect(fake.starts[0]?.config.trainingStepMs).toBe(2500);
    expect(within(c).getByTestId('dryrun-training-step-short').textContent).toContain('agree_sync_weight()');
  });

  it('shows the same monitor row as a real server, and Stop ends the run but keeps its traces', async () => {
    const c = await fillAndStart();
    const monitor = await within(c).findByTestId('dryrun-monitor');
    const row = await within(monitor).findByTestId('swarm-container-row');
    expect(row.getAttribute('data-container-id')).toBe('dry-run');
    api.emit('swarm:status', makeStatus('dry-run', { engineId: 'dry-run', url: 'http://127.0.0.1:10087', engineStatus: 'ENGINE.ROLLING', globalStep: 2 }));
    await waitFor(() => expect(within(row).getByTestId('swarm-engine-status').textContent).toBe('ENGINE.ROLLING'));
    expect(row.textContent).toContain('step 2');

    fake.addEpisode(makeEpisode());
    await within(c).findByTestId('dryrun-episode-row');
    await fireEvent.click(within(c).getByTestId('dryrun-stop'));
    await waitFor(() => expect(within(c).getByTestId('dryrun-state').textContent).toBe('Stopped'));
    expect(within(c).getByTestId('dryrun-start-form')).toBeTruthy();
    expect(within(c).getAllByTestId('dryrun-episode-row')).toHaveLength(1);
  });

  it('refuses an incomplete form with field errors and sends nothing', async () => {
    render(App);
    const c = await card();
    await fireEvent.click(within(c).getByTestId('dryrun-key-session'));
    await fireEvent.input(within(c).getByTestId('dryrun-port'), { target: { value: '80' } });
    await fireEvent.click(within(c).getByTestId('dryrun-start'));
    expect(within(c).getByTestId('dryrun-error-baseUrl').textContent).toContain('https://api.openai.com/v1');
    expect(within(c).getByTestId('dryrun-error-model')).toBeTruthy();
    expect(within(c).getByTestId('dryrun-error-sessionKey')).toBeTruthy();
    expect(within(c).getByTestId('dryrun-error-port')).toBeTruthy();
    expect(fake.starts).toEqual([]);
  });

  it('asks for a vault endpoint when the vault is chosen and none is picked', async () => {
    render(App);
    const c = await card();
    await fireEvent.input(within(c).getByTestId('dryrun-base-url'), { target: { value: 'https://api.openai.com/v1' } });
    await fireEvent.input(within(c).getByTestId('dryrun-model'), { target: { value: 'gpt-4o-mini' } });
    await fireEvent.click(within(c).getByTestId('dryrun-key-vault'));
    await fireEvent.click(within(c).getByTestId('dryrun-start'));
    expect(within(c).getByTestId('dryrun-error-secret').textContent).toContain('Pick an LLM endpoint from the vault');
    expect(fake.starts).toEqual([]);
  });

  it('takes the base URL from the chosen vault endpoint and does not let it be edited (its key goes only there)', async () => {
    installVaultFake(api, { status: 'unlocked', secrets: [makeSecret({ id: 'local-llm', name: 'Local LLM', llm: { baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen' } })] });
    render(App);
    const c = await card();
    const baseUrl = within(c).getByTestId('dryrun-base-url') as HTMLInputElement;
    await fireEvent.input(baseUrl, { target: { value: 'http://127.0.0.1:9999/v1' } });
    await fireEvent.click(within(c).getByTestId('dryrun-key-vault'));
    const select = (await within(c).findByTestId('secret-picker-select')) as HTMLSelectElement;
    await waitFor(() => expect([...select.options].map((o) => o.value)).toContain('local-llm'));
    await fireEvent.change(select, { target: { value: 'local-llm' } });
    await waitFor(() => expect(baseUrl.value).toBe('http://127.0.0.1:8000/v1'));
    expect(baseUrl.readOnly).toBe(true);
    expect(within(c).getByText('Taken from the chosen vault endpoint: its key goes only there. For another URL, type a key for this run.')).toBeTruthy();
    await fireEvent.click(within(c).getByTestId('dryrun-key-session'));
    expect(baseUrl.readOnly).toBe(false);
  });

  it('shows why a start failed (a locked vault) with its error code', async () => {
    fake.failStart = { code: 'VAULT_LOCKED', message: 'The vault is locked, so the dry run cannot read the key "OpenAI". Unlock the vault in Settings, or type a key for this run.' };
    const c = await fillAndStart();
    const banner = await within(c).findByTestId('error-banner');
    expect(banner.getAttribute('data-error-code')).toBe('VAULT_LOCKED');
    expect(banner.textContent).toContain('Unlock the vault in Settings');
    expect(within(c).getByTestId('dryrun-start-form')).toBeTruthy();
  });

  it('shows spend against its limits, the spend guard stop and a stall reason as the backend pushes them', async () => {
    const c = await fillAndStart();
    await within(c).findByTestId('dryrun-env-line');
    fake.view = {
      ...fake.view,
      spend: { ...fake.view.spend, calls: 2000, promptTokens: 1500, completionTokens: 500, stoppedBy: '2000 calls reached (max calls per dry run)' },
      stall: '4 of 8 tasks have num_repeat=4 episodes; 2 tasks have 1 (task_id grouping?)',
      train: { experimentName: 'math-agent', batchSize: 8, numRepeat: 4, sampleCollectionMethod: 'rollout_until_finish_enough_tasks', unknownKeys: ['ajet.trainer.lr'] },
    };
    fake.push();
    await waitFor(() => expect(within(c).getByTestId('dryrun-spend-calls').textContent).toBe('LLM calls: 2,000 of 2,000'));
    expect(within(c).getByTestId('dryrun-spend-tokens').textContent).toContain('2,000 of 2,000,000');
    expect(within(c).getByTestId('dryrun-spend-stopped').textContent).toContain('2000 calls reached (max calls per dry run)');
    expect(within(c).getByTestId('dryrun-stall').textContent).toContain('task_id grouping?');
    expect(within(c).getByTestId('dryrun-train-batch').textContent).toBe('Batch: 8 tasks × 4 episodes (rollout_until_finish_enough_tasks)');
    expect(within(c).getByTestId('dryrun-train-unknown').textContent).toContain('ajet.trainer.lr');
  });

  it('says in words why the engine stays BOOTING when upstream would refuse the YAML, with the lines to add', async () => {
    const c = await fillAndStart();
    await within(c).findByTestId('dryrun-env-line');
    expect(within(c).queryByTestId('dryrun-start-refusal')).toBeNull();
    fake.view = { ...fake.view, engineStatus: 'ENGINE.BOOTING', startRefusal: { error: "'defaults'", missingKey: 'defaults' } };
    fake.push();
    const refusal = await within(c).findByTestId('dryrun-start-refusal');
    expect(within(refusal).getByTestId('dryrun-start-refusal-why').textContent).toContain("Your job's YAML has no `defaults:` list; upstream stays BOOTING.");
    expect(refusal.textContent).toContain("answered 'defaults'");
    expect(within(refusal).getByTestId('dryrun-start-refusal-fix').textContent).toBe('defaults:\n- verl_default\n- ajet_default\n- _self_');
    // A failure with no missing key: upstream's error, and no YAML to add.
    fake.view = { ...fake.view, startRefusal: { error: "'str' object has no attribute 'get'", missingKey: null } };
    fake.push();
    await waitFor(() => expect(within(c).getByTestId('dryrun-start-refusal-why').textContent).toContain("answered 'str' object has no attribute 'get'"));
    expect(within(c).queryByTestId('dryrun-start-refusal-fix')).toBeNull();
  });

  it('lists episodes as they come, filters by task, opens one with its LLM calls, exports JSONL', async () => {
    const c = await fillAndStart();
    await within(c).findByTestId('dryrun-traces-empty');
    fake.addEpisode(makeEpisode({ episodeUuid: 'ep-a-1', taskId: 'task-a', reward: 1 }));
    fake.addEpisode(makeEpisode({ episodeUuid: 'ep-b-1', taskId: 'task-b', reward: 0, state: 'aborted', detail: 'aborted by the client', llmCalls: 0, calls: [] }));
    await waitFor(() => expect(within(c).getAllByTestId('dryrun-episode-row')).toHaveLength(2));

    await fireEvent.change(within(c).getByTestId('dryrun-filter-task'), { target: { value: 'task-a' } });
    await waitFor(() => expect(within(c).getAllByTestId('dryrun-episode-row').map((r) => r.getAttribute('data-episode'))).toEqual(['ep-a-1']));
    expect(api.requestsOn('dryrun:traces').at(-1)).toMatchObject({ taskId: 'task-a', offset: 0 });

    await fireEvent.click(within(c).getByTestId('dryrun-episode-open'));
    const episode = await within(c).findByTestId('dryrun-episode');
    expect(within(episode).getByTestId('dryrun-episode-facts').textContent).toBe('Step 1 · task task-a · ended · reward 1');
    const call = within(episode).getByTestId('dryrun-call');
    expect(call.textContent).toContain('Call 1: chat · HTTP 200 · 42 ms · 12 in / 4 out tokens');
    expect(within(call).getByTestId('dryrun-call-request').textContent).toContain('what is 2+2?');
    expect(within(call).getByTestId('dryrun-call-response').textContent).toContain('fake answer: 4');
    // Beside what the agent sent: what the trained model receives, and in words why it differs.
    expect(within(call).getByTestId('dryrun-call-model-request').textContent).toContain('You are a helpful assistant, your name is AgentJet.');
    const changes = within(call).getByTestId('dryrun-call-model-changes').textContent ?? '';
    expect(changes).toContain('Inserted a system message first, because the first message was not one');
    expect(changes).toContain("Ignored temperature: a train episode samples with the job's settings (temperature 0.9)");
    expect(document.activeElement?.id).toBe('dryrun-episode-heading');

    await fireEvent.click(within(c).getByTestId('dryrun-export'));
    expect((await within(c).findByTestId('dryrun-exported')).textContent).toContain('Saved 2 episodes (1234 bytes) to /home/u/Downloads/agentswarm-dry-run-traces-');
    expect(fake.exports).toBe(1);
  });

  it('is translated into Simplified Chinese', async () => {
    // The app takes its language from the settings.
    api.settingsValue = { ...api.settingsValue, language: 'zh-CN' };
    render(App);
    const c = await card();
    await waitFor(() => expect(c.querySelector('h2')?.textContent).toBe('本机（试运行，无 GPU）'));
    expect(within(c).getByTestId('dryrun-badge').textContent).toBe('试运行：不会更新权重');
  });
});

describe('training dashboard of a dry run', () => {
  const series = (engineId: string) => ({
    engineId,
    containerId: 'dry-run',
    runId: 'run-1',
    points: [{ step: 1, at: '2026-12-03T18:00:00.000Z', rewardMean: 0.5, rewardStd: 0.1, rewardMin: 0.4, rewardMax: 0.6, batch: 'pool' as const, episodes: 2, seconds: 30, llmTokens: null, llmCalls: null, failures: null, secondsInStatus: {} }],
    timeline: [],
  });

  it('labels the reward chart as the debug LLM baseline', async () => {
    api.trainingViews = [makeTrainingView('dry-run', { engineId: 'dry-run' })];
    api.trainingSeries = [series('dry-run')];
    render(TrainingDashboard, { props: { api, engineId: 'dry-run', containerId: 'dry-run' } });
    expect((await screen.findByTestId('reward-baseline')).textContent).toContain('debug LLM baseline — nothing is trained');
  });

  it('says that a dry run’s WEIGHT_SYNCING is its simulated training step', async () => {
    api.trainingViews = [makeTrainingView('dry-run', { engineId: 'dry-run', engineStatus: 'ENGINE.WEIGHT_SYNCING' })];
    api.trainingSeries = [series('dry-run')];
    render(TrainingDashboard, { props: { api, engineId: 'dry-run', containerId: 'dry-run' } });
    expect((await screen.findByTestId('training-help')).textContent).toContain('Simulated training step');
  });

  it('does not label a real server’s chart so', async () => {
    api.trainingViews = [makeTrainingView('dry-run')];
    api.trainingSeries = [series('local')];
    render(TrainingDashboard, { props: { api, engineId: 'local', containerId: 'dry-run' } });
    await screen.findByTestId('reward-chart');
    await waitFor(() => expect(screen.getByTestId('reward-last')).toBeTruthy());
    expect(screen.queryByTestId('reward-baseline')).toBeNull();
  });
});
