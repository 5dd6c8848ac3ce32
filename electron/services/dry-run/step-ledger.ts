import type { ExactStep } from '../training/step-recorder';
import type { CollectedStep } from './auto-trainer';
import type { EpisodeTraceEvent, StepTraceEvent, TraceSink } from './relay-contract';
import type { LlmCallRecord, LlmCallSink } from './trace-store';

interface StepCounts {
  tokens: number;
  /** Calls whose usage was known (reported or estimated). */
  tokenCalls: number;
  calls: number;
  failures: number;
}

/** Steps whose counts are kept while they may still complete (older ones are dropped). */
const KEEP_STEPS = 16;

/**
 * The dry run's per-step ledger for the training dashboard: sits between the server / relay and the
 * trace store (every event and call passes on unchanged) and counts per global step the LLM calls,
 * their tokens and the failed episodes (aborted by the client — not a debug episode's deliberate
 * abort —, reverted by the janitor after their timeout, ended without a reward). When the trainer
 * says a batch is complete, the step's exact record goes to the listeners.
 */
export class StepLedger implements TraceSink, LlmCallSink {
  private readonly counts = new Map<number, StepCounts>();
  private readonly listeners = new Set<(step: ExactStep) => void>();

  constructor(private readonly inner: TraceSink & LlmCallSink) {}

  onStep(listener: (step: ExactStep) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private of(step: number): StepCounts {
    let c = this.counts.get(step);
    if (!c) {
      c = { tokens: 0, tokenCalls: 0, calls: 0, failures: 0 };
      this.counts.set(step, c);
      while (this.counts.size > KEEP_STEPS) this.counts.delete(Math.min(...this.counts.keys()));
    }
    return c;
  }

  episode(event: EpisodeTraceEvent): void {
    const failed =
      (event.kind === 'aborted' && event.debugReward === undefined) || event.kind === 'reverted' || (event.kind === 'ended' && event.reward === null);
    if (failed) this.of(event.step).failures += 1;
    this.inner.episode(event);
  }

  step(event: StepTraceEvent): void {
    this.inner.step(event);
  }

  stall(reason: string | null): void {
    this.inner.stall(reason);
  }

  call(record: LlmCallRecord): void {
    const c = this.of(record.step);
    c.calls += 1;
    if (record.promptTokens !== null || record.completionTokens !== null) {
      c.tokens += (record.promptTokens ?? 0) + (record.completionTokens ?? 0);
      c.tokenCalls += 1;
    }
    this.inner.call(record);
  }

  /** The trainer's batch is complete: the step's record, with what the ledger counted for it. */
  collected(step: CollectedStep): void {
    const c = this.counts.get(step.step) ?? { tokens: 0, tokenCalls: 0, calls: 0, failures: 0 };
    this.counts.delete(step.step);
    const record: ExactStep = {
      bootId: step.bootId,
      step: step.step,
      startedAt: step.startedAt,
      rewards: step.rewards,
      episodes: step.episodes,
      // Calls that all failed before any usage: no tokens were spent, 0 is exact.
      llmTokens: c.tokens,
      llmCalls: c.calls,
      failures: c.failures,
    };
    for (const listener of this.listeners) listener(record);
  }
}
