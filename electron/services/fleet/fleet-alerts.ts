import type { AlertThresholds, GpuSample } from '../../shared/schemas-fleet';
import type { TrainingSeries, TrainingView } from '../../shared/schemas-profiles';
import type { ServerState } from '../../shared/server-state';
import { holdsGpus } from '../gpus/gpu-targets';
import type { Logger } from '../util/logger';
import type { AlertBook } from './alert-book';
import type { AutoStopper } from './auto-stop';
import { diskVerdict, GpuIdleTracker, NoClientTracker, rewardVerdict, StallTracker, type Verdict } from './alert-rules';

/** Time-based conditions (a spell that lasts) are looked at this often besides every new sample and state. */
const EVALUATE_EVERY_MS = 30_000;
/**
 * An episode kept from before a restart whose server the app has not seen again is resolved after this long:
 * SSH servers and Slurm login nodes reconnect first (resolving it at once would tell it again when it returns).
 */
const RESTORED_GRACE_MS = 10 * 60_000;
const ROLLING = 'ENGINE.ROLLING';

export interface FleetAlertsOptions {
  states: () => ServerState[];
  samples: () => GpuSample[];
  /** The training monitor's views (its public API): active clients. */
  views: () => Promise<TrainingView[]>;
  /** The training monitor's series of one server (its public API): the reward means. */
  series: (engineId: string, containerId: string) => Promise<TrainingSeries | null>;
  thresholds: () => AlertThresholds;
  book: AlertBook;
  nameOf: (state: ServerState) => string;
  /** The server's checkpoint and experiment folders (their disks come with its host's GPU sample). */
  folders?: (state: ServerState) => string[];
  logger: Logger;
  /** Auto-stop, reviewed after each look (it reads the book this look has just fed). */
  autoStop?: Pick<AutoStopper, 'review' | 'dispose'>;
  now?: () => number;
}

interface Trackers {
  idle: GpuIdleTracker;
  stall: StallTracker;
  noClient: NoClientTracker;
  /** The step the reward means were read at (undefined: not read yet, as after a restart). */
  rewardStep: number | null | undefined;
  rewardMeans: (number | null)[];
}

/** The sample that covers a server: its Slurm job's, else its engine's host's. */
export function sampleOf(state: ServerState, samples: readonly GpuSample[]): GpuSample | undefined {
  if (state.engineKind === 'slurm') return samples.find((s) => s.key === state.key);
  return samples.find((s) => s.containerId === null && s.engineIds.includes(state.engineId));
}

/** The disk verdict of a server: its fullest folder in its host's newest sample (no reading: no alert). */
function fullestDisk(sample: GpuSample | undefined, folders: readonly string[], t: AlertThresholds): Verdict {
  const readings = (sample?.disks ?? []).filter((d) => folders.includes(d.path) && d.usedPct !== null);
  const fullest = readings.sort((a, b) => b.usedPct! - a.usedPct!)[0];
  return fullest ? diskVerdict(fullest.usedPct, t, fullest.path) : diskVerdict(null, t);
}

/**
 * Looks at every server's state, its host's GPU sample and the training monitor's numbers, and feeds the alert
 * book: no poller of its own (the samples and states come from their one poller each), only a timer that lets
 * a condition that lasts reach its threshold.
 */
export class FleetAlerts {
  private readonly trackers = new Map<string, Trackers>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private startedAt = 0;
  private started = false;

  constructor(private readonly options: FleetAlertsOptions) {}

  /** Call once the book has read its episodes from disk: looks made before would open (and tell) them again. */
  start(): void {
    this.started = true;
    this.startedAt = this.options.now?.() ?? Date.now();
    this.timer = setInterval(() => void this.evaluate(), EVALUATE_EVERY_MS);
    this.timer.unref?.();
    void this.evaluate();
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.options.autoStop?.dispose();
  }

  /** The idle spell's start of one server (ms), for auto-stop. */
  idleSince(key: string): number | null {
    return this.trackers.get(key)?.idle.idleSince() ?? null;
  }

  /** One look at everything; calls made while one runs are folded into one more. Resolves when done (tests wait on it). */
  evaluate(): Promise<void> {
    // A new sample or state may come while the book still reads its file (the app's start): an episode already told
    // before a restart would look new, be told again, then be replaced by the one read (loaded run L18).
    if (!this.started) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.evaluateOnce()
      .catch((error: unknown) => this.options.logger.warn('could not evaluate the fleet alerts', { message: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          void this.evaluate();
        }
      });
    return this.running;
  }

  private async evaluateOnce(): Promise<void> {
    const now = this.options.now?.() ?? Date.now();
    const t = this.options.thresholds();
    const states = this.options.states();
    const samples = this.options.samples();
    const views = new Map((await this.options.views().catch(() => [] as TrainingView[])).map((v) => [`${v.engineId}:${v.containerId}`, v]));
    for (const key of [...this.trackers.keys()]) {
      const state = states.find((s) => s.key === key);
      if (state && state.phase !== 'ended') continue;
      this.trackers.delete(key);
      const [engineId, ...rest] = key.split(':');
      this.options.book.serverGone(engineId!, rest.join(':'));
    }
    // Episodes of servers that ended while the app was closed, or never came back.
    for (const server of this.options.book.openServers()) {
      const state = states.find((s) => s.engineId === server.engineId && s.containerId === server.containerId);
      if (state ? state.phase === 'ended' : now - this.startedAt >= RESTORED_GRACE_MS) this.options.book.serverGone(server.engineId, server.containerId);
    }
    for (const state of states) {
      if (state.phase === 'ended') continue;
      const tr = this.trackers.get(state.key) ?? { idle: new GpuIdleTracker(), stall: new StallTracker(), noClient: new NoClientTracker(), rewardStep: undefined, rewardMeans: [] };
      this.trackers.set(state.key, tr);
      const server = { engineId: state.engineId, containerId: state.containerId, name: this.options.nameOf(state) };
      const sample = sampleOf(state, samples);
      const utilizations = sample && !sample.error ? sample.gpus.map((g) => g.utilizationPct) : null;
      this.options.book.update('gpus-idle', server, tr.idle.observe(utilizations, holdsGpus(state), now, t));
      const rolling = state.engineStatus === ROLLING;
      const step = state.status?.globalStep ?? null;
      this.options.book.update('training-stalled', server, tr.stall.observe(rolling, step, now, t));
      const view = views.get(state.key);
      this.options.book.update('no-client', server, tr.noClient.observe(rolling, view ? view.activeClients.length : null, now, t));
      // Read at each new step, and once at first (the series is kept on disk: a restart keeps its verdict).
      if (step !== tr.rewardStep && (step !== null || tr.rewardStep === undefined)) {
        tr.rewardStep = step;
        const series = await this.options.series(state.engineId, state.containerId).catch(() => null);
        tr.rewardMeans = series ? series.points.map((p) => p.rewardMean) : [];
      }
      this.options.book.update('reward', server, rewardVerdict(tr.rewardMeans, t));
      this.options.book.update('disk', server, fullestDisk(sample, this.options.folders?.(state) ?? [], t));
    }
    this.options.autoStop?.review(states, views, now);
  }
}
