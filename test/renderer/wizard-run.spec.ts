import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DryRunConfig } from '../../electron/shared/schemas-dryrun';
import type { JobViewData } from '../../electron/shared/schemas-jobs';
import { TrainingForm, type WizardStateData } from '../../electron/shared/schemas-wizard';
import { en } from '../../renderer/src/lib/i18n/en';
import { clearWizardDrafts } from '../../renderer/src/lib/state/wizard-drafts.svelte';
import { WizardStore } from '../../renderer/src/lib/state/wizard.svelte';
import StepDebug from '../../renderer/src/pages/wizard/StepDebug.svelte';
import StepSwarm from '../../renderer/src/pages/wizard/StepSwarm.svelte';
import StepTrain from '../../renderer/src/pages/wizard/StepTrain.svelte';
import { FakeApi, makeProfileView, makeServerView, makeTrainingView } from './fake-api';
import { installDryRunFake, makeEpisode, type DryRunFake } from './fakes/dryrun';
import { makeJobView, makeWizardState } from './fakes/wizard';
import { installWizardRunFake, makeContext, readyDryRun, wizardAtSwarm, type WizardRunFake } from './fakes/wizard-run';

let api: FakeApi;
let fake: WizardRunFake;
let wizard: WizardStore;
let navigated: string[];
const stops: (() => void)[] = [];

beforeEach(() => {
  api = new FakeApi();
  navigated = [];
});

afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  // The drafts outlive a page, as in the app: each test starts with none.
  clearWizardDrafts();
});

type Step = typeof StepSwarm | typeof StepDebug | typeof StepTrain;

/** A started WizardStore on the fake backend (as WizardPage builds it), then the step on its own. */
async function mount(step: Step, initial: WizardStateData, seed: (fake: WizardRunFake) => void = () => {}): Promise<void> {
  fake = installWizardRunFake(api, initial);
  seed(fake);
  wizard = new WizardStore(api);
  stops.push(wizard.start());
  await waitFor(() => expect(wizard.state).not.toBeNull());
  render(step, { props: { context: makeContext(api, navigated), wizard } });
}

const swarmState = () => screen.getByTestId('wizard-swarm-state').textContent?.trim();
const marks = () => [...document.querySelectorAll('li[data-phase]')].map((li) => `${li.getAttribute('data-phase')}:${li.getAttribute('data-mark')}`);

describe('step 3: the swarm server', () => {
  beforeEach(() => {
    api.serverViews = [makeServerView({ id: 'gpu-box', label: 'gpu-box' })];
    api.engineList.push({ id: api.serverViews[0]!.engineId, kind: 'ssh-docker', label: 'Docker on gpu-box', endpoint: 'ssh://alice@gpu.example.org' });
    api.profileViews = [
      makeProfileView({ id: 'qwen-7b', label: 'Qwen 7B', engineId: 'local' }),
      makeProfileView({ id: 'qwen-72b', label: 'Qwen 72B', engineId: api.serverViews[0]!.engineId }),
    ];
  });

  it('starts on the dry run, and lists each profile as "<label> · <engine or SSH server>"', async () => {
    await mount(StepSwarm, wizardAtSwarm());
    expect((screen.getByRole('radio', { name: 'This computer (dry run, no GPU)' }) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByRole('combobox', { name: 'Profile' })).toBeNull();

    await fireEvent.click(screen.getByRole('radio', { name: 'A swarm profile' }));
    const select = screen.getByRole('combobox', { name: 'Profile' });
    await waitFor(() => expect(within(select).getAllByRole('option').map((o) => o.textContent?.trim())).toEqual(['Qwen 7B · Local Docker', 'Qwen 72B · gpu-box']));
  });

  it('without profiles says how to add one and opens the Servers page', async () => {
    api.profileViews = [];
    await mount(StepSwarm, wizardAtSwarm());
    await fireEvent.click(screen.getByRole('radio', { name: 'A swarm profile' }));
    const empty = await screen.findByTestId('wizard-swarm-no-profiles');
    expect(empty.textContent).toContain('Add one on the Servers page');
    expect(screen.getByRole('button', { name: 'Start the swarm server' }).getAttribute('aria-disabled')).toBe('true');
    await fireEvent.click(within(empty).getByRole('button', { name: 'Open the Servers page' }));
    expect(navigated).toEqual(['servers']);
  });

  it('starts the dry run: the choice goes to the backend first, then the start; Starting, Health check, then Ready with the URL', async () => {
    await mount(StepSwarm, wizardAtSwarm());
    const release = api.hold('wizard:start-swarm');
    await fireEvent.click(screen.getByRole('button', { name: 'Start the swarm server' }));
    await waitFor(() => expect(fake.chosen).toEqual([{ kind: 'dry-run' }]));
    await waitFor(() => expect(api.requestsOn('wizard:start-swarm')).toHaveLength(1));

    fake.setSwarm({ phase: 'starting', detail: 'starting the dry run with fake-debug-model', say: { key: 'dryRunStarting', params: { model: 'fake-debug-model' } }, engineId: 'dry-run', containerId: 'dry-run' });
    await waitFor(() => expect(swarmState()).toBe('Starting'));
    expect(screen.getByTestId('wizard-swarm-detail').textContent).toContain('starting the dry run with fake-debug-model');
    expect(marks()).toEqual(['starting:current', 'health:todo', 'ready:todo']);
    expect(screen.getByRole('button', { name: 'Start the swarm server' }).getAttribute('aria-disabled')).toBe('true');

    fake.setSwarm({ phase: 'health', detail: 'waiting for http://127.0.0.1:10087/health', url: 'http://127.0.0.1:10087' });
    await waitFor(() => expect(swarmState()).toBe('Health check'));
    expect(marks()).toEqual(['starting:done', 'health:current', 'ready:todo']);
    expect(screen.queryByTestId('wizard-swarm-url')).toBeNull();

    release();
    await waitFor(() => expect(swarmState()).toBe('Ready'));
    expect(screen.getByTestId('wizard-swarm-url').textContent).toBe('http://127.0.0.1:10087');
    expect(marks()).toEqual(['starting:done', 'health:done', 'ready:done']);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('starts a profile on an SSH server through Connecting, Doctor, Tunnel and Health check', async () => {
    await mount(StepSwarm, wizardAtSwarm());
    await fireEvent.click(screen.getByRole('radio', { name: 'A swarm profile' }));
    const select = screen.getByRole('combobox', { name: 'Profile' });
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(2));
    await fireEvent.change(select, { target: { value: 'qwen-72b' } });
    const release = api.hold('wizard:start-swarm');
    await fireEvent.click(screen.getByRole('button', { name: 'Start the swarm server' }));
    await waitFor(() => expect(fake.chosen).toEqual([{ kind: 'profile', profileId: 'qwen-72b' }]));

    const engineId = api.serverViews[0]!.engineId;
    const steps: [Partial<NonNullable<WizardStateData['swarm']>>, string, string[]][] = [
      [{ phase: 'connecting', detail: 'connecting to gpu-box over SSH', say: { key: 'connecting', params: { server: 'gpu-box' } }, engineId }, 'Connecting', ['connecting:current', 'doctor:todo', 'tunnel:todo', 'health:todo', 'ready:todo']],
      [{ phase: 'doctor', detail: 'checking “Qwen 72B” (doctor), then starting it', say: { key: 'doctor', params: { profile: 'Qwen 72B' } } }, 'Doctor', ['connecting:done', 'doctor:current', 'tunnel:todo', 'health:todo', 'ready:todo']],
      [{ phase: 'tunnel', detail: 'waiting for the tunnel to the swarm port', say: { key: 'tunnel', params: {} }, containerId: 'c0ffee000002' }, 'Tunnel', ['connecting:done', 'doctor:done', 'tunnel:current', 'health:todo', 'ready:todo']],
      [{ phase: 'health', detail: 'waiting for http://127.0.0.1:10086/health', say: { key: 'health', params: { url: 'http://127.0.0.1:10086' } } }, 'Health check', ['connecting:done', 'doctor:done', 'tunnel:done', 'health:current', 'ready:todo']],
    ];
    for (const [patch, word, expected] of steps) {
      fake.setSwarm(patch);
      await waitFor(() => expect(swarmState()).toBe(word));
      expect(screen.getByTestId('wizard-swarm-detail').textContent).toContain(patch.detail);
      expect(marks()).toEqual(expected);
    }
    release();
    await waitFor(() => expect(swarmState()).toBe('Ready'));
    expect(screen.getByTestId('wizard-swarm-url').textContent).toBe('http://127.0.0.1:10086');
  });

  it('on a failure shows the detail and the error, and Try again starts again without choosing again', async () => {
    await mount(StepSwarm, wizardAtSwarm({ swarm: { choice: { kind: 'dry-run' }, phase: 'idle', detail: null, engineId: null, containerId: null, url: null } }));
    fake.startFailure = { code: 'PORT_IN_USE', message: 'Port 10086 is taken by python3 (pid 4242). Stop it, or choose another port.' };
    await fireEvent.click(screen.getByRole('button', { name: 'Start the swarm server' }));

    const banner = await screen.findByRole('alert');
    expect(banner.getAttribute('data-error-code')).toBe('PORT_IN_USE');
    expect(banner.textContent).toContain(en['errors.PORT_IN_USE']);
    await waitFor(() => expect(swarmState()).toBe('Failed'));
    // Worded from the error's code; the backend's specifics (English) beside it, marked as such.
    expect(screen.getByTestId('wizard-swarm-detail').textContent).toBe(`The start failed: ${en['errors.PORT_IN_USE']}`);
    const specifics = screen.getByTestId('wizard-swarm-failure-detail');
    expect(specifics.textContent).toBe('Port 10086 is taken by python3 (pid 4242). Stop it, or choose another port.');
    expect(specifics.getAttribute('lang')).toBe('en');
    // The same choice as the backend's: nothing to choose again.
    expect(fake.chosen).toEqual([]);

    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(swarmState()).toBe('Ready'));
    expect(api.requestsOn('wizard:start-swarm')).toHaveLength(2);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });
});

// ---------------------------------------------------------------- step 4

function debugState(overrides: Partial<WizardStateData> = {}): WizardStateData {
  return wizardAtSwarm({ current: 'debug', swarm: readyDryRun(), ...overrides });
}

function installTraces(): DryRunFake {
  const dry = installDryRunFake(api);
  dry.view = { ...dry.view, state: 'running', url: 'http://127.0.0.1:10087', port: 10087, config: DryRunConfig.parse({ llm: { baseUrl: 'http://127.0.0.1:9999/v1', model: 'fake-debug-model' } }) };
  return dry;
}

async function runDebug(): Promise<JobViewData> {
  await fireEvent.click(screen.getByRole('button', { name: 'Run the debug episode' }));
  await waitFor(() => expect(api.requestsOn('wizard:run-debug')).toHaveLength(1));
  const id = Object.keys(fake.jobs)[0]!;
  return fake.jobs[id]!;
}

/** The job ends, then the backend records what it proved (as WizardService does on the job's end). */
function endDebug(job: JobViewData, end: Partial<JobViewData>, debug: { reward: number | null; passed: boolean }): void {
  fake.pushJob({ ...job, state: 'succeeded', endedAt: '2026-12-04T11:00:09.000Z', durationMs: 4000, exitCode: 0, pid: null, ...end });
  fake.state = { ...fake.state, runningJobIds: [], debug: { jobId: job.id, choice: { kind: 'dry-run' }, ...debug, at: '2026-12-04T11:00:09.000Z' } };
  fake.push();
}

describe('step 4: the debug episode', () => {
  it('passes on the dry run: the reward, the LLM calls of this run only, and the offer of a GPU server', async () => {
    const dry = installTraces();
    await mount(StepDebug, debugState());
    const job = await runDebug();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Run again' }).getAttribute('aria-disabled')).toBe('true'));
    expect(screen.queryByTestId('wizard-debug-result')).toBeNull();

    // An episode of an earlier run, then this run's (started after the job).
    dry.addEpisode(makeEpisode({ episodeUuid: 'old-episode-1', startedAt: '2026-12-04T09:00:00.000Z' }));
    const episode = makeEpisode({ episodeUuid: 'this-run-episode', startedAt: '2026-12-04T11:00:05.000Z' });
    episode.calls[0]!.request = { model: 'fake-debug-model', messages: [{ role: 'system', content: 'You solve sums.' }, { role: 'user', content: 'what is 2+2?' }] };
    dry.addEpisode(episode);

    const calls = screen.getByTestId('wizard-debug-calls');
    await waitFor(() => expect(within(calls).getAllByTestId('wizard-debug-call')).toHaveLength(1));
    expect(calls.textContent).toContain('this-run');
    expect(calls.textContent).not.toContain('old-epis');
    const cells = within(within(calls).getByTestId('wizard-debug-call')).getAllByRole('cell').map((c) => c.textContent?.trim());
    expect(cells).toEqual(['1', 'fake-debug-model', '12 in / 4 out', '42 ms', 'what is 2+2?', 'fake answer: 4']);

    endDebug(job, { result: { reward: 0.75, count: null, items: [], raw: { reward: 0.75 } } }, { reward: 0.75, passed: true });
    await waitFor(() => expect(screen.getByTestId('wizard-debug-result').textContent).toBe('Passed: reward 0.75'));
    expect(screen.getByRole('button', { name: 'Run again' }).getAttribute('aria-disabled')).toBe('false');
    expect(screen.queryByTestId('wizard-traceback')).toBeNull();

    // The GPU server next, and the user leaves for Servers at once, before the swarm step showed (the wizard page and
    // its store are gone; getting-started e2e, thrice in CI). Back, a new page opens the swarm step with "A swarm
    // profile" chosen, nothing sent yet.
    const release = api.hold('wizard:goto');
    await fireEvent.click(screen.getByRole('button', { name: 'Choose a GPU server' }));
    await waitFor(() => expect(api.requestsOn('wizard:goto')).toEqual([{ step: 'swarm' }]));
    cleanup();
    for (const stop of stops.splice(0)) stop();
    release();
    const back = new WizardStore(api);
    stops.push(back.start());
    await waitFor(() => expect(back.state?.current).toBe('swarm'));
    render(StepSwarm, { props: { context: makeContext(api, navigated), wizard: back } });
    expect((screen.getByRole('radio', { name: 'A swarm profile' }) as HTMLInputElement).checked).toBe(true);
    expect(fake.chosen).toEqual([]);
  });

  it('a crash shows the traceback with file and line, no offer, and Run again starts a new run', async () => {
    installTraces();
    await mount(StepDebug, debugState());
    const job = await runDebug();
    const file = '/home/me/agent/tutorial/opencode_build_ab12cd/agent_roll_one_episode_debug.py';
    endDebug(
      job,
      {
        state: 'failed',
        exitCode: 1,
        failure: {
          code: 'JOB_CRASHED',
          message: `The script exited with code 1: KeyError: 'answer' at ${file}, line 42. Fix it there, then run again.`,
          traceback: { file, line: 42, exception: "KeyError: 'answer'", text: `Traceback (most recent call last):\n  File "${file}", line 42, in run\nKeyError: 'answer'` },
        },
      },
      { reward: null, passed: false },
    );

    const traceback = await screen.findByTestId('wizard-traceback');
    expect(traceback.textContent).toContain(`${file}:42`);
    expect(traceback.textContent).toContain("KeyError: 'answer'");
    expect(screen.getByTestId('wizard-debug-result').textContent).toBe(`Failed: The script exited with code 1: KeyError: 'answer' at ${file}, line 42. Fix it there, then run again.`);
    expect(screen.queryByRole('button', { name: 'Choose a GPU server' })).toBeNull();

    await fireEvent.click(screen.getByRole('button', { name: 'Run again' }));
    await waitFor(() => expect(api.requestsOn('wizard:run-debug')).toHaveLength(2));
    await waitFor(() => expect(screen.queryByTestId('wizard-traceback')).toBeNull());
    expect(screen.queryByTestId('wizard-debug-result')).toBeNull();
  });

  it('a run without a reward fails, and no LLM calls show for a profile', async () => {
    await mount(StepDebug, debugState({ swarm: { ...readyDryRun(), choice: { kind: 'profile', profileId: 'qwen-7b' }, engineId: 'local', containerId: 'c0ffee000001' } }));
    fake.nextDebugJob = makeJobView({ id: 'debug-on-gpu', kind: 'debug-episode', label: 'Debug episode · profile "Qwen 7B"', swarm: { engineId: 'local', containerId: 'c0ffee000001', profileId: 'qwen-7b' } });
    const job = await runDebug();
    endDebug(job, { result: null }, { reward: null, passed: false });
    await waitFor(() => expect(screen.getByTestId('wizard-debug-result').textContent).toBe(`Failed: ${en['wizard.run.debug.noReward']}`));
    expect(screen.queryByTestId('wizard-debug-calls')).toBeNull();
    expect(api.requestsOn('dryrun:traces')).toEqual([]);
  });

  it('after a reload shows the recorded run: its verdict from the state and its job from jobs:get', async () => {
    installTraces();
    const job = makeJobView({ id: 'debug-earlier', kind: 'debug-episode', state: 'succeeded', label: 'Debug episode · the dry run', result: { reward: 1, count: null, items: [], raw: { reward: 1 } } });
    await mount(StepDebug, debugState({ debug: { jobId: job.id, choice: { kind: 'dry-run' }, reward: 1, passed: true, at: '2026-12-04T10:50:00.000Z' } }), (f) => {
      f.jobs[job.id] = job;
    });
    await waitFor(() => expect(screen.getByTestId('wizard-debug-result').textContent).toBe('Passed: reward 1'));
    expect(api.requestsOn('jobs:get')).toEqual([{ jobId: 'debug-earlier' }]);
    expect(screen.getByRole('button', { name: 'Run again' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Choose a GPU server' })).toBeTruthy();
  });

  it('shows the step error (WIZARD_STEP_LOCKED) in a banner', async () => {
    await mount(StepDebug, debugState());
    api.failNext('wizard:run-debug', { code: 'WIZARD_STEP_LOCKED', message: '"Debug episode" needs these steps done first: Swarm server.' });
    await fireEvent.click(screen.getByRole('button', { name: 'Run the debug episode' }));
    const banner = await screen.findByRole('alert');
    expect(banner.getAttribute('data-error-code')).toBe('WIZARD_STEP_LOCKED');
    expect(banner.textContent).toContain('needs these steps done first');
  });
});

// ---------------------------------------------------------------- step 5

function trainState(forceRestart: boolean): WizardStateData {
  const form = TrainingForm.parse({ experimentName: 'opencode_build_ab12cd', modelPath: '/models/Qwen2.5-7B', forceRestart });
  return {
    ...wizardAtSwarm({ current: 'train', swarm: readyDryRun() }),
    code: { form, files: [], compiledAt: '2026-12-04T10:30:00.000Z' },
    debug: { jobId: 'debug-0', choice: { kind: 'dry-run' }, reward: 1, passed: true, at: '2026-12-04T10:40:00.000Z' },
  };
}

const dialog = () => screen.queryByTestId('wizard-train-confirm');

describe('step 5: train', () => {
  beforeEach(() => {
    api.trainingViews = [makeTrainingView('dry-run', { engineId: 'dry-run' })];
  });

  it('asks before a run that restarts the engine (force restart in the form): Cancel sends nothing, confirming trains', async () => {
    await mount(StepTrain, trainState(true));
    await fireEvent.click(screen.getByRole('button', { name: 'Start training' }));
    const confirm = screen.getByRole('dialog');
    expect(confirm.getAttribute('data-testid')).toBe('wizard-train-confirm');
    expect(confirm.textContent).toContain('ends training for every client of this server');
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(dialog()).toBeNull();
    expect(fake.trains).toEqual([]);

    await fireEvent.click(screen.getByRole('button', { name: 'Start training' }));
    await fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Restart the engine and train' }));
    await waitFor(() => expect(fake.trains).toEqual([{ confirmEngineRestart: true }]));
    await waitFor(() => expect(screen.getByTestId('wizard-job-state').textContent).toBe('running'));
    expect(dialog()).toBeNull();
  });

  it('asks when the backend finds the restart in the scripts (JOB_NEEDS_CONFIRMATION), then trains confirmed', async () => {
    await mount(StepTrain, trainState(false));
    fake.scriptsRestartEngine = true;
    await fireEvent.click(screen.getByRole('button', { name: 'Start training' }));
    await waitFor(() => expect(dialog()).not.toBeNull());
    expect(fake.trains).toEqual([{ confirmEngineRestart: false }]);
    await fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Restart the engine and train' }));
    await waitFor(() => expect(fake.trains).toEqual([{ confirmEngineRestart: false }, { confirmEngineRestart: true }]));
    await waitFor(() => expect(screen.getByTestId('wizard-job-state').textContent).toBe('running'));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows JOB_BUSY when training already runs against that server', async () => {
    await mount(StepTrain, trainState(false));
    fake.trainError = { code: 'JOB_BUSY', message: 'Training already runs (job train-7). Stop it first, or watch it on the dashboard.' };
    await fireEvent.click(screen.getByRole('button', { name: 'Start training' }));
    const banner = await screen.findByRole('alert');
    expect(banner.getAttribute('data-error-code')).toBe('JOB_BUSY');
    expect(banner.textContent).toContain(en['errors.JOB_BUSY']);
    expect(banner.textContent).toContain('Training already runs (job train-7)');
    expect(dialog()).toBeNull();
  });

  it('a "not done yet" refusal goes away once the backend records the debug episode (no stale banner)', async () => {
    // trainState: the debug step is not done in `steps` yet (its result is recorded a moment after the run).
    await mount(StepTrain, trainState(false));
    fake.trainError = { code: 'WIZARD_STEP_LOCKED', message: '"Train" needs these steps done first: Debug episode.' };
    await fireEvent.click(screen.getByRole('button', { name: 'Start training' }));
    const banner = await screen.findByRole('alert');
    expect(banner.getAttribute('data-error-code')).toBe('WIZARD_STEP_LOCKED');
    // Still locked: the banner stays.
    api.emit('wizard:changed', { ...trainState(false) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('alert')).not.toBeNull();
    // The backend recorded the debug episode: Train is unlocked and the refusal is old news.
    const recorded = { ...trainState(false), steps: makeWizardState({}, ['llm', 'project', 'code', 'swarm', 'debug']).steps };
    api.emit('wizard:changed', recorded);
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
  });

  it('a training run that crashes shows its traceback, and Start training comes back', async () => {
    await mount(StepTrain, trainState(false));
    await fireEvent.click(screen.getByRole('button', { name: 'Start training' }));
    await waitFor(() => expect(screen.getByTestId('wizard-job-state').textContent).toBe('running'));
    const job = fake.jobs[fake.state.trainJobId!]!;
    const file = '/home/me/agent/tutorial/opencode_build_ab12cd/agent_roll.py';
    fake.pushJob({
      ...job,
      state: 'failed',
      exitCode: 1,
      endedAt: '2026-12-04T12:00:00.000Z',
      failure: { code: 'JOB_CRASHED', message: 'The script exited with code 1.', traceback: { file, line: 7, exception: 'ValueError: bad batch', text: 'Traceback (most recent call last):' } },
    });
    await waitFor(() => expect(screen.getByTestId('wizard-job-state').textContent).toBe('failed'));
    expect(screen.getByTestId('wizard-traceback').textContent).toContain(`${file}:7`);
    expect(screen.getByRole('button', { name: 'Start training' }).getAttribute('aria-disabled')).toBe('false');
  });

  it("shows the server's dashboard and the run's state, and Stop training stops it", async () => {
    await mount(StepTrain, trainState(false));
    const dashboard = screen.getByTestId('training-dashboard');
    expect(dashboard.getAttribute('data-engine-id')).toBe('dry-run');
    expect(dashboard.getAttribute('data-container-id')).toBe('dry-run');
    await waitFor(() => expect(api.requestsOn('training:view')).toEqual([{ engineId: 'dry-run', containerId: 'dry-run' }]));

    await fireEvent.click(screen.getByRole('button', { name: 'Start training' }));
    await waitFor(() => expect(screen.getByTestId('wizard-job-state').textContent).toBe('running'));
    const job = fake.jobs[fake.state.trainJobId!]!;

    await fireEvent.click(screen.getByRole('button', { name: 'Stop training' }));
    await waitFor(() => expect(api.requestsOn('wizard:stop-train')).toHaveLength(1));
    await waitFor(() => expect(screen.getByTestId('wizard-job-state').textContent).toBe('cancelling'));
    fake.pushJob({ ...job, state: 'cancelled', endedAt: '2026-12-04T12:00:00.000Z', signal: 'SIGTERM', pid: null });
    await waitFor(() => expect(screen.getByTestId('wizard-job-state').textContent).toBe('cancelled'));
    expect(screen.getByRole('button', { name: 'Start training' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Stop training' })).toBeNull();
  });
});
