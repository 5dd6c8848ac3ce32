import type { Result } from './result';
import type { EventChannel, EventPayload, InvokeChannel, InvokeInput, InvokeResponse } from './contract';

/**
 * Maps every namespaced method to its channel. The ONE list a new channel is added to on the API
 * side: `ExposedApi` is derived from it, and the preload and the browser client both build their
 * object by looping over it (`buildLayoutApi`), so the three cannot drift apart.
 */
export const apiLayout = {
  app: { info: 'app:info', log: 'app:log', openLog: 'app:open-log', visibility: 'app:visibility' },
  engines: { list: 'engines:list', health: 'engines:health' },
  swarm: {
    list: 'swarm:list',
    start: 'swarm:start',
    stop: 'swarm:stop',
    remove: 'swarm:remove',
    statuses: 'swarm:statuses',
  },
  fleet: { states: 'fleet:states' },
  settings: { get: 'settings:get', update: 'settings:update', status: 'settings:status' },
  servers: {
    list: 'servers:list',
    add: 'servers:add',
    update: 'servers:update',
    remove: 'servers:remove',
    connect: 'servers:connect',
    disconnect: 'servers:disconnect',
    test: 'servers:test',
    trustHostKey: 'servers:trust-host-key',
    replaceHostKey: 'servers:replace-host-key',
    answerPrompt: 'servers:answer-prompt',
    sshConfig: 'servers:ssh-config',
  },
  profiles: {
    list: 'profiles:list',
    add: 'profiles:add',
    update: 'profiles:update',
    remove: 'profiles:remove',
    command: 'profiles:command',
    start: 'profiles:start',
    stop: 'profiles:stop',
    restart: 'profiles:restart',
  },
  doctor: { run: 'doctor:run', reports: 'doctor:reports' },
  images: { pull: 'images:pull', cancelPull: 'images:cancel-pull', pulls: 'images:pulls' },
  logs: { read: 'logs:read', export: 'logs:export', serverLog: 'logs:server-log', heads: 'logs:heads' },
  training: { view: 'training:view', series: 'training:series', views: 'training:views', interest: 'training:interest' },
  runs: {
    list: 'runs:list',
    get: 'runs:get',
    delete: 'runs:delete',
    compare: 'runs:compare',
    settings: 'runs:settings',
    setRate: 'runs:set-rate',
    setLimits: 'runs:set-limits',
    card: 'runs:card',
    exportCard: 'runs:export-card',
  },
  vault: {
    state: 'vault:state',
    setup: 'vault:setup',
    unlock: 'vault:unlock',
    lock: 'vault:lock',
    passwordStore: 'vault:password-store',
  },
  secrets: { list: 'secrets:list', save: 'secrets:save', delete: 'secrets:delete', test: 'secrets:test' },
  settingsFile: { export: 'settings:export', import: 'settings:import' },
  dryrun: {
    view: 'dryrun:view',
    start: 'dryrun:start',
    stop: 'dryrun:stop',
    traces: 'dryrun:traces',
    trace: 'dryrun:trace',
    exportTraces: 'dryrun:export-traces',
  },
  jobs: {
    python: 'jobs:python',
    start: 'jobs:start',
    cancel: 'jobs:cancel',
    rerun: 'jobs:rerun',
    list: 'jobs:list',
    get: 'jobs:get',
    log: 'jobs:log',
    openLog: 'jobs:open-log',
  },
  slurm: { jobs: 'slurm:jobs', clear: 'slurm:clear' },
  wizard: {
    state: 'wizard:state',
    goto: 'wizard:goto',
    reset: 'wizard:reset',
    setLlm: 'wizard:set-llm',
    setProject: 'wizard:set-project',
    setPython: 'wizard:set-python',
    testDataset: 'wizard:test-dataset',
    testEpisode: 'wizard:test-episode',
    previewCode: 'wizard:preview-code',
    generateCode: 'wizard:generate-code',
    chooseSwarm: 'wizard:choose-swarm',
    startSwarm: 'wizard:start-swarm',
    runDebug: 'wizard:run-debug',
    train: 'wizard:train',
    stopTrain: 'wizard:stop-train',
  },
  updates: { state: 'updates:state', check: 'updates:check', download: 'updates:download', install: 'updates:install' },
  workers: {
    list: 'workers:list',
    split: 'workers:split',
    start: 'workers:start',
    stopAll: 'workers:stop-all',
    restartFailed: 'workers:restart-failed',
    add: 'workers:add',
    stop: 'workers:stop',
    log: 'workers:log',
    slurmPreview: 'workers:slurm-preview',
    slurmAddPreview: 'workers:slurm-add-preview',
    clientVenvPlan: 'workers:client-venv-plan',
    clientVenvCreate: 'workers:client-venv-create',
  },
  gpus: { samples: 'gpus:samples', homeShown: 'gpus:home-shown' },
  alerts: { list: 'alerts:list', acknowledge: 'alerts:acknowledge', thresholds: 'alerts:thresholds', setThresholds: 'alerts:set-thresholds' },
} as const satisfies Record<string, Record<string, InvokeChannel>>;

export type ApiLayout = typeof apiLayout;

/** One API method: send the request of channel C, get its Result envelope back. */
export type Call<C extends InvokeChannel> = (request?: InvokeInput<C>) => Promise<Result<InvokeResponse<C>>>;

/** The part of the API that `apiLayout` describes: one `Call` per (namespace, method). */
export type LayoutApi = {
  readonly [N in keyof ApiLayout]: {
    readonly [M in keyof ApiLayout[N]]: ApiLayout[N][M] extends InvokeChannel ? Call<ApiLayout[N][M]> : never;
  };
};

/** What is not a request channel: the ready signal (Electron's event queue) and event subscription. */
export interface ApiExtras {
  readonly app: { rendererReady: () => void };
  readonly events: {
    on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void;
  };
}

/**
 * The namespaced API the renderer sees as `window.api` under Electron. The browser host client in
 * `renderer/src/lib/api` implements the very same type over HTTP + WebSocket.
 */
export type ExposedApi = LayoutApi & ApiExtras;

/**
 * Builds the `LayoutApi` part by looping over `apiLayout`, given how one channel is invoked on
 * this transport. Used by the preload (IPC) and the browser client (HTTP), so a channel added to
 * the layout appears on both without touching either.
 */
export function buildLayoutApi(invoke: (channel: InvokeChannel, request: unknown) => Promise<unknown>): LayoutApi {
  const api: Record<string, Record<string, (request?: unknown) => Promise<unknown>>> = {};
  for (const [namespace, methods] of Object.entries(apiLayout)) {
    const target: Record<string, (request?: unknown) => Promise<unknown>> = {};
    for (const [method, channel] of Object.entries(methods) as [string, InvokeChannel][]) {
      // The backend validates every request; `{}` stands for "no arguments" so defaults apply there.
      target[method] = (request?: unknown) => invoke(channel, request ?? {});
    }
    api[namespace] = target;
  }
  // The loops build exactly the shape of `LayoutApi`, which the compiler cannot see through
  // `Object.entries`; test/unit/shared/contract.spec.ts pins the runtime shape against the layout.
  return api as unknown as LayoutApi;
}
