import type { TrainingSeries, TrainingView } from '../../shared/schemas-training';
import type { RunEndKind } from '../../shared/schemas-runs';
import { serverKey, type ServerState } from '../../shared/server-state';
import { BOOTING, isTraining, OFFLINE } from '../training/run-tracker';
import type { Logger } from '../util/logger';
import { collectScripts, countGpus, readSyncedYaml, serverFacts, type RunContextPorts } from './run-context';
import type { StoredRun } from './run-stats';
import type { RunStore } from './run-store';

export interface RunRecorderOptions {
  store: RunStore;
  ports: RunContextPorts;
  /** The server-state store's snapshot of one server. */
  state(key: string): ServerState | undefined;
  /** The training monitor's series of a server's current (or last) run. */
  series(engineId: string, containerId: string): Promise<TrainingSeries>;
  /** Runs were added, changed or deleted. */
  changed(runIds: string[]): void;
  logger: Logger;
  now?: () => number;
  /** OFFLINE must last this long before the run ends as the engine's own end: a server ending meanwhile names it (default 5000). */
  endGraceMs?: number;
  /** A view change is read into the run this long after it (later changes fold in; default 2000). */
  refreshMs?: number;
}

interface OpenRun {
  key: string;
  run: StoredRun;
  /** Reached a training status (else an OFFLINE ends it as a failed boot). */
  trained: boolean;
  offlineAt: number | null;
  endTimer: NodeJS.Timeout | null;
  refreshTimer: NodeJS.Timeout | null;
  /** Reads of the YAML and scripts so far: asked again on each refresh until found, a bounded number of times. */
  tries: number;
  digestAsked: boolean;
  /** This run's refreshes and its end, one at a time. */
  chain: Promise<void>;
  ending: boolean;
}

/** Reads of the YAML and the scripts per run before the app stops asking (a server that never writes them). */
const MAX_CONTEXT_TRIES = 30;

/**
 * Keeps a run per training run, from what the app already follows: the training monitor's views
 * (`training:changed`: a run id, the engine status, the step) open, refresh and end runs; the server
 * states (`fleet:state-changed`) name how a server ended. Each refresh reads the monitor's series (in
 * memory) into the run and writes it. No poller of its own: nothing happens without an event.
 */
export class RunRecorder {
  private readonly open = new Map<string, OpenRun>();
  /** Ends still being written (their run has left `open`). */
  private readonly closing = new Set<Promise<void>>();
  private disposed = false;

  constructor(private readonly options: RunRecorderOptions) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Runs that were going on when the backend stopped are followed again (their server says whether they still are). */
  async start(): Promise<void> {
    for (const entry of this.options.store.entries()) {
      if (entry.run.endedAt !== null) continue;
      const run = await this.options.store.read(entry.run.runId);
      if (!run) continue;
      const key = serverKey(run.engineId, run.containerId);
      this.open.set(key, this.openRun(key, run, run.points.length > 0 || run.timeline.some((s) => isTraining(s.status))));
      const state = this.options.state(key);
      if (state) this.stateChanged(state);
    }
  }

  openRunIds(): Set<string> {
    return new Set([...this.open.values()].map((o) => o.run.runId));
  }

  /** Whether a run goes on now (a run being deleted must not be written again). */
  isOpen(runId: string): boolean {
    return [...this.open.values()].some((o) => o.run.runId === runId);
  }

  private openRun(key: string, run: StoredRun, trained: boolean): OpenRun {
    return { key, run, trained, offlineAt: null, endTimer: null, refreshTimer: null, tries: 0, digestAsked: run.imageDigest !== null, chain: Promise.resolve(), ending: false };
  }

  trainingChanged(view: TrainingView): void {
    if (this.disposed) return;
    const key = serverKey(view.engineId, view.containerId);
    let open = this.open.get(key);
    const status = view.engineStatus;
    const active = status === BOOTING || isTraining(status);
    if (view.runId && active && (!open || open.run.runId !== view.runId)) {
      if (open) this.end(open, 'engine-stopped', null, this.now());
      open = this.begin(key, view);
      if (!open) return;
    }
    if (!open || (view.runId !== null && view.runId !== open.run.runId)) return;
    if (active) {
      open.offlineAt = null;
      if (open.endTimer) clearTimeout(open.endTimer);
      open.endTimer = null;
      if (isTraining(status)) open.trained = true;
      this.scheduleRefresh(open);
    } else if (status === OFFLINE && open.offlineAt === null) {
      open.offlineAt = this.now();
      const target = open;
      open.endTimer = setTimeout(() => this.graceOver(target), this.options.endGraceMs ?? 5000);
    }
  }

  private begin(key: string, view: TrainingView): OpenRun | undefined {
    const runId = view.runId!;
    const kept = this.options.store.entry(runId);
    // A run the store already ended (an old view replayed after a restart) is not opened again.
    if (kept && kept.run.endedAt !== null) return undefined;
    const state = this.options.state(key);
    const profile = state?.container.profileId ? this.options.ports.profile(state.container.profileId) : undefined;
    const facts = state ? serverFacts(state, profile) : { engineKind: null, serverName: view.containerId.slice(0, 12), profileId: null, profileLabel: null, image: null };
    const since = view.engineStatus === BOOTING && view.statusSince ? view.statusSince : new Date(this.now()).toISOString();
    const run: StoredRun = {
      version: 1,
      runId,
      engineId: view.engineId,
      containerId: view.containerId,
      ...facts,
      imageDigest: null,
      startedAt: since,
      endedAt: null,
      endKind: null,
      endCode: null,
      gpus: null,
      gpuSource: null,
      yaml: null,
      yamlNote: null,
      yamlPath: null,
      yamlSha256: null,
      scripts: [],
      points: [],
      timeline: [],
    };
    const open = this.openRun(key, run, isTraining(view.engineStatus));
    this.open.set(key, open);
    this.options.logger.info?.('training run kept', { runId, engineId: view.engineId, containerId: view.containerId });
    return open;
  }

  stateChanged(state: ServerState): void {
    const open = this.open.get(state.key);
    if (!open || this.disposed) return;
    if (state.phase === 'ended') this.end(open, state.end?.kind ?? 'lost', state.end?.code ?? null, endTime(open, state));
  }

  stateRemoved(key: string): void {
    const open = this.open.get(key);
    if (open) this.end(open, 'lost', null, open.offlineAt ?? this.now());
  }

  /** OFFLINE held: the engine's own end, unless the server ended or is being stopped meanwhile. */
  private graceOver(open: OpenRun): void {
    open.endTimer = null;
    if (this.open.get(open.key) !== open || open.offlineAt === null) return;
    const state = this.options.state(open.key);
    if (state?.phase === 'ended') return this.stateChanged(state);
    const kind: RunEndKind = state?.phase === 'stopping' ? 'stopped' : open.trained ? 'engine-stopped' : 'boot-failed';
    this.end(open, kind, null, open.offlineAt);
  }

  private scheduleRefresh(open: OpenRun): void {
    if (open.refreshTimer || open.ending) return;
    open.refreshTimer = setTimeout(() => {
      open.refreshTimer = null;
      open.chain = open.chain.then(() => this.refresh(open));
    }, this.options.refreshMs ?? 2000);
  }

  /** Reads what the app knows of the run now (series, YAML, scripts, GPUs, image) and writes it. */
  private async refresh(open: OpenRun): Promise<void> {
    if (this.disposed) return;
    const { run } = open;
    const state = this.options.state(open.key);
    const ports = this.options.ports;
    try {
      if (state) {
        const profile = state.container.profileId ? ports.profile(state.container.profileId) : undefined;
        Object.assign(run, serverFacts(state, profile));
        const gpus = countGpus(state, profile, ports.gpuSamples());
        if (gpus.gpus !== null && (run.gpus === null || gpus.gpus > run.gpus)) Object.assign(run, { gpus: gpus.gpus, gpuSource: gpus.source });
        if (!open.digestAsked && run.image) {
          open.digestAsked = true;
          run.imageDigest = await ports.imageDigest(run.engineId, run.image).catch(() => null);
        }
        if (open.tries < MAX_CONTEXT_TRIES && (run.yaml === null || run.scripts.length === 0)) {
          open.tries += 1;
          if (run.yaml === null) Object.assign(run, await readSyncedYaml(ports, state));
          if (run.scripts.length === 0) run.scripts = await collectScripts(ports, run.engineId, run.containerId, run.endedAt ? Date.parse(run.endedAt) : this.now());
        }
      }
      const series = await this.options.series(run.engineId, run.containerId);
      if (series.runId === run.runId) {
        run.points = series.points;
        run.timeline = series.timeline;
        const first = series.timeline[0]?.from;
        if (first && first < run.startedAt) run.startedAt = first;
      }
    } catch (error) {
      this.options.logger.warn('could not read a training run', { runId: run.runId, message: error instanceof Error ? error.message : String(error) });
    }
    if (this.disposed) return;
    await this.options.store.save(run);
    this.options.changed([run.runId]);
  }

  private end(open: OpenRun, kind: RunEndKind, code: number | null, atMs: number): void {
    if (open.ending) return;
    open.ending = true;
    if (open.endTimer) clearTimeout(open.endTimer);
    if (open.refreshTimer) clearTimeout(open.refreshTimer);
    open.endTimer = open.refreshTimer = null;
    if (this.open.get(open.key) === open) this.open.delete(open.key);
    open.chain = open.chain.then(async () => {
      // The last steps first, then the end (a refresh writes the run whole).
      open.run.endedAt = new Date(Math.max(atMs, Date.parse(open.run.startedAt))).toISOString();
      open.run.endKind = kind;
      open.run.endCode = code;
      await this.refresh(open);
      const dropped = await this.options.store.prune(this.openRunIds());
      if (dropped.length > 0) this.options.changed(dropped);
      this.options.logger.info?.('training run ended', { runId: open.run.runId, kind });
    });
    const closing = open.chain;
    this.closing.add(closing);
    void closing.then(() => this.closing.delete(closing));
  }

  /** Waits for every refresh and end queued so far (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.open.values()].map((o) => o.chain));
    await Promise.all([...this.closing]);
    await this.options.store.flush();
  }

  async dispose(): Promise<void> {
    for (const open of this.open.values()) {
      if (open.endTimer) clearTimeout(open.endTimer);
      if (open.refreshTimer) clearTimeout(open.refreshTimer);
    }
    await Promise.all([...this.open.values()].map((o) => o.chain));
    await Promise.all([...this.closing]);
    this.disposed = true;
    // What the last refresh did not write yet (its timer was cleared): the run as it stands.
    for (const open of this.open.values()) void this.options.store.save(open.run);
    await this.options.store.flush();
  }
}

/** When training ended: the engine's OFFLINE if it came first, else the server's end. */
function endTime(open: OpenRun, state: ServerState): number {
  const finished = state.end?.finishedAt ? Date.parse(state.end.finishedAt) : NaN;
  const candidates = [open.offlineAt, Number.isFinite(finished) ? finished : null].filter((n): n is number => n !== null);
  return candidates.length > 0 ? Math.min(...candidates) : Date.now();
}
