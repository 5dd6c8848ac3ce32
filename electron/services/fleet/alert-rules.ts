import type { AlertRule, AlertThresholds, FleetAlertSay } from '../../shared/schemas-fleet';
import type { AppNotification } from '../../shared/schemas-profiles';

/**
 * The fleet alerts' conditions (issue 33), pure: each tracker is fed what was observed with the time it was
 * observed, and says whether its condition holds now and since when. Tested with injected clocks.
 */

const MINUTE = 60_000;

export interface Verdict {
  active: boolean;
  /** English, for the desktop notification and the app log ("4 GPUs under 5 % for 15 min"). */
  detail: string;
  /** The same as data, for the page's words (`fleet.say.<key>`); set whenever `active`. */
  say?: FleetAlertSay;
  /**
   * Not active, yet the condition holds (only not long enough yet: a spell counted anew after a restart), or
   * cannot be seen now (no sample yet, the host did not answer): an open episode stays open.
   */
  holding?: boolean;
  /** The notification as its source words it (the Slurm time-limit warning keeps its own kind and sentences). */
  notice?: { kind: AppNotification['kind']; title: string; body: string };
}

const QUIET: Verdict = { active: false, detail: '' };

function say(key: string, params: FleetAlertSay['params']): FleetAlertSay {
  return { key, params };
}
/** The condition holds, or is not known now: an open episode stays open, none opens. */
const HOLDING: Verdict = { active: false, detail: '', holding: true };

/** GPUs idle: every GPU the server holds under `idlePct` for `idleMinutes`, while it holds them. */
export class GpuIdleTracker {
  private since: number | null = null;

  observe(utilizations: readonly (number | null)[] | null, holding: boolean, now: number, t: AlertThresholds): Verdict {
    const known = (utilizations ?? []).filter((u): u is number => u !== null);
    // No reading (none yet, the host did not answer): neither idle nor busy; the spell is neither begun nor broken.
    if (holding && known.length === 0) return HOLDING;
    const idle = holding && known.every((u) => u < t.idlePct);
    if (!idle) {
      this.since = null;
      return QUIET;
    }
    this.since ??= now;
    const minutes = (now - this.since) / MINUTE;
    if (minutes < t.idleMinutes) return HOLDING;
    return { active: true, detail: `${known.length} GPU${known.length === 1 ? '' : 's'} under ${t.idlePct} % for ${Math.floor(minutes)} min`, say: say('gpusIdle', { n: known.length, pct: t.idlePct, minutes: Math.floor(minutes) }) };
  }

  /** When the idle spell began (ms), null while not idle: auto-stop counts from it. */
  idleSince(): number | null {
    return this.since;
  }
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Training stalled: ROLLING with no new step for `stallFactor` × the median step time, and at least `stallMinMinutes`. */
export class StallTracker {
  private lastStep: number | null = null;
  private lastStepAt: number | null = null;
  private readonly durations: number[] = [];
  /** No step change seen since this tracker began (a restart): a stall found before it still holds. */
  private unchanged = true;

  observe(rolling: boolean, step: number | null, now: number, t: AlertThresholds): Verdict {
    if (step !== null && step !== this.lastStep) {
      if (this.lastStep !== null) this.unchanged = false;
      if (this.lastStep !== null && this.lastStepAt !== null && step === this.lastStep + 1) this.durations.push(now - this.lastStepAt);
      if (this.durations.length > 50) this.durations.shift();
      this.lastStep = step;
      this.lastStepAt = now;
    }
    if (!rolling || this.lastStepAt === null) {
      if (!rolling) this.lastStepAt = step === null ? null : now;
      return QUIET;
    }
    const typical = median(this.durations);
    const limit = Math.max(t.stallMinMinutes * MINUTE, typical === null ? 0 : t.stallFactor * typical);
    const waited = now - this.lastStepAt;
    if (waited < limit) return this.unchanged ? HOLDING : QUIET;
    const facts = { minutes: Math.floor(waited / MINUTE), step: this.lastStep ?? '?', seconds: typical === null ? '' : Math.round(typical / 1000) };
    return {
      active: true,
      detail: `no new step for ${facts.minutes} min after step ${this.lastStep} (a step takes ${typical === null ? 'unknown' : `${facts.seconds} s`})`,
      say: say(typical === null ? 'stalledStepTimeUnknown' : 'stalled', facts),
    };
  }

  /** The median step time so far (ms), null before two steps. */
  medianStepMs(): number | null {
    return median(this.durations);
  }
}

/** No active client for `noClientMinutes` while ROLLING (every client gone). */
export class NoClientTracker {
  private since: number | null = null;

  observe(rolling: boolean, clients: number | null, now: number, t: AlertThresholds): Verdict {
    if (rolling && clients === null) return HOLDING;
    if (!rolling || clients === null || clients > 0) {
      this.since = null;
      return QUIET;
    }
    this.since ??= now;
    const minutes = (now - this.since) / MINUTE;
    if (minutes < t.noClientMinutes) return HOLDING;
    return { active: true, detail: `no active client for ${Math.floor(minutes)} min while the engine is ROLLING`, say: say('noClient', { minutes: Math.floor(minutes) }) };
  }
}

/** Reward: the newest mean is not a number, or it fell by more than `rewardDropFraction` over the last `rewardWindow` steps. */
export function rewardVerdict(means: readonly (number | null)[], t: AlertThresholds): Verdict {
  const recent = means.filter((m): m is number => m !== null);
  if (recent.length === 0) return QUIET;
  const last = recent.at(-1)!;
  if (!Number.isFinite(last)) return { active: true, detail: `the mean reward is not a number (${String(last)})`, say: say('rewardNotANumber', { value: String(last) }) };
  if (recent.length <= t.rewardWindow) return QUIET;
  const before = recent[recent.length - 1 - t.rewardWindow]!;
  if (!Number.isFinite(before) || before <= 0) return QUIET;
  const drop = (before - last) / before;
  if (drop <= t.rewardDropFraction) return QUIET;
  return {
    active: true,
    detail: `the mean reward fell from ${before.toFixed(3)} to ${last.toFixed(3)} over ${t.rewardWindow} steps`,
    say: say('rewardDrop', { from: before.toFixed(3), to: last.toFixed(3), steps: t.rewardWindow }),
  };
}

/** Disk: the folder's file system over `diskPct` full (`df -P` output's capacity column); `path` names the folder. */
export function diskVerdict(usedPct: number | null, t: AlertThresholds, path?: string): Verdict {
  // No reading this time (df said nothing, the host did not answer): an open episode is not resolved by silence.
  if (usedPct === null) return HOLDING;
  if (usedPct <= t.diskPct) return QUIET;
  return {
    active: true,
    detail: path ? `the disk of ${path} is ${usedPct} % full` : `the disk is ${usedPct} % full`,
    say: path ? say('diskOf', { path, pct: usedPct }) : say('disk', { pct: usedPct }),
  };
}

// Read where it is run, with the GPUs (gpus/nvidia-smi.ts); kept importable from here, where the disk rule is.
export { parseDfPercent } from '../gpus/nvidia-smi';

export const RULE_TITLES: Record<AlertRule, string> = {
  'gpus-idle': 'GPUs idle',
  'training-stalled': 'Training stalled',
  'no-client': 'No active client',
  reward: 'Reward problem',
  disk: 'Disk almost full',
  'slurm-time-limit': 'Slurm time limit near',
};
