import type { ExposedApi } from '../../electron/shared/api';
import type {
  EventChannel,
  EventPayload,
  InvokeChannel,
  InvokeInput,
  InvokeResponse,
} from '../../electron/shared/contract';
import type { AppErrorShape } from '../../electron/shared/errors';
import type { Result } from '../../electron/shared/result';
import type { EngineHealth, LogTail, Settings, StoreStatus, SwarmContainer, SwarmStatus } from '../../electron/shared/schemas';

/**
 * TEST DOUBLE: an in-memory implementation of the renderer/backend contract. It keeps containers,
 * statuses and settings in plain arrays, records every call, lets a test make one channel fail
 * (`failNext`) or hang (`hold`), and pushes events with `emit`. No Docker, no Electron, no HTTP.
 */
export class FakeApi implements ExposedApi {
  readonly calls: { channel: InvokeChannel; request: unknown }[] = [];
  containers: SwarmContainer[] = [];
  statusList: SwarmStatus[] = [];
  settingsValue: Settings = {
    language: 'en',
    swarm: {
      image: 'ghcr.io/modelscope/agentjet:main',
      port: 10086,
      networkMode: 'publish',
      gpus: false,
      shmSizeGb: 32,
    },
  };
  health: EngineHealth = {
    id: 'local',
    reachable: true,
    version: '27.5.1',
    apiVersion: '1.47',
    error: null,
  };
  settingsStatus: StoreStatus = {
    file: '/home/u/.config/AgentSwarm Desktop/settings.json',
    problem: null,
    writable: true,
    detail: null,
    movedTo: null,
    resetFields: [],
  };
  appLog: LogTail = { path: '/home/u/.config/AgentSwarm Desktop/app.log', lines: [], problem: null, canOpen: true };
  rendererReadyCalls = 0;
  private readonly failures = new Map<InvokeChannel, AppErrorShape>();
  private readonly holds = new Map<InvokeChannel, Promise<void>>();
  private readonly listeners = new Map<EventChannel, Set<(payload: unknown) => void>>();
  private nextId = 1;

  /** The next call on `channel` resolves to this error envelope. */
  failNext(channel: InvokeChannel, error: AppErrorShape): void {
    this.failures.set(channel, error);
  }

  /** Calls on `channel` wait until the returned function is called. */
  hold(channel: InvokeChannel): () => void {
    let release = () => {};
    this.holds.set(channel, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.holds.delete(channel);
      release();
    };
  }

  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners.get(channel) ?? []) listener(payload);
  }

  listenerCount(channel: EventChannel): number {
    return this.listeners.get(channel)?.size ?? 0;
  }

  requestsOn(channel: InvokeChannel): unknown[] {
    return this.calls.filter((call) => call.channel === channel).map((call) => call.request);
  }

  makeContainer(overrides: Partial<SwarmContainer> = {}): SwarmContainer {
    const id = (this.nextId++).toString(16).padStart(12, '0');
    return {
      id,
      name: `agentjet-swarm-${id.slice(-4)}`,
      engineId: 'local',
      image: 'ghcr.io/modelscope/agentjet:main',
      state: 'running',
      statusText: 'Up 2 minutes',
      port: 10086,
      networkMode: 'publish',
      createdAt: '2025-01-01T00:00:00.000Z',
      startedAt: new Date(Date.now() - 120_000).toISOString(),
      finishedAt: null,
      exitCode: null,
      ...overrides,
    };
  }

  private respond<C extends InvokeChannel>(
    channel: C,
    request: InvokeInput<C> | undefined,
    produce: () => InvokeResponse<C>,
  ): Promise<Result<InvokeResponse<C>>> {
    this.calls.push({ channel, request });
    const failure = this.failures.get(channel);
    const hold = this.holds.get(channel) ?? Promise.resolve();
    return hold.then(() => {
      if (failure) {
        this.failures.delete(channel);
        return { ok: false, error: failure };
      }
      return { ok: true, value: produce() };
    });
  }

  readonly app: ExposedApi['app'] = {
    info: (r) => this.respond('app:info', r, () => ({ version: '0.1.0', host: 'browser', platform: 'linux' })),
    log: (r) => this.respond('app:log', r, () => ({ ...this.appLog, lines: [...this.appLog.lines] })),
    openLog: (r) => this.respond('app:open-log', r, () => ({ opened: true as const, path: this.appLog.path })),
    rendererReady: () => {
      this.rendererReadyCalls += 1;
    },
  };

  readonly engines: ExposedApi['engines'] = {
    list: (r) =>
      this.respond('engines:list', r, () => [
        { id: 'local', kind: 'local-docker', label: 'Local Docker', endpoint: 'unix:///var/run/docker.sock' },
      ]),
    health: (r) => this.respond('engines:health', r, () => this.health),
  };

  readonly swarm: ExposedApi['swarm'] = {
    // Copies, like JSON over IPC: the UI must never share objects with the "backend".
    list: (r) => this.respond('swarm:list', r, () => this.containers.map((c) => ({ ...c }))),
    start: (r) =>
      this.respond('swarm:start', r, () => {
        const container = this.makeContainer({ image: r?.image ?? '', port: r?.port ?? 10086 });
        this.containers.push(container);
        this.emit('swarm:containers-changed', { engineId: 'local' });
        return container;
      }),
    stop: (r) =>
      this.respond('swarm:stop', r, () => {
        const container = this.containers.find((c) => c.id === r?.containerId);
        if (!container) throw new Error('fake: stop of unknown container');
        container.state = 'exited';
        return { ...container };
      }),
    remove: (r) =>
      this.respond('swarm:remove', r, () => {
        this.containers = this.containers.filter((c) => c.id !== r?.containerId);
        return { removed: true as const };
      }),
    statuses: (r) => this.respond('swarm:statuses', r, () => [...this.statusList]),
  };

  readonly settings: ExposedApi['settings'] = {
    get: (r) => this.respond('settings:get', r, () => this.settingsValue),
    update: (r) =>
      this.respond('settings:update', r, () => {
        this.settingsValue = {
          language: r?.language ?? this.settingsValue.language,
          swarm: { ...this.settingsValue.swarm, ...r?.swarm },
        };
        return this.settingsValue;
      }),
    status: (r) => this.respond('settings:status', r, () => ({ ...this.settingsStatus })),
  };

  readonly events: ExposedApi['events'] = {
    on: (channel, listener) => {
      const set = this.listeners.get(channel) ?? new Set();
      this.listeners.set(channel, set);
      const untyped = listener as (payload: unknown) => void;
      set.add(untyped);
      return () => set.delete(untyped);
    },
  };
}

export function makeStatus(containerId: string, overrides: Partial<SwarmStatus> = {}): SwarmStatus {
  return {
    engineId: 'local',
    containerId,
    url: 'http://127.0.0.1:10086',
    connection: 'online',
    engineStatus: 'ENGINE.OFFLINE',
    engineStatusDetail: null,
    globalStep: null,
    lastGlobalStep: null,
    lastEngineStatusDetail: null,
    bootingSince: null,
    engineProblem: null,
    exit: null,
    lastError: null,
    checkedAt: new Date().toISOString(),
    ...overrides,
  };
}
