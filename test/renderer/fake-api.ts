import { buildLayoutApi, type ExposedApi } from '../../electron/shared/api';
import type {
  EventChannel,
  EventPayload,
  InvokeChannel,
  InvokeInput,
  InvokeResponse,
} from '../../electron/shared/contract';
import type { AppErrorShape } from '../../electron/shared/errors';
import type { Result } from '../../electron/shared/result';
import type { EngineHealth, EngineSummary, LogTail, Settings, StoreStatus, SwarmContainer, SwarmStatus } from '../../electron/shared/schemas';
import type { LogLine, ServerLogTail } from '../../electron/shared/schemas-profiles';
import {
  engineIdOfServer,
  ServerProfileInput,
  type DiagnosticsReport,
  type ServerProfile,
  type ServerView,
  type SshConfigListing,
  type TunnelView,
} from '../../electron/shared/schemas-servers';
import type { TrainingSeries, TrainingView } from '../../electron/shared/schemas-profiles';
import { DoctorCheckId, PODMAN_DOCTOR_CHECKS, ROOTLESS_PODMAN_DOCTOR_CHECKS, SLURM_DOCTOR_CHECKS, type DoctorCheck, type DoctorReport, type PullView } from '../../electron/shared/schemas-profiles';
import { ProfileInput, type Profile, type ProfileView } from '../../electron/shared/schemas-profiles';
import { makeWizardState } from './fakes/wizard';
import { FakeServerStates } from './fakes/server-states';

/** What the fake answers on one channel, given the request as the renderer sent it. */
type Producer<C extends InvokeChannel> = (request: InvokeInput<C> | undefined) => InvokeResponse<C>;
type Producers = { [C in InvokeChannel]?: Producer<C> };

/**
 * TEST DOUBLE: an in-memory implementation of the renderer/backend contract. It keeps containers,
 * statuses and settings in plain arrays, records every call, lets a test make one channel fail
 * (`failNext`) or hang (`hold`), and pushes events with `emit`. No Docker, no Electron, no HTTP.
 *
 * Its methods are built from `apiLayout` (`buildLayoutApi`), like the preload and the browser
 * client: a new channel needs no edit here unless a test wants an answer on it, and then it is one
 * row in `producers` (a channel without one answers with an INTERNAL error that names the fake).
 */
class FakeBackend {
  readonly calls: { channel: InvokeChannel; request: unknown }[] = [];
  engineList: EngineSummary[] = [
    { id: 'local', kind: 'local-docker', label: 'Local Docker', endpoint: 'unix:///var/run/docker.sock' },
  ];
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
  /** Training views and series the backend would serve (training:view/views/series); see makeTrainingView. */
  trainingViews: TrainingView[] = [];
  trainingSeries: TrainingSeries[] = [];
  /** SSH servers as the backend would list them; `pushServers()` sends them as a servers:changed snapshot. */
  serverViews: ServerView[] = [];
  sshConfigListing: SshConfigListing = { path: '/home/u/.ssh/config', exists: true, hosts: [] };
  /** Swarm profiles as the backend would list them (profiles block). */
  profileViews: ProfileView[] = [];
  /** What servers:test answers; the default is every stage passing. */
  diagnosticsReport: DiagnosticsReport | null = null;
  /** doctor/pull: the reports doctor:reports lists, what doctor:run answers (default: a passing report), the pulls images:pulls lists. */
  doctorReports: DoctorReport[] = [];
  doctorAnswer: ((profileId: string) => DoctorReport) | null = null;
  pullViews: PullView[] = [];
  // ---- logs (issue 13): a log of `logTotal` generated lines (`line <n>`, every 10th on stderr), so a
  // million lines cost nothing here; the server log file as `serverLogTail`.
  logTotal = 0;
  logFollowing = true;
  serverLogTail: ServerLogTail = { path: '/workspace/log/swarm_server.log', found: false, lines: [] };
  private readonly failures = new Map<InvokeChannel, AppErrorShape>();
  private readonly holds = new Map<InvokeChannel, Promise<void>>();
  private readonly listeners = new Map<EventChannel, Set<(payload: unknown) => void>>();
  private nextId = 1;
  /** One state per server, made by the backend's reducer from the fields above (issue 31). */
  readonly serverStates = new FakeServerStates(this);

  /** One row per channel a test needs an answer on. Copies, like JSON over IPC: the UI never shares objects with the "backend". */
  private readonly producers: Producers = {
    'app:info': () => ({ version: '0.1.0', host: 'browser', platform: 'linux' }),
    'app:log': () => ({ ...this.appLog, lines: [...this.appLog.lines] }),
    'app:open-log': () => ({ opened: true as const, path: this.appLog.path }),
    // A new user's Wizard and an empty Jobs history, so every page renders for real by default.
    'wizard:state': () => makeWizardState(),
    'jobs:list': () => [],
    // Settings → Updates as in the browser host (off); test/renderer/updates-section.spec.ts answers otherwise.
    'updates:state': () => ({ currentVersion: '0.1.0', state: { status: 'unsupported', reason: 'browser-host' } }),
    // Issue 34: no worker pools, and the split as the backend computes it (shares add up to the batch).
    'workers:list': () => [],
    'workers:split': (r) => {
      const batchSize = r?.batchSize ?? 1;
      const grpoN = r?.grpoN ?? 1;
      const workers = r?.workers ?? 1;
      const shares = Array.from({ length: workers }, (_u, index) => {
        const batchShare = Math.floor(batchSize / workers) + (index < batchSize % workers ? 1 : 0);
        return { index, batchShare, parallelEpisodes: batchShare * grpoN };
      });
      return { batchSize, grpoN, workers, shares, totalParallelEpisodes: batchSize * grpoN };
    },
    // Job logs are empty unless a test answers them (JobLogView reads them wherever a job shows).
    'jobs:log': (request) => ({ jobId: request?.jobId ?? 'job', lines: [], total: 0 }),
    'engines:list': () => this.engineList.map((e) => ({ ...e })),
    'engines:health': () => this.health,
    'swarm:list': () => this.containers.map((c) => ({ ...c })),
    'swarm:start': (r) => {
      const engineId = r?.engineId ?? 'missing-engine-id';
      const container = this.makeContainer({ engineId, image: r?.image ?? '', port: r?.port ?? 10086 });
      this.containers.push(container);
      this.emit('swarm:containers-changed', { engineId });
      return container;
    },
    'swarm:stop': (r) => {
      const container = this.containers.find((c) => c.id === r?.containerId);
      if (!container) throw new Error('fake: stop of unknown container');
      container.state = 'exited';
      // What the backend then says: the monitor's final status (a stop on request) and a changed list.
      this.announceStop(container);
      return { ...container };
    },
    'swarm:remove': (r) => {
      const removed = this.containers.find((c) => c.id === r?.containerId);
      this.containers = this.containers.filter((c) => c.id !== r?.containerId);
      if (removed) queueMicrotask(() => this.emit('fleet:state-removed', { key: `${removed.engineId}:${removed.id}`, engineId: removed.engineId, containerId: removed.id }));
      return { removed: true as const };
    },
    'swarm:statuses': () => [...this.statusList],
    'fleet:states': () => this.serverStates.all(),
    // Issue 13 domains: empty by default, so pages that show them render without an error banner.
    // ---- profiles (swarm server profiles, issue 13): an in-memory list; `pushProfiles()` sends it as profiles:changed.
    'profiles:list': () => this.profileCopies(),
    'profiles:add': (r) => {
      const input = ProfileInput.parse(r);
      const view = makeProfileView({ ...input, id: input.label.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'profile' });
      this.profileViews.push(view);
      return structuredClone(view);
    },
    'profiles:update': (r) => {
      const view = this.profileOrThrow(r?.profileId);
      view.profile = { ...view.profile, ...ProfileInput.parse(r?.profile) };
      if (view.runtime.container?.state === 'running') view.runtime.drifted = true;
      return structuredClone(view);
    },
    'profiles:remove': (r) => {
      this.profileViews = this.profileViews.filter((v) => v.profile.id !== r?.profileId);
      return { removed: true as const };
    },
    'profiles:command': (r) => ({ command: `docker run -d --name agentswarm-${r?.profileId} -e SWANLAB_API_KEY=**** image`, notes: ['Replace **** with the value.'] }),
    'profiles:start': (r) => this.startProfile(r?.profileId, r?.secrets ?? {}),
    'profiles:restart': (r) => this.startProfile(r?.profileId, r?.secrets ?? {}),
    'profiles:stop': (r) => {
      const view = this.profileOrThrow(r?.profileId);
      if (view.runtime.container) {
        view.runtime.container.state = 'exited';
        this.announceStop({ ...view.runtime.container, engineId: view.profile.engineId });
      }
      view.runtime.drifted = false;
      return structuredClone(view);
    },
    // ---- end profiles
    'logs:heads': () => [],
    // ---- logs
    'logs:read': (r) => {
      const filter = { text: '', regex: false, stream: 'all', ...r?.filter };
      const count = r?.count ?? 500;
      const plain = filter.text === '' && filter.stream === 'all';
      // Unfiltered windows straight from the index; filtered ones by scanning (tests keep those logs small).
      const matches = plain ? null : Array.from({ length: this.logTotal }, (_, n) => fakeLogLine(n)).filter((line) => {
        if (filter.stream !== 'all' && line.stream !== filter.stream) return false;
        return filter.regex ? new RegExp(filter.text, 'i').test(line.text) : line.text.toLowerCase().includes(filter.text.toLowerCase());
      });
      const matching = matches ? matches.length : this.logTotal;
      const from = r?.from === undefined || r.from === -1 ? Math.max(0, matching - count) : Math.min(r.from, matching);
      const to = Math.min(matching, from + count);
      const lines = matches ? matches.slice(from, to) : Array.from({ length: to - from }, (_, i) => fakeLogLine(from + i));
      return { total: this.logTotal, matching, from, lines, following: this.logFollowing };
    },
    'logs:export': () => ({ path: '/home/u/Downloads/agentswarm-log-local-abc-2026-12-03T15-00-00.txt', lines: this.logTotal, bytes: this.logTotal * 10 }),
    'logs:server-log': () => structuredClone(this.serverLogTail),
    // ---- training (issue 13, training helper): what a test put in trainingViews / trainingSeries.
    'training:views': () => structuredClone(this.trainingViews),
    // The page's reports to the backend's pollers: recorded in `calls`, answered as a backend would.
    'app:visibility': (r) => ({ shown: r?.shown ?? false }),
    'training:interest': (r) => ({ interested: r?.shown ?? false }),
    'training:view': (r) => {
      const view = this.trainingViews.find((v) => v.engineId === r?.engineId && v.containerId === r?.containerId);
      // What the backend answers for a server its monitor does not poll.
      if (!view) throw { code: 'CONTAINER_NOT_FOUND', message: `The training monitor does not watch ${r?.containerId}.` } satisfies AppErrorShape;
      return structuredClone(view);
    },
    'training:series': (r) =>
      structuredClone(
        this.trainingSeries.find((s) => s.engineId === r?.engineId && s.containerId === r?.containerId) ?? {
          engineId: r?.engineId ?? 'local',
          containerId: r?.containerId ?? 'missing',
          runId: null,
          points: [],
          timeline: [],
        },
      ),
    // ---- end training
    // ---- doctor/pull (issue 13): reports and pulls kept in `doctorReports` / `pullViews`.
    'doctor:reports': () => structuredClone(this.doctorReports),
    'doctor:run': (r) => {
      const report = this.doctorAnswer?.(r?.profileId ?? '') ?? makeDoctorReport(r?.profileId ?? 'missing-profile-id');
      this.doctorReports = [...this.doctorReports.filter((x) => x.profileId !== report.profileId), report];
      return structuredClone(report);
    },
    'images:pulls': () => structuredClone(this.pullViews),
    'images:pull': (r) => {
      const running = this.pullViews.find((p) => p.engineId === r?.engineId && p.image === r?.image && !['done', 'failed', 'cancelled'].includes(p.phase));
      if (running) return structuredClone(running);
      const pull = makePull({ pullId: `pull-${this.nextId++}`, engineId: r?.engineId ?? 'missing-engine-id', image: r?.image ?? '' });
      this.pullViews.push(pull);
      return structuredClone(pull);
    },
    'images:cancel-pull': (r) => {
      const pull = this.pullViews.find((p) => p.pullId === r?.pullId);
      if (!pull) throw new Error('fake: cancel of an unknown pull');
      Object.assign(pull, { phase: 'cancelled', endedAt: new Date().toISOString(), etaSeconds: null });
      return structuredClone(pull);
    },
    // ---- end doctor/pull
    'servers:list': () => this.serverCopies(),
    'servers:add': (r) => {
      // Defaults filled in like the backend's validation does.
      const profile = ServerProfileInput.parse(r);
      const id = profile.label.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+/, '') || 'server';
      const view = makeServerView({ ...profile, id });
      this.serverViews.push(view);
      const endpoint = `ssh://${profile.username}@${profile.host}:${profile.port}`;
      this.engineList.push({ id: view.engineId, kind: 'ssh-docker', label: profile.label, endpoint });
      this.emit('engines:changed', {});
      return structuredClone(view);
    },
    'servers:update': (r) => {
      const view = this.serverOrThrow(r?.serverId);
      view.profile = { ...ServerProfileInput.parse(r?.profile), id: view.profile.id };
      return structuredClone(view);
    },
    'servers:remove': (r) => {
      const view = this.serverOrThrow(r?.serverId);
      this.serverViews = this.serverViews.filter((s) => s !== view);
      this.engineList = this.engineList.filter((e) => e.id !== view.engineId);
      this.emit('engines:changed', {});
      return { removed: true as const };
    },
    'servers:connect': (r) => {
      const view = this.serverOrThrow(r?.serverId);
      view.state = 'connecting';
      return structuredClone(view);
    },
    'servers:disconnect': (r) => {
      const view = this.serverOrThrow(r?.serverId);
      Object.assign(view, { state: 'disconnected', tunnels: [], reason: null, nextRetryAt: null });
      return structuredClone(view);
    },
    'servers:test': (r) => this.diagnosticsReport ?? passingReport(r?.serverId ?? 'missing'),
    'servers:trust-host-key': (r) => {
      const view = this.serverOrThrow(r?.serverId);
      Object.assign(view, { hostKey: null, state: 'connecting' });
      return structuredClone(view);
    },
    'servers:replace-host-key': (r) => {
      const view = this.serverOrThrow(r?.serverId);
      Object.assign(view, { hostKey: null, state: 'connecting' });
      return structuredClone(view);
    },
    'servers:answer-prompt': (r) => {
      const view = this.serverViews.find((s) => s.prompt?.promptId === r?.promptId);
      if (view) view.prompt = null;
      return { accepted: true as const };
    },
    'servers:ssh-config': () => structuredClone(this.sshConfigListing),
    'settings:get': () => this.settingsValue,
    'settings:status': () => ({ ...this.settingsStatus }),
    'settings:update': (r) => {
      // Section by section, like the backend's merge: no list of known sections here either.
      const next: Record<string, unknown> = { ...this.settingsValue };
      for (const [key, value] of Object.entries(r ?? {})) {
        const before = next[key];
        next[key] = typeof before === 'object' && before !== null && typeof value === 'object' ? { ...before, ...value } : value;
      }
      this.settingsValue = next as Settings;
      return this.settingsValue;
    },
  };

  constructor() {
    const layout = buildLayoutApi((channel, request) => this.respond(channel, request as never));
    Object.assign(this, layout, {
      app: {
        ...layout.app,
        rendererReady: () => {
          this.rendererReadyCalls += 1;
        },
      },
      events: {
        on: (channel: EventChannel, listener: (payload: never) => void) => {
          const set = this.listeners.get(channel) ?? new Set();
          this.listeners.set(channel, set);
          const untyped = listener as (payload: unknown) => void;
          set.add(untyped);
          return () => set.delete(untyped);
        },
      },
    } satisfies Pick<ExposedApi, 'app' | 'events'>);
  }

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
    // As the backend's store does: news of a server's status or list is followed by its new state.
    if (channel === 'swarm:status') {
      const status = payload as SwarmStatus;
      this.serverStates.pushedStatus(status);
      const state = this.serverStates.one(status.engineId, status.containerId);
      if (state) this.emit('fleet:state-changed', state);
    } else if (channel === 'swarm:containers-changed' || channel === 'profiles:changed') {
      for (const state of this.serverStates.all()) this.emit('fleet:state-changed', state);
    }
  }

  /** Sends the current profiles as a profiles:changed snapshot (profiles block). */
  pushProfiles(): void {
    this.emit('profiles:changed', this.profileCopies());
  }

  private profileCopies(): ProfileView[] {
    return this.profileViews.map((view) => structuredClone(view));
  }

  private profileOrThrow(profileId: string | undefined): ProfileView {
    const view = this.profileViews.find((v) => v.profile.id === profileId);
    if (!view) throw new Error(`fake: unknown profile ${profileId}`);
    return view;
  }

  private startProfile(profileId: string | undefined, secrets: Record<string, string>): ProfileView {
    const view = this.profileOrThrow(profileId);
    const known = new Set([...view.runtime.secretsKnown, ...Object.keys(secrets)]);
    view.runtime.secretsKnown = view.profile.secretEnv.filter((n) => known.has(n));
    view.runtime.container = this.makeContainer({ engineId: view.profile.engineId, image: view.profile.image, port: view.profile.port });
    view.runtime.drifted = false;
    view.runtime.containerConfigHash = view.runtime.configHash;
    queueMicrotask(() => this.emit('swarm:containers-changed', { engineId: view.profile.engineId }));
    return structuredClone(view);
  }

  /** What the backend says after a stop on request: the monitor's final status, then a changed list. */
  private announceStop(container: SwarmContainer): void {
    const exit = { kind: 'stopped' as const, code: 143, finishedAt: new Date().toISOString(), log: { lines: [], explains: false } };
    const stopped = makeStatus(container.id, { engineId: container.engineId, connection: 'stopped', engineStatus: null, exit });
    queueMicrotask(() => {
      this.emit('swarm:status', stopped);
      this.emit('swarm:containers-changed', { engineId: container.engineId });
    });
  }

  /** Sends the current servers as a servers:changed snapshot, like the backend after every change. */
  pushServers(): void {
    this.emit('servers:changed', this.serverCopies());
  }

  private serverCopies(): ServerView[] {
    return this.serverViews.map((view) => structuredClone(view));
  }

  private serverOrThrow(serverId: string | undefined): ServerView {
    const view = this.serverViews.find((s) => s.profile.id === serverId);
    if (!view) throw new Error(`fake: unknown server ${serverId}`);
    return view;
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

  /**
   * Installs (or replaces) the answer on one channel. Domain fakes live in their own files
   * (`test/renderer/fakes/<domain>.ts`, e.g. `installVaultFake(api)`) and call this, so parallel
   * work does not edit this file.
   */
  answer<C extends InvokeChannel>(channel: C, producer: Producer<C>): void {
    (this.producers as Record<string, unknown>)[channel] = producer;
  }

  private respond<C extends InvokeChannel>(channel: C, request: InvokeInput<C> | undefined): Promise<Result<InvokeResponse<C>>> {
    this.calls.push({ channel, request });
    const failure = this.failures.get(channel);
    const hold = this.holds.get(channel) ?? Promise.resolve();
    return hold.then(() => {
      if (failure) {
        this.failures.delete(channel);
        return { ok: false, error: failure };
      }
      const produce = this.producers[channel] as Producer<C> | undefined;
      if (!produce) return { ok: false, error: { code: 'INTERNAL', message: `fake API: no answer for ${channel} (add a row to producers)` } };
      try {
        return { ok: true, value: produce(request) };
      } catch (thrown) {
        // A producer answers an error envelope by throwing an AppError shape (as the backend's handlers throw AppError).
        if (isErrorShape(thrown)) return { ok: false, error: { code: thrown.code, message: thrown.message } };
        throw thrown;
      }
    });
  }
}

function isErrorShape(value: unknown): value is AppErrorShape {
  return typeof value === 'object' && value !== null && typeof (value as AppErrorShape).code === 'string' && typeof (value as AppErrorShape).message === 'string';
}

/** The fake's own controls plus the whole `ExposedApi`, every method built from `apiLayout`. */
export type FakeApi = FakeBackend & ExposedApi;
// The constructor adds the layout's methods with Object.assign, which the class type cannot show.
export const FakeApi = FakeBackend as unknown as new () => FakeApi;

/** Line `n` of the fake's generated log. */
export function fakeLogLine(n: number): LogLine {
  return { n, stream: n % 10 === 9 ? 'stderr' : 'stdout', time: '2026-12-03T15:00:00.000000000Z', text: `line ${n}` };
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

/** A server as the backend lists it: disconnected, no question, no prompt, no tunnel. */
export function makeServerView(profile: Partial<ServerProfile> = {}, overrides: Partial<ServerView> = {}): ServerView {
  const full: ServerProfile = {
    id: 'gpu-box',
    label: 'gpu-box',
    host: 'gpu.example.org',
    port: 22,
    username: 'alice',
    authMethods: ['agent', 'key', 'password', 'keyboard-interactive'],
    identityFiles: [],
    identitiesOnly: false,
    jumps: [],
    docker: { engine: 'docker', transport: 'socket', socketPath: '/var/run/docker.sock' },
    tunnelLocalPort: 10086,
    importedFrom: null,
    ...profile,
  };
  return {
    profile: full,
    engineId: engineIdOfServer(full.id),
    state: 'disconnected',
    reason: null,
    attempt: 0,
    nextRetryAt: null,
    connectedSince: null,
    authMethod: null,
    hostKey: null,
    prompt: null,
    tunnels: [],
    ...overrides,
  };
}

export function makeTunnel(overrides: Partial<TunnelView> = {}): TunnelView {
  return {
    remotePort: 10086,
    requestedLocalPort: 10086,
    localPort: 10086,
    url: 'http://127.0.0.1:10086',
    portTakenBy: null,
    portWasTaken: false,
    probe: { ok: true, engineStatus: 'ENGINE.OFFLINE', error: null, latencyMs: 3, checkedAt: '2026-12-03T12:00:00.000Z' },
    links: [
      { link: 'ssh', ok: true, detail: 'alice@gpu.example.org:22' },
      { link: 'local-port', ok: true, detail: '127.0.0.1:10086' },
      { link: 'remote-container', ok: true, detail: 'agentjet-swarm-10086 running' },
      { link: 'swarm-api', ok: true, detail: 'ENGINE.OFFLINE in 3 ms' },
    ],
    sshCommand: 'ssh -N -L 127.0.0.1:10086:127.0.0.1:10086 alice@gpu.example.org -p 22',
    openSockets: 0,
    ...overrides,
  };
}

function passingReport(serverId: string): DiagnosticsReport {
  const stages = ['tcp', 'handshake', 'host-key', 'auth', 'docker-version', 'docker-permission', 'gpus'] as const;
  return {
    serverId,
    target: 'alice@gpu.example.org:22',
    stages: stages.map((stage) => ({ stage, status: 'pass' as const, detail: null, error: null, fix: null, durationMs: 1 })),
    finishedAt: '2026-12-03T12:00:00.000Z',
  };
}

/** A training view as the monitor sends it: OFFLINE, nothing collected, no error. */
export function makeTrainingView(containerId: string, overrides: Partial<TrainingView> = {}): TrainingView {
  return {
    engineId: 'local',
    containerId,
    runId: null,
    engineStatus: 'ENGINE.OFFLINE',
    statusSince: new Date(Date.now() - 5000).toISOString(),
    bootingSeconds: null,
    globalStep: null,
    modelPath: null,
    sampleCollectionMethod: null,
    episodes: null,
    tasks: null,
    nonDummyTasks: null,
    expectedRepeat: null,
    runningEpisodes: [],
    taskRewards: [],
    rewardMean: null,
    rewardStd: null,
    activeClients: [],
    missingRoutes: [],
    lastError: null,
    checkedAt: new Date().toISOString(),
    ...overrides,
  };
}
// ---- doctor/pull (issue 13)

/** One doctor check as the backend words it; `pass` unless overridden. */
export function makeDoctorCheck(id: DoctorCheck['id'], overrides: Partial<DoctorCheck> = {}): DoctorCheck {
  return { id, status: 'pass', detail: `${id} is fine.`, fix: null, command: null, commandWhere: null, ...overrides };
}

/** A Docker engine's report (Podman's own checks are left out of those) with every check passing, unless `checks` replaces some by id. */
export function makeDoctorReport(profileId: string, overrides: Partial<DoctorReport> = {}, checks: DoctorCheck[] = []): DoctorReport {
  const podmanOnly: readonly DoctorCheck['id'][] = [...PODMAN_DOCTOR_CHECKS, ...ROOTLESS_PODMAN_DOCTOR_CHECKS, ...SLURM_DOCTOR_CHECKS];
  const all = DoctorCheckId.options.filter((id) => !podmanOnly.includes(id)).map((id) => checks.find((c) => c.id === id) ?? makeDoctorCheck(id));
  const verdict = all.some((c) => c.status === 'fail') ? 'fail' : all.some((c) => c.status === 'warn') ? 'warn' : 'pass';
  return { profileId, engineId: 'local', ranAt: new Date().toISOString(), durationMs: 1234, verdict, checks: all, ...overrides };
}

/** A pull just started (resolving), unless overridden. */
export function makePull(overrides: Partial<PullView> = {}): PullView {
  return {
    pullId: 'pull-1',
    engineId: 'local',
    image: 'ghcr.io/modelscope/agentjet:main',
    phase: 'resolving',
    percent: null,
    layersDone: 0,
    layersTotal: 0,
    bytesDone: 0,
    bytesTotal: 0,
    etaSeconds: null,
    startedAt: new Date().toISOString(),
    endedAt: null,
    error: null,
    ...overrides,
  };
}

/** A swarm profile view as the backend sends it (profiles block): not started, no drift. */
export function makeProfileView(profile: Partial<Profile> = {}, runtime: Partial<ProfileView['runtime']> = {}): ProfileView {
  return {
    profile: {
      ...ProfileInput.parse({ label: 'Qwen 7B', engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' }),
      id: 'qwen-7b',
      createdAt: '2026-12-03T00:00:00.000Z',
      updatedAt: '2026-12-03T00:00:00.000Z',
      ...profile,
    },
    runtime: { container: null, drifted: false, configHash: 'aaaaaaaaaaaaaaaa', containerConfigHash: null, secretsKnown: [], ...runtime },
  };
}
