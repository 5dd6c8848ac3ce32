import { DRY_RUN_CONTAINER_ID, DRY_RUN_ENGINE_ID, DryRunStartRequest, type DryRunView, type EpisodeTrace } from '../../../electron/shared/schemas-dryrun';
import type { SwarmContainer } from '../../../electron/shared/schemas';
import type { FakeApi } from '../fake-api';

/**
 * TEST DOUBLE of the dry-run backend for renderer tests: `dryrun:*` answered from plain fields,
 * Start/Stop move the view and the engine's one container like the backend does, `emit` sends
 * `dryrun:changed` / `dryrun:traces-changed`. Installed with FakeApi.answer() (fake-api.ts unchanged).
 */
export interface DryRunFake {
  view: DryRunView;
  episodes: EpisodeTrace[];
  steps: { step: number; status: string; at: string; reason: string | null }[];
  /** Every start request as the renderer sent it (the typed key included: it must reach the backend). */
  starts: DryRunStartRequest[];
  /** Set: the next start fails with this error (an AppError shape). */
  failStart: { code: 'VAULT_LOCKED' | 'PORT_IN_USE' | 'DRY_RUN_STATE'; message: string } | null;
  exports: number;
  /** Pushes the current view as `dryrun:changed`. */
  push(): void;
  /** Adds an episode and sends `dryrun:traces-changed`. */
  addEpisode(episode: EpisodeTrace): void;
}

export function stoppedDryRunView(): DryRunView {
  return {
    state: 'stopped',
    url: null,
    port: null,
    portNote: null,
    config: null,
    keySource: null,
    engineStatus: null,
    globalStep: null,
    train: null,
    spend: { calls: 0, promptTokens: 0, completionTokens: 0, maxCalls: 2000, maxTokens: 2_000_000, stoppedBy: null },
    stall: null,
    startRefusal: null,
    error: null,
  };
}

export function makeEpisode(overrides: Partial<EpisodeTrace> = {}): EpisodeTrace {
  const episodeUuid = overrides.episodeUuid ?? 'ep-0001-aaaa';
  return {
    episodeUuid,
    taskId: 'task-a',
    step: 1,
    clientUuid: 'client-1',
    state: 'ended',
    reward: 0.75,
    llmCalls: 1,
    startedAt: '2026-12-03T18:00:00.000Z',
    endedAt: '2026-12-03T18:00:02.000Z',
    detail: null,
    metadata: { task_id: 'task-a' },
    calls: [
      {
        callId: `${episodeUuid}-1`,
        episodeUuid,
        route: 'chat',
        at: '2026-12-03T18:00:01.000Z',
        latencyMs: 42,
        stream: false,
        status: 200,
        request: { messages: [{ role: 'user', content: 'what is 2+2?' }], temperature: 0.2 },
        modelRequest: {
          model: 'fake-debug-model',
          messages: [
            { role: 'system', content: 'You are a helpful assistant, your name is AgentJet.' },
            { role: 'user', content: 'what is 2+2?' },
          ],
          temperature: 0.9,
        },
        modelChanges: [
          { kind: 'system-inserted', content: 'You are a helpful assistant, your name is AgentJet.' },
          { kind: 'sampling-from-job', ignored: ['temperature'], temperature: 0.9 },
        ],
        response: { choices: [{ message: { role: 'assistant', content: 'fake answer: 4' } }] },
        promptTokens: 12,
        completionTokens: 4,
        usageEstimated: false,
        error: null,
      },
    ],
    ...overrides,
  };
}

function dryRunContainer(port: number, state: SwarmContainer['state']): SwarmContainer {
  return {
    id: DRY_RUN_CONTAINER_ID,
    name: 'dry-run',
    engineId: DRY_RUN_ENGINE_ID,
    image: 'in-app dry run (no image, no GPU)',
    state,
    statusText: state === 'running' ? 'Up 2 seconds' : 'Exited (143)',
    port,
    networkMode: 'publish',
    createdAt: '2026-12-03T18:00:00.000Z',
    startedAt: '2026-12-03T18:00:00.000Z',
    finishedAt: state === 'running' ? null : '2026-12-03T18:10:00.000Z',
    exitCode: state === 'running' ? null : 143,
  };
}

export function installDryRunFake(api: FakeApi): DryRunFake {
  const fake: DryRunFake = {
    view: stoppedDryRunView(),
    episodes: [],
    steps: [],
    starts: [],
    failStart: null,
    exports: 0,
    push: () => api.emit('dryrun:changed', structuredClone(fake.view)),
    addEpisode(episode) {
      fake.episodes.unshift(episode);
      api.emit('dryrun:traces-changed', { total: fake.episodes.length });
    },
  };
  const noRun = () => ({ code: 'DRY_RUN_STATE' as const, message: 'No dry run yet: start one, and its episodes show here.' });
  const summary = ({ calls: _calls, metadata: _metadata, ...rest }: EpisodeTrace) => rest;

  api.answer('dryrun:view', () => structuredClone(fake.view));
  api.answer('dryrun:start', (input) => {
    // As the backend: the request is validated (and its defaults applied) before the handler.
    const request = DryRunStartRequest.parse(input);
    fake.starts.push(structuredClone(request));
    if (fake.failStart) {
      const error = fake.failStart;
      fake.failStart = null;
      throw error;
    }
    const port = request.config.port ?? 10087;
    fake.view = {
      ...stoppedDryRunView(),
      state: 'running',
      url: `http://127.0.0.1:${port}`,
      port,
      portNote: request.config.port === null ? 'port 10086 is taken (by python3 (pid 4242)), using 10087' : null,
      portTaken: request.config.port === null ? { port: 10086, holder: 'python3 (pid 4242)' } : null,
      config: request.config,
      keySource: request.config.llm.secretId ? 'vault: OpenAI' : request.sessionKey ? 'typed for this run' : 'none (the debug LLM takes no key)',
      keyFrom: request.config.llm.secretId ? { kind: 'vault', name: 'OpenAI' } : request.sessionKey ? { kind: 'typed', name: null } : { kind: 'none', name: null },
      engineStatus: 'ENGINE.OFFLINE',
      globalStep: 0,
      spend: { calls: 0, promptTokens: 0, completionTokens: 0, maxCalls: request.config.spend.maxCalls, maxTokens: request.config.spend.maxTokens, stoppedBy: null },
    };
    fake.episodes = [];
    api.containers = [...api.containers.filter((c) => c.id !== DRY_RUN_CONTAINER_ID), dryRunContainer(port, 'running')];
    api.emit('swarm:containers-changed', { engineId: DRY_RUN_ENGINE_ID });
    return structuredClone(fake.view);
  });
  api.answer('dryrun:stop', () => {
    if (fake.view.state !== 'running') throw { code: 'DRY_RUN_STATE', message: 'The dry run is not running.' };
    fake.view = { ...fake.view, state: 'stopped', url: null, engineStatus: null, globalStep: null, train: null, stall: null };
    const container = api.containers.find((c) => c.id === DRY_RUN_CONTAINER_ID);
    if (container) Object.assign(container, dryRunContainer(container.port, 'exited'));
    api.emit('swarm:containers-changed', { engineId: DRY_RUN_ENGINE_ID });
    return structuredClone(fake.view);
  });
  api.answer('dryrun:traces', (query) => {
    if (!fake.view.config) throw noRun();
    const matching = fake.episodes.filter((e) => (query?.taskId ?? null) === null || e.taskId === query?.taskId).filter((e) => (query?.step ?? null) === null || e.step === query?.step);
    const offset = query?.offset ?? 0;
    return {
      total: matching.length,
      episodes: matching.slice(offset, offset + (query?.limit ?? 100)).map(summary),
      steps: structuredClone(fake.steps),
      taskIds: [...new Set(fake.episodes.map((e) => e.taskId).filter((id): id is string => id !== null))].sort(),
    };
  });
  api.answer('dryrun:trace', (ref) => {
    const episode = fake.episodes.find((e) => e.episodeUuid === ref?.episodeUuid);
    if (!episode) throw { code: 'TRACE_NOT_FOUND', message: `No episode ${ref?.episodeUuid} in this dry run's trace.` };
    return structuredClone(episode);
  });
  api.answer('dryrun:export-traces', () => {
    if (!fake.view.config) throw noRun();
    fake.exports += 1;
    return { path: '/home/u/Downloads/agentswarm-dry-run-traces-2026-12-03T18-10-00.jsonl', episodes: fake.episodes.length, bytes: 1234 };
  });
  return fake;
}
