import type { GpuSample } from '../../shared/schemas-fleet';
import { currentInterval, type PollPace } from '../swarm/poll-schedule';
import type { Logger } from '../util/logger';
import type { GpuTarget } from './gpu-targets';
import { GPU_SAMPLE_TIMEOUT_MS, readSample, sampleScript } from './nvidia-smi';

/** At most every 10 s while a page shows the fleet home, every 60 s otherwise (issue 33's budget). */
export const GPU_SAMPLE_PACE: PollPace = { intervalMs: 10_000, hiddenIntervalMs: 60_000, maxBackoffMs: 60_000 };

export interface GpuSamplerOptions {
  /** What to sample now (from the server-state store: no poller of its own). */
  targets: () => GpuTarget[];
  /** Whether a page shows the fleet home now. */
  homeShown: () => boolean;
  /** Every new sample. */
  sampled: (sample: GpuSample) => void;
  logger: Logger;
  /** The program to run (default `nvidia-smi`, found on the host's PATH). */
  command?: string;
  pace?: PollPace;
  now?: () => number;
}

/**
 * Samples the GPUs of every GPU host the app holds a server on, one `nvidia-smi` at a time per host, over the
 * connection the engine already holds (this computer's shell, the SSH connection, `srun` into a Slurm job). Each
 * host is asked at most once per interval of poll-schedule's pace: 10 s while the fleet home is shown, 60 s else,
 * also across a host's servers coming and going (when it was last asked is remembered).
 */
export class GpuSampler {
  private readonly latest = new Map<string, GpuSample>();
  private readonly lastAt = new Map<string, number>();
  private readonly busy = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly now: () => number;
  private readonly pace: PollPace;

  constructor(private readonly options: GpuSamplerOptions) {
    this.now = options.now ?? Date.now;
    this.pace = options.pace ?? GPU_SAMPLE_PACE;
  }

  start(): void {
    this.stopped = false;
    this.reschedule();
  }

  dispose(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The newest sample of every target sampled now. */
  samples(): GpuSample[] {
    const keys = new Set(this.options.targets().map((t) => t.key));
    return [...this.latest.values()].filter((s) => keys.has(s.key));
  }

  /** The servers or the home's visibility changed: a new host is asked soon, a shown home within its interval. */
  reschedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const targets = this.options.targets();
    if (targets.length === 0) {
      this.timer = null;
      return;
    }
    const now = this.now();
    const next = Math.min(...targets.map((t) => this.dueAt(t.key)));
    this.timer = setTimeout(() => void this.sampleDue().finally(() => this.reschedule()), Math.max(0, next - now));
    this.timer.unref?.();
  }

  /** One round: every target that is due. Exposed for tests. */
  async sampleDue(): Promise<void> {
    const now = this.now();
    const due = this.options.targets().filter((t) => !this.busy.has(t.key) && this.dueAt(t.key) <= now);
    await Promise.all(due.map((t) => this.sampleOne(t)));
  }

  private dueAt(key: string): number {
    const last = this.lastAt.get(key);
    return last === undefined ? this.now() : last + currentInterval(this.pace, this.options.homeShown());
  }

  private async sampleOne(target: GpuTarget): Promise<void> {
    this.busy.add(target.key);
    this.lastAt.set(target.key, this.now());
    let sample: GpuSample;
    const base = { key: target.key, engineId: target.engineId, engineIds: target.engineIds, containerId: target.containerId, hostLabel: target.hostLabel, hostKind: target.hostKind };
    try {
      const result = await target.exec(sampleScript(this.options.command ?? 'nvidia-smi', target.containerId, target.folders), { timeoutMs: GPU_SAMPLE_TIMEOUT_MS });
      sample = { ...base, at: new Date(this.now()).toISOString(), ...readSample(result, target.folders) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      sample = { ...base, at: new Date(this.now()).toISOString(), gpus: [], error: { kind: 'unreachable', message } };
    } finally {
      this.busy.delete(target.key);
    }
    const before = this.latest.get(target.key);
    if (sample.error && before?.error?.kind !== sample.error.kind) {
      this.options.logger.info?.('could not sample the GPUs of a host', { host: target.hostLabel, kind: sample.error.kind, message: sample.error.message });
    }
    this.latest.set(target.key, sample);
    if (!this.stopped) this.options.sampled(sample);
  }
}
