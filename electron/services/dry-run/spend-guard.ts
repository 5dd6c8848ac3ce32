/**
 * Protects the user's LLM bill during a dry run: a call limit per episode (an agent stuck in a loop) and, per dry
 * run, a maximum number of calls and of tokens. The relay asks `admit()` before it calls the debug LLM and reports
 * the tokens with `settle()` afterwards. Calls in flight count against the call limit at once, so 64 concurrent
 * episodes cannot overshoot it; tokens are known only after a call, so the token limit stops the calls that start
 * after it was reached (a call already running may pass it by its own size).
 */
import type { DryRunSpend } from '../../shared/schemas-dryrun';

export interface SpendLimits {
  maxCallsPerEpisode: number;
  maxCalls: number;
  maxTokens: number;
}

export type Admission =
  | { ok: true }
  /** `scope` says whether only this episode is stopped or the whole dry run; `reason` is for the agent and the trace. */
  | { ok: false; scope: 'episode' | 'run'; reason: string };

export interface SpendUsage {
  promptTokens: number;
  completionTokens: number;
}

const fmt = (n: number): string => n.toLocaleString('en-US');

export class SpendGuard {
  private calls = 0;
  private promptTokens = 0;
  private completionTokens = 0;
  private stoppedBy: string | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly limits: SpendLimits) {}

  /**
   * `callIndex` is the episode's own count of LLM calls including this one (the server's llm_call_count), so a
   * revert and a new claim start the episode's count again as upstream does.
   */
  admit(episodeUuid: string, callIndex: number): Admission {
    const run = this.runLimit();
    if (run) {
      this.stop(run.short);
      return { ok: false, scope: 'run', reason: run.reason };
    }
    if (callIndex > this.limits.maxCallsPerEpisode) {
      return {
        ok: false,
        scope: 'episode',
        reason:
          `Dry-run call limit: episode ${episodeUuid} asked for LLM call ${fmt(callIndex)}, but the limit is ` +
          `${fmt(this.limits.maxCallsPerEpisode)} calls per episode (max calls per episode in the dry run settings). ` +
          'Look for a loop in the agent, or raise the limit.',
      };
    }
    this.calls += 1;
    // The view says at once that the last allowed call has started, not only when the next one is refused.
    const reached = this.runLimit();
    if (reached) this.stop(reached.short);
    this.changed();
    return { ok: true };
  }

  /** Tokens of a finished call (estimated by the caller when the LLM sent no usage). */
  settle(usage: SpendUsage): void {
    this.promptTokens += Math.max(0, Math.round(usage.promptTokens));
    this.completionTokens += Math.max(0, Math.round(usage.completionTokens));
    const run = this.runLimit();
    if (run) this.stop(run.short);
    this.changed();
  }

  snapshot(): DryRunSpend {
    return {
      calls: this.calls,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      maxCalls: this.limits.maxCalls,
      maxTokens: this.limits.maxTokens,
      stoppedBy: this.stoppedBy,
    };
  }

  /** Called after every admitted call and every settled usage (throttle on the consumer side). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** `short` for the view's stoppedBy, `reason` for the agent and the trace. */
  private runLimit(): { short: string; reason: string } | null {
    const tail = 'No further LLM calls are relayed; raise the limit in the dry run settings and start the dry run again.';
    if (this.calls >= this.limits.maxCalls) {
      return {
        short: `${fmt(this.limits.maxCalls)} calls reached (max calls per dry run)`,
        reason: `Dry-run spend guard: this dry run has made ${fmt(this.calls)} LLM calls, the maximum per dry run is ${fmt(this.limits.maxCalls)}. ${tail}`,
      };
    }
    const tokens = this.promptTokens + this.completionTokens;
    if (tokens >= this.limits.maxTokens) {
      return {
        short: `${fmt(tokens)} tokens used, the maximum is ${fmt(this.limits.maxTokens)} (max tokens per dry run)`,
        reason: `Dry-run spend guard: this dry run has used ${fmt(tokens)} tokens, the maximum per dry run is ${fmt(this.limits.maxTokens)}. ${tail}`,
      };
    }
    return null;
  }

  private stop(reason: string): void {
    if (this.stoppedBy === reason) return;
    this.stoppedBy = reason;
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
