/** The relay's options and one call's state (llm-relay.ts), apart so the relay stays one use case per file. */
import type { ServerResponse } from 'node:http';
import type { ModelChange } from '../../shared/schemas-dryrun';
import type { LlmRoute, RelayEpisode } from './relay-contract';
import type { SpendGuard } from './spend-guard';
import type { LlmCallSink } from './trace-store';
import type { StreamTranslator } from './translate-common';

export interface LlmRelayOptions {
  /** The debug LLM's base URL, e.g. https://api.openai.com/v1 (chat completions at `<baseUrl>/chat/completions`). */
  baseUrl: string;
  model: string;
  /** From the vault or typed for the session. Registered with the process-wide redactor. */
  apiKey: string;
  spend: SpendGuard;
  calls?: LlmCallSink;
  /** Keepalive period while a stream waits for the debug LLM (newer upstream: 5 s). */
  keepaliveMs?: number;
  /** How often a waiting call refreshes its episode's activity (upstream: 6 s). */
  touchMs?: number;
  /** The longest silence from the debug LLM (newer upstream waits up to 3,600 s). */
  timeoutMs?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

/** What a call costs when the debug LLM counts nothing: 4 characters a token. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export interface Call {
  route: LlmRoute;
  episode: RelayEpisode;
  body: Record<string, unknown>;
  res: ServerResponse;
  stream: boolean;
  startedAt: number;
  /** The agent's stream is open (200 and SSE headers sent). */
  opened: boolean;
  translator: StreamTranslator | null;
  requestForTrace: unknown;
  /** The chat request the model gets (upstream's rewrite), for the trace; null until built. */
  modelRequest: Record<string, unknown> | null;
  modelChanges: ModelChange[];
  /** The stream's usage was estimated because the debug LLM sent none. */
  usageEstimated: boolean;
}
