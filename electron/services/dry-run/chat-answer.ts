/**
 * Chat answers as upstream's server puts them on the wire, whatever the debug LLM sent (issue 30 §3).
 * - Not streamed: upstream re-serialises the openai SDK's ChatCompletion, so every message has `refusal`,
 *   `annotations`, `audio`, `function_call` and `tool_calls` (null when absent) and the completion `service_tier`;
 *   clients that index those keys break on an answer without them.
 * - Streamed: upstream always puts `usage` in the last chunk (the one with finish_reason), asked for or not, and names
 *   the request's model in every chunk. The relay asks the debug LLM for usage (stream_options.include_usage), moves
 *   the LLM's separate usage chunk into the finish chunk, and estimates usage (4 characters a token) when the LLM sends
 *   none — the trace says when it did.
 */
import type { TokenUsage } from './llm-relay-util';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

const MESSAGE_KEYS = ['refusal', 'annotations', 'audio', 'function_call', 'tool_calls'] as const;

/** A non-streamed chat completion with the keys the openai SDK always serialises; other values untouched. */
export function withSdkKeys(completion: Json): Json {
  const choices = Array.isArray(completion.choices)
    ? completion.choices.map((choice: unknown) => {
        if (!isObject(choice) || !isObject(choice.message)) return choice;
        const message: Json = { ...choice.message };
        for (const key of MESSAGE_KEYS) if (message[key] === undefined) message[key] = null;
        return { ...choice, message, logprobs: choice.logprobs ?? null };
      })
    : completion.choices;
  return { ...completion, choices, service_tier: completion.service_tier ?? null };
}

const usageJson = (usage: TokenUsage): Json => ({
  prompt_tokens: usage.promptTokens,
  completion_tokens: usage.completionTokens,
  total_tokens: usage.promptTokens + usage.completionTokens,
});

/**
 * Rewrites a chat SSE stream event by event: the request's model in each chunk, and usage in the finish chunk (held
 * back until the LLM's usage, or the stream's end, arrives). Returns the text to write for each input.
 */
export class ChatStreamNormalizer {
  private held: Json | null = null;
  private usage: Json | null = null;
  /** Usage was estimated because the debug LLM sent none. */
  estimated = false;
  /** The estimate the agent got, when `estimated`. */
  estimatedUsage: TokenUsage | null = null;

  constructor(
    private readonly requestModel: string | null,
    private readonly estimate: () => TokenUsage,
  ) {}

  /** One `data:` payload of the LLM's stream. */
  event(data: string): string {
    if (data.trim() === '[DONE]') return `${this.flush()}data: [DONE]\n\n`;
    let chunk: Json;
    try {
      const parsed: unknown = JSON.parse(data);
      if (!isObject(parsed)) return `data: ${data}\n\n`;
      chunk = parsed;
    } catch {
      return `data: ${data}\n\n`;
    }
    if (chunk.error !== undefined) return `${this.flush()}data: ${data}\n\n`;
    if (this.requestModel !== null) chunk.model = this.requestModel;
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : [];
    if (isObject(chunk.usage)) {
      this.usage = chunk.usage;
      // The LLM's usage-only chunk (include_usage): its usage goes into the finish chunk instead.
      if (choices.length === 0) return this.held ? this.flush() : '';
    }
    const finishing = choices.some((choice) => isObject(choice) && choice.finish_reason !== null && choice.finish_reason !== undefined);
    if (finishing && !isObject(chunk.usage)) {
      const before = this.flush();
      this.held = chunk;
      return before;
    }
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }

  /** The stream ended (after [DONE], or without it): anything still held. */
  end(): string {
    return this.flush();
  }

  private flush(): string {
    const held = this.held;
    if (!held) return '';
    this.held = null;
    if (!this.usage) {
      this.estimated = true;
      this.estimatedUsage = this.estimate();
      this.usage = usageJson(this.estimatedUsage);
    }
    return `data: ${JSON.stringify({ ...held, usage: this.usage })}\n\n`;
  }
}
