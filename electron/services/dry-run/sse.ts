/**
 * Server-sent events for the relay: an incremental parser of the debug LLM's stream (the relay passes the bytes on
 * unchanged and parses a copy for the trace), a merger that turns chat.completion.chunk events back into one
 * chat.completion, and the writer side's formatting.
 */

export interface SseEvent {
  /** The `event:` field; undefined when absent (OpenAI sends data lines only). */
  event?: string;
  data: string;
}

/** Splits an SSE byte stream into events, chunk by chunk (events may span chunks; a chunk may end mid-character). */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private data: string[] = [];
  private event: string | undefined;

  push(chunk: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    return this.drain();
  }

  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    const events = this.drain();
    if (this.buffer) {
      this.line(this.buffer, events);
      this.buffer = '';
    }
    if (this.data.length > 0) events.push(this.take());
    return events;
  }

  private drain(): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = this.buffer.indexOf('\n', start);
      if (nl < 0) break;
      const raw = this.buffer.slice(start, nl);
      this.line(raw.endsWith('\r') ? raw.slice(0, -1) : raw, events);
      start = nl + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0 || this.event !== undefined) events.push(this.take());
      return;
    }
    if (line.startsWith(':')) return; // a comment (keepalive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }

  private take(): SseEvent {
    const event: SseEvent = { data: this.data.join('\n') };
    if (this.event !== undefined) event.event = this.event;
    this.data = [];
    this.event = undefined;
    return event;
  }
}

/** One SSE event as text: `event: …` (when named) and `data: …`, then the blank line. */
export function sseEvent(data: unknown, event?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${text}\n\n`;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: number; message: { role: string; content: string | null; tool_calls?: ChatToolCall[]; reasoning_content?: string }; finish_reason: string | null }>;
  usage: ChatUsage | null;
}

interface ChunkToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

export interface ChatChunk {
  id?: string;
  created?: number;
  model?: string;
  usage?: ChatUsage | null;
  error?: unknown;
  choices?: Array<{ index?: number; delta?: { role?: string; content?: string | null; reasoning_content?: string | null; tool_calls?: ChunkToolCallDelta[] }; finish_reason?: string | null }>;
}

/** Parses one `data:` payload of a chat stream; null for `[DONE]` and for text that is not JSON. */
export function parseChatChunk(data: string): ChatChunk | null {
  if (data === '[DONE]') return null;
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === 'object' ? (value as ChatChunk) : null;
  } catch {
    return null;
  }
}

/** Puts the chunks of a streamed chat answer (first choice) back together as the non-streamed answer. */
export class ChatChunkMerger {
  private id = '';
  private created = 0;
  private model = '';
  private role = 'assistant';
  private content = '';
  private reasoning = '';
  private sawContent = false;
  private readonly tools: ChatToolCall[] = [];
  private finishReason: string | null = null;
  usage: ChatUsage | null = null;
  /** An `error` payload the LLM sent inside the stream. */
  error: unknown = null;

  add(chunk: ChatChunk): void {
    if (chunk.id) this.id = chunk.id;
    if (typeof chunk.created === 'number') this.created = chunk.created;
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    if (chunk.error) this.error = chunk.error;
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (delta.role) this.role = delta.role;
    if (typeof delta.content === 'string') {
      this.content += delta.content;
      this.sawContent = true;
    }
    if (typeof delta.reasoning_content === 'string') this.reasoning += delta.reasoning_content;
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? this.tools.length;
      const tool = (this.tools[index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (part.id) tool.id = part.id;
      if (part.function?.name) tool.function.name += part.function.name;
      if (part.function?.arguments) tool.function.arguments += part.function.arguments;
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  result(): ChatCompletion {
    const message: ChatCompletion['choices'][number]['message'] = { role: this.role, content: this.sawContent || this.tools.length === 0 ? this.content : null };
    const tools = this.tools.filter(Boolean);
    if (tools.length > 0) message.tool_calls = tools;
    if (this.reasoning) message.reasoning_content = this.reasoning;
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, message, finish_reason: this.finishReason }],
      usage: this.usage,
    };
  }
}
