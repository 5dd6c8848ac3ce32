/** Small helpers of the LLM relay (llm-relay.ts): HTTP bodies, usage, error texts. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatChunk, ChatCompletion } from './sse';

/** Longest answer body kept for the trace and for translation (the agent still gets all of it on pass-through). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The whole body of an answer (bytes past `limit` are dropped); `complete` false when the answer was cut short. */
export function readBody(answer: IncomingMessage, done: (body: Buffer, complete: boolean) => void, limit = MAX_BODY_BYTES): void {
  const parts: Buffer[] = [];
  let size = 0;
  let called = false;
  const end = (complete: boolean): void => {
    if (called) return;
    called = true;
    done(parts.length === 1 ? parts[0]! : Buffer.concat(parts), complete);
  };
  answer.on('data', (chunk: Buffer) => {
    if (size + chunk.length <= limit) parts.push(chunk);
    size += chunk.length;
  });
  answer.on('end', () => end(true));
  onCut(answer, () => end(false));
}

/** The debug LLM's answer ended before it was complete (connection reset or closed mid-body). */
export function onCut(answer: IncomingMessage, then: () => void): void {
  answer.on('close', () => {
    if (!answer.complete) then();
  });
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export function usageOf(usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined): TokenUsage | null {
  if (!usage || typeof usage.prompt_tokens !== 'number') return null;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens ?? 0 };
}

export function usageFromTranslated(usage: Record<string, number> | undefined): TokenUsage | null {
  if (!usage) return null;
  const prompt = usage.input_tokens ?? 0;
  const completion = usage.output_tokens ?? 0;
  return prompt + completion > 0 ? { promptTokens: prompt, completionTokens: completion } : null;
}

export function completionAsChunk(completion: ChatCompletion | null): ChatChunk | null {
  const choice = completion?.choices?.[0];
  if (!completion || !choice) return null;
  const toolCalls = (choice.message.tool_calls ?? []).map((t, index) => ({ index, id: t.id, function: t.function }));
  return { model: completion.model, usage: completion.usage, choices: [{ index: 0, delta: { content: choice.message.content, tool_calls: toolCalls }, finish_reason: choice.finish_reason }] };
}

/** The message inside an OpenAI-style (or FastAPI-style) error body. */
export function describeLlmError(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 500) || 'no details';
  const b = body as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown } | null;
  const message = typeof b?.error === 'string' ? b.error : (b?.error?.message ?? b?.detail ?? b?.message);
  return typeof message === 'string' ? message.slice(0, 500) : JSON.stringify(body).slice(0, 500);
}

export function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name could not be resolved';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    default:
      return error.code ? `${error.code} ${error.message}` : error.message;
  }
}
