import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The seam between the dry-run swarm server (which plays the GPU server's protocol and trainer)
 * and the LLM relay / trace store (which answer and record the episodes' LLM calls). Types only,
 * so that both sides build against it independently.
 */

/** Which agent-facing LLM route a call arrived on: OpenAI chat, OpenAI responses, Anthropic messages. */
export type LlmRoute = 'chat' | 'responses' | 'messages';

/** The claimed episode an LLM call belongs to, as the server knows it when it hands the call over. */
export interface RelayEpisode {
  episodeUuid: string;
  taskId: string | null;
  clientUuid: string | null;
  step: number;
  /** Upstream keeps the request's sampling params for eval episodes only. */
  isEval: boolean;
  /** The synced job's sampling, which train episodes get instead of the request's. */
  sampling: { temperature: number };
  /** Refreshes the episode's latest_activity_timestamp while waiting (keeps the janitor off a slow call). */
  touch(): void;
  /** The episode's llm_call_count after this call was counted (1-based). */
  callIndex: number;
}

export interface LlmRelay {
  /**
   * Called after the server's own checks (auth token, not ROLLING, unknown / unclaimed episode).
   * Writes the whole response.
   */
  handle(route: LlmRoute, episode: RelayEpisode, body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export type EpisodeEventKind = 'registered' | 'claimed' | 'ended' | 'aborted' | 'reverted' | 'discarded';

export interface EpisodeTraceEvent {
  kind: EpisodeEventKind;
  episodeUuid: string;
  taskId: string | null;
  clientUuid: string | null;
  step: number;
  reward?: number | null;
  metadata?: unknown;
  /** Epoch milliseconds. */
  at: number;
  detail?: string;
  /** A debug episode's abort (DEBUG_EPISODE_MARK): the reward it reported, though nothing is trained on. */
  debugReward?: number | null;
}

export interface StepTraceEvent {
  step: number;
  status: string;
  /** Epoch milliseconds. */
  at: number;
  /** Why the status changed, e.g. "batch complete by rollout_until_finish_enough_tasks". */
  reason?: string;
}

export interface TraceSink {
  episode(event: EpisodeTraceEvent): void;
  /** A status walk of the engine, with why. */
  step(event: StepTraceEvent): void;
  /** Why the current batch cannot complete, in plain words; null when it no longer stalls. */
  stall(reason: string | null): void;
}
