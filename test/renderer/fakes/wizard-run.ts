import type { AppErrorShape } from '../../../electron/shared/errors';
import type { JobViewData } from '../../../electron/shared/schemas-jobs';
import type { SwarmChoiceData, WizardStateData } from '../../../electron/shared/schemas-wizard';
import { SettingsState } from '../../../renderer/src/lib/state/settings.svelte';
import { SwarmStatuses } from '../../../renderer/src/lib/state/swarm-statuses.svelte';
import type { PageContext } from '../../../renderer/src/lib/pages';
import type { FakeApi } from '../fake-api';
import { makeJobView, makeWizardState } from './wizard';

type SwarmView = NonNullable<WizardStateData['swarm']>;

/**
 * TEST DOUBLE of the wizard backend's steps 3–5 for renderer tests: `wizard:*` answered from one
 * plain state like WizardService would (choose, start, debug, train, stop), with switches for what
 * a test wants to see (`startSwarm` answers ready at once unless held; `debugJob`/`trainJob` are
 * what runs return). `push()` sends the state as `wizard:changed`, `pushJob()` a job as `jobs:changed`.
 */
export interface WizardRunFake {
  state: WizardStateData;
  /** Every request, by channel, as the renderer sent it. */
  chosen: SwarmChoiceData[];
  trains: { confirmEngineRestart: boolean }[];
  /** What `wizard:run-debug` / `wizard:train` return next (a fresh running job when null). */
  nextDebugJob: JobViewData | null;
  nextTrainJob: JobViewData | null;
  /** Set: the next `wizard:start-swarm` fails with it, after recording phase `failed` with its message as the detail. */
  startFailure: AppErrorShape | null;
  /** Set: the next `wizard:train` fails with it (a train with confirmEngineRestart true passes JOB_NEEDS_CONFIRMATION). */
  trainError: AppErrorShape | null;
  /** The scripts restart the engine: `wizard:train` without confirmation answers JOB_NEEDS_CONFIRMATION. */
  scriptsRestartEngine: boolean;
  jobs: Record<string, JobViewData>;
  push(): void;
  pushJob(job: JobViewData): void;
  setSwarm(patch: Partial<SwarmView>): void;
}

export function makeSwarmView(overrides: Partial<SwarmView> = {}): SwarmView {
  return { choice: { kind: 'dry-run' }, phase: 'idle', detail: null, engineId: null, containerId: null, url: null, ...overrides };
}

/** A wizard that reached the swarm step: the LLM chosen and tested, project and code done. */
export function wizardAtSwarm(overrides: Partial<WizardStateData> = {}): WizardStateData {
  return makeWizardState(
    {
      current: 'swarm',
      llm: { secretId: 'openai-main', baseUrl: 'http://127.0.0.1:9999/v1', model: 'fake-debug-model', test: { ok: true, latencyMs: 40, message: 'ok', at: '2026-12-04T10:00:00.000Z' } },
      ...overrides,
    },
    ['llm', 'project', 'code'],
  );
}

/** A ready dry run: the debug step unlocked. */
export function readyDryRun(): SwarmView {
  return makeSwarmView({ phase: 'ready', engineId: 'dry-run', containerId: 'dry-run', url: 'http://127.0.0.1:10087' });
}

export function installWizardRunFake(api: FakeApi, initial: WizardStateData): WizardRunFake {
  let jobCount = 0;
  const newJob = (kind: JobViewData['kind'], label: string): JobViewData => {
    jobCount += 1;
    const swarm = fake.state.swarm;
    return makeJobView({
      id: `${kind}-${jobCount}`,
      kind,
      label,
      // Later jobs start later: "the newest run" is the last one started.
      startedAt: `2026-12-04T11:00:0${jobCount}.000Z`,
      swarm: swarm?.engineId && swarm.containerId ? { engineId: swarm.engineId, containerId: swarm.containerId, profileId: null } : null,
      swarmUrl: swarm?.url ?? null,
    });
  };
  const remember = (job: JobViewData): JobViewData => {
    fake.jobs[job.id] = structuredClone(job);
    fake.state = { ...fake.state, runningJobIds: [...fake.state.runningJobIds.filter((id) => id !== job.id), job.id] };
    fake.push();
    return structuredClone(job);
  };
  const fake: WizardRunFake = {
    state: structuredClone(initial),
    chosen: [],
    trains: [],
    nextDebugJob: null,
    nextTrainJob: null,
    startFailure: null,
    trainError: null,
    scriptsRestartEngine: false,
    jobs: {},
    push: () => api.emit('wizard:changed', structuredClone(fake.state)),
    pushJob(job) {
      fake.jobs[job.id] = structuredClone(job);
      api.emit('jobs:changed', structuredClone(job));
    },
    setSwarm(patch) {
      fake.state = { ...fake.state, swarm: { ...(fake.state.swarm ?? makeSwarmView()), ...patch } };
      fake.push();
    },
  };

  api.answer('wizard:state', () => structuredClone(fake.state));
  api.answer('wizard:goto', (r) => {
    fake.state = { ...fake.state, current: r?.step ?? fake.state.current };
    return structuredClone(fake.state);
  });
  api.answer('wizard:choose-swarm', (choice) => {
    if (!choice) throw new Error('fake: choose-swarm without a choice');
    fake.chosen.push(structuredClone(choice));
    fake.state = { ...fake.state, current: 'swarm', swarm: makeSwarmView({ choice }) };
    return structuredClone(fake.state);
  });
  // Like the service: the answer comes once the server is ready (a test holds the channel and
  // sends the phases meanwhile with setSwarm); a failure is recorded in the state, then answered.
  api.answer('wizard:start-swarm', () => {
    const swarm = fake.state.swarm;
    if (!swarm) throw { code: 'VALIDATION_FAILED', message: 'Choose where the swarm server runs (the dry run or a profile) first.' };
    if (fake.startFailure) {
      const error = fake.startFailure;
      fake.startFailure = null;
      fake.setSwarm({ phase: 'failed', detail: error.message, say: { key: 'failed', params: { code: error.code } } });
      throw error;
    }
    const ready = swarm.choice.kind === 'dry-run' ? readyDryRun() : makeSwarmView({ choice: swarm.choice, phase: 'ready', engineId: 'local', containerId: 'c0ffee000001', url: 'http://127.0.0.1:10086' });
    fake.state = { ...fake.state, swarm: { ...ready, choice: swarm.choice } };
    return structuredClone(fake.state);
  });
  api.answer('wizard:run-debug', () => remember(fake.nextDebugJob ?? newJob('debug-episode', 'Debug episode · the dry run')));
  api.answer('wizard:train', (r) => {
    const confirmEngineRestart = r?.confirmEngineRestart ?? false;
    fake.trains.push({ confirmEngineRestart });
    if (fake.trainError) {
      const error = fake.trainError;
      fake.trainError = null;
      throw error;
    }
    if (fake.scriptsRestartEngine && !confirmEngineRestart) {
      throw { code: 'JOB_NEEDS_CONFIRMATION', message: 'agent_roll.py calls force_restart=True: confirm that it may restart the engine.' };
    }
    const job = fake.nextTrainJob ?? newJob('train', 'Training · the dry run');
    fake.state = { ...fake.state, trainJobId: job.id };
    return remember(job);
  });
  api.answer('wizard:stop-train', () => {
    const id = fake.state.trainJobId;
    const job = id ? fake.jobs[id] : undefined;
    if (!job) throw { code: 'JOB_NOT_FOUND', message: 'No training run was started from the wizard.' };
    const cancelling = { ...job, state: 'cancelling' as const };
    // As the runner: the new state goes out as jobs:changed too.
    fake.pushJob(cancelling);
    return structuredClone(cancelling);
  });
  api.answer('jobs:get', (r) => {
    const job = r ? fake.jobs[r.jobId] : undefined;
    if (!job) throw { code: 'JOB_NOT_FOUND', message: `No job ${r?.jobId}.` };
    return structuredClone(job);
  });
  api.answer('jobs:log', (r) => ({ jobId: r?.jobId ?? 'none', lines: [], total: 0 }));
  return fake;
}

/** The page context a step gets from WizardPage (its navigate recorded for the test). */
export function makeContext(api: FakeApi, navigated: string[] = []): PageContext {
  return { api, statuses: new SwarmStatuses(api), settings: new SettingsState(api), navigate: (page) => navigated.push(page) };
}
