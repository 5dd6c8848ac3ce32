import { randomUUID } from 'node:crypto';
import { AppError } from '../../shared/errors';
import type { PullView } from '../../shared/schemas-profiles';
import type { EngineRegistry } from '../engines/engine-registry';
import type { EventSink } from '../events';
import type { Logger } from '../util/logger';
import { PullProgress } from './pull-progress';

/** At most this many progress events per pull per second (phase changes and the last one always go out). */
export const PULL_EVENT_INTERVAL_MS = 200;
/** How long an ended pull stays listed, so a window opened later still shows how it ended. */
export const PULL_KEEP_MS = 10 * 60_000;

interface RunningPull {
  view: PullView;
  controller: AbortController;
  progress: PullProgress;
  settled: Promise<void>;
  lastEmit: number;
  timer: NodeJS.Timeout | null;
}

export interface PullManagerOptions {
  engines: EngineRegistry;
  events: EventSink;
  logger?: Logger;
  now?: () => number;
  keepMs?: number;
  eventIntervalMs?: number;
}

function isEnded(view: PullView): boolean {
  return view.phase === 'done' || view.phase === 'failed' || view.phase === 'cancelled';
}

/**
 * The image pulls of every engine: one per engine+image at a time (a second request joins it),
 * progress aggregated per pull and pushed as `images:pull-progress` snapshots, throttled.
 */
export class PullManager {
  private readonly pulls = new Map<string, RunningPull>();
  private readonly forgetTimers = new Set<NodeJS.Timeout>();
  private readonly now: () => number;
  private disposed = false;

  constructor(private readonly options: PullManagerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Starts pulling (or joins the running pull of the same image on that engine) and answers at once. */
  start(engineId: string, image: string): PullView {
    const engine = this.options.engines.get(engineId);
    for (const pull of this.pulls.values()) {
      // Two windows (or two clicks) asking for the same image: one download, both follow it.
      if (pull.view.engineId === engineId && pull.view.image === image && !isEnded(pull.view)) return { ...pull.view };
    }
    const controller = new AbortController();
    const progress = new PullProgress(this.now);
    const view: PullView = {
      pullId: `pull-${randomUUID()}`,
      engineId,
      image,
      phase: 'resolving',
      percent: null,
      layersDone: 0,
      layersTotal: 0,
      bytesDone: 0,
      bytesTotal: 0,
      etaSeconds: null,
      startedAt: new Date(this.now()).toISOString(),
      endedAt: null,
      error: null,
    };
    const pull: RunningPull = { view, controller, progress, settled: Promise.resolve(), lastEmit: 0, timer: null };
    this.pulls.set(view.pullId, pull);
    this.options.logger?.info?.(`pull ${view.pullId}: ${image} on ${engineId}`);
    pull.settled = engine
      .pullImage(
        image,
        (event) => {
          if (isEnded(pull.view)) return;
          const phaseChanged = pull.progress.apply(event);
          Object.assign(pull.view, pull.progress.snapshot());
          this.emit(pull, phaseChanged);
        },
        controller.signal,
      )
      .then(
        () => this.end(pull, { phase: 'done' }),
        (error: unknown) => this.end(pull, controller.signal.aborted ? { phase: 'cancelled' } : { phase: 'failed', error }),
      );
    this.emit(pull, true);
    return { ...view };
  }

  /** Cancels a running pull and answers once it has stopped; an ended one is answered as it is. */
  async cancel(pullId: string): Promise<PullView> {
    const pull = this.pulls.get(pullId);
    if (!pull) throw new AppError('PULL_NOT_FOUND', `No image pull with id ${pullId}: it ended more than ${Math.round((this.options.keepMs ?? PULL_KEEP_MS) / 60_000)} minutes ago, or the app restarted. Start it again.`);
    if (!isEnded(pull.view)) pull.controller.abort();
    await pull.settled;
    return { ...pull.view };
  }

  list(): PullView[] {
    return [...this.pulls.values()].map((p) => ({ ...p.view })).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  }

  dispose(): void {
    this.disposed = true;
    for (const pull of this.pulls.values()) {
      if (pull.timer) clearTimeout(pull.timer);
      if (!isEnded(pull.view)) pull.controller.abort();
    }
    for (const timer of this.forgetTimers) clearTimeout(timer);
    this.forgetTimers.clear();
  }

  private end(pull: RunningPull, outcome: { phase: 'done' | 'cancelled' } | { phase: 'failed'; error: unknown }): void {
    const { view } = pull;
    Object.assign(view, pull.progress.snapshot());
    view.phase = outcome.phase;
    view.endedAt = new Date(this.now()).toISOString();
    view.etaSeconds = null;
    if (outcome.phase === 'done') {
      view.percent = 100;
      view.layersDone = view.layersTotal;
      view.bytesDone = view.bytesTotal;
    }
    if (outcome.phase === 'failed') {
      const error =
        outcome.error instanceof AppError
          ? outcome.error
          : new AppError('IMAGE_PULL_FAILED', `Pulling ${view.image} failed: ${(outcome.error as Error)?.message ?? String(outcome.error)}`);
      view.error = { code: error.code, message: error.message };
      this.options.logger?.warn?.(`pull ${view.pullId} of ${view.image} failed: ${error.code} ${error.message}`);
    } else {
      this.options.logger?.info?.(`pull ${view.pullId} of ${view.image}: ${view.phase}`);
    }
    this.emit(pull, true);
    // Pulls aborted by dispose() end after it: no timer may outlive the manager.
    if (this.disposed) return;
    const timer = setTimeout(() => {
      this.forgetTimers.delete(timer);
      this.pulls.delete(view.pullId);
    }, this.options.keepMs ?? PULL_KEEP_MS);
    timer.unref?.();
    this.forgetTimers.add(timer);
  }

  /** Sends the view now (phase change, first or last) or at the end of the current interval. */
  private emit(pull: RunningPull, now: boolean): void {
    const interval = this.options.eventIntervalMs ?? PULL_EVENT_INTERVAL_MS;
    const send = () => {
      pull.timer = null;
      pull.lastEmit = this.now();
      this.options.events.emit('images:pull-progress', { ...pull.view });
    };
    if (now || this.now() - pull.lastEmit >= interval) {
      if (pull.timer) clearTimeout(pull.timer);
      send();
      return;
    }
    // A trailing send, so the last progress before a quiet spell is not lost.
    pull.timer ??= setTimeout(send, interval - (this.now() - pull.lastEmit));
  }
}
