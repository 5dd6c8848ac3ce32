/**
 * Anthropic Messages API (`POST /v1/messages`, served by newer upstream versions) on top of the debug LLM's chat
 * completions, so agents built on the Anthropic SDK can be dry-run against any OpenAI-compatible endpoint.
 * Request: system, text/image/tool_use/tool_result blocks, tools and tool_choice are mapped; thinking blocks and
 * top_k have no chat equivalent and are dropped (named in `dropped`, which the trace keeps). Answer and stream
 * follow Anthropic's shapes: message_start first (its SDK refuses any event before it, pings included), content
 * blocks, message_delta with stop_reason and usage, message_stop.
 */
import { sseEvent, type ChatChunk, type ChatCompletion } from './sse';
import type { ChatTranslation, StreamTranslator } from './translate-common';
import { asArray, asRecord, newId } from './translate-common';

const STOP_REASON: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', function_call: 'tool_use', content_filter: 'refusal' };

function stopReason(finish: string | null | undefined): string | null {
  return finish ? (STOP_REASON[finish] ?? 'end_turn') : null;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((b) => asRecord(b))
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

function imagePart(block: Record<string, unknown>): unknown {
  const source = asRecord(block.source);
  const url = source.type === 'base64' ? `data:${String(source.media_type)};base64,${String(source.data)}` : String(source.url ?? '');
  return { type: 'image_url', image_url: { url } };
}

/** One Anthropic message → chat messages (tool results become `tool` messages placed before the user's text). */
function convertMessage(message: Record<string, unknown>, dropped: Set<string>): Array<Record<string, unknown>> {
  const role = message.role === 'assistant' ? 'assistant' : 'user';
  if (typeof message.content === 'string') return [{ role, content: message.content }];
  const parts: unknown[] = [];
  const toolCalls: unknown[] = [];
  const toolResults: Array<Record<string, unknown>> = [];
  for (const raw of asArray(message.content)) {
    const block = asRecord(raw);
    if (block.type === 'text') parts.push({ type: 'text', text: String(block.text ?? '') });
    else if (block.type === 'image') parts.push(imagePart(block));
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: String(block.id ?? ''), type: 'function', function: { name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === 'tool_result') {
      const text = textOf(block.content);
      toolResults.push({ role: 'tool', tool_call_id: String(block.tool_use_id ?? ''), content: block.is_error === true ? `Error: ${text}` : text });
    } else dropped.add(`content block ${String(block.type)}`);
  }
  const out: Array<Record<string, unknown>> = [...toolResults];
  const onlyText = parts.every((p) => asRecord(p).type === 'text');
  const content = onlyText ? parts.map((p) => String(asRecord(p).text)).join('\n') : parts;
  if (role === 'assistant') {
    if (parts.length > 0 || toolCalls.length > 0) out.push({ role, content: parts.length > 0 ? content : null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
  } else if (parts.length > 0) out.push({ role, content });
  return out;
}

function convertToolChoice(choice: unknown): unknown {
  const c = asRecord(choice);
  if (c.type === 'any') return 'required';
  if (c.type === 'none') return 'none';
  if (c.type === 'tool') return { type: 'function', function: { name: String(c.name ?? '') } };
  return c.type === 'auto' ? 'auto' : undefined;
}

/** The Anthropic request as a chat-completions request for the debug LLM (`model` set by the relay). */
export function messagesToChat(body: Record<string, unknown>): ChatTranslation {
  const dropped = new Set<string>();
  const messages: Array<Record<string, unknown>> = [];
  const system = textOf(body.system);
  if (system) messages.push({ role: 'system', content: system });
  for (const m of asArray(body.messages)) messages.push(...convertMessage(asRecord(m), dropped));
  const chat: Record<string, unknown> = { messages };
  if (typeof body.max_tokens === 'number') chat.max_tokens = body.max_tokens;
  for (const key of ['temperature', 'top_p'] as const) if (body[key] !== undefined) chat[key] = body[key];
  if (Array.isArray(body.stop_sequences)) chat.stop = body.stop_sequences;
  const tools = asArray(body.tools).map((t) => asRecord(t));
  const fnTools = tools.filter((t) => t.input_schema !== undefined || t.type === undefined || t.type === 'custom');
  if (fnTools.length < tools.length) dropped.add('server tools (web search, code execution …)');
  if (fnTools.length > 0) {
    chat.tools = fnTools.map((t) => ({ type: 'function', function: { name: String(t.name ?? ''), description: t.description ?? '', parameters: t.input_schema ?? { type: 'object' } } }));
  }
  const toolChoice = convertToolChoice(body.tool_choice);
  if (toolChoice !== undefined) chat.tool_choice = toolChoice;
  if (asRecord(body.tool_choice).disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  if (body.top_k !== undefined) dropped.add('top_k');
  if (body.thinking !== undefined) dropped.add('thinking');
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return { chat, dropped: [...dropped] };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return { _unparsed_arguments: text };
  }
}

/** The debug LLM's chat answer as an Anthropic message. */
export function chatToMessages(completion: ChatCompletion, requestedModel: string): Record<string, unknown> {
  const choice = completion.choices[0];
  const content: unknown[] = [];
  if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id || newId('toolu_'), name: call.function.name, input: parseArguments(call.function.arguments) });
  }
  return {
    id: newId('msg_'),
    type: 'message',
    role: 'assistant',
    model: completion.model || requestedModel,
    content,
    stop_reason: stopReason(choice?.finish_reason ?? 'stop'),
    stop_sequence: null,
    usage: { input_tokens: completion.usage?.prompt_tokens ?? 0, output_tokens: completion.usage?.completion_tokens ?? 0 },
  };
}

const ERROR_TYPE: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 529: 'overloaded_error' };

/** Anthropic's error body for an HTTP status. */
export function anthropicError(status: number, message: string): Record<string, unknown> {
  return { type: 'error', error: { type: ERROR_TYPE[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message } };
}

type Block = { kind: 'text'; index: number } | { kind: 'tool'; index: number; chatIndex: number };

/** Chat chunks → Anthropic stream events, incrementally; `result()` is the whole message for the trace. */
export class MessagesStream implements StreamTranslator {
  private readonly id = newId('msg_');
  private model: string;
  private started = false;
  private open: Block | null = null;
  private next = 0;
  private readonly content: Array<Record<string, unknown>> = [];
  private finish: string | null = null;
  private usage = { input_tokens: 0, output_tokens: 0 };

  constructor(requestedModel: string) {
    this.model = requestedModel;
  }

  start(): string {
    if (this.started) return '';
    this.started = true;
    const message = { id: this.id, type: 'message', role: 'assistant', model: this.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } };
    return sseEvent({ type: 'message_start', message }, 'message_start');
  }

  keepalive(): string {
    return this.start() + sseEvent({ type: 'ping' }, 'ping');
  }

  chunk(chunk: ChatChunk): string {
    if (chunk.model) this.model = chunk.model;
    let out = this.start();
    if (chunk.usage) this.usage = { input_tokens: chunk.usage.prompt_tokens, output_tokens: chunk.usage.completion_tokens };
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    const delta = choice?.delta;
    if (typeof delta?.content === 'string' && delta.content) {
      if (this.open?.kind !== 'text') out += this.openBlock({ kind: 'text', index: this.next }, { type: 'text', text: '' });
      (this.content[this.open!.index] as { text: string }).text += delta.content;
      out += sseEvent({ type: 'content_block_delta', index: this.open!.index, delta: { type: 'text_delta', text: delta.content } }, 'content_block_delta');
    }
    for (const part of delta?.tool_calls ?? []) {
      const chatIndex = part.index ?? 0;
      if (this.open?.kind !== 'tool' || this.open.chatIndex !== chatIndex) {
        out += this.openBlock({ kind: 'tool', index: this.next, chatIndex }, { type: 'tool_use', id: part.id || newId('toolu_'), name: part.function?.name ?? '', input: {} });
      }
      const args = part.function?.arguments;
      if (args) {
        const block = this.content[this.open!.index] as { partial?: string };
        block.partial = (block.partial ?? '') + args;
        out += sseEvent({ type: 'content_block_delta', index: this.open!.index, delta: { type: 'input_json_delta', partial_json: args } }, 'content_block_delta');
      }
    }
    if (choice?.finish_reason) this.finish = choice.finish_reason;
    return out;
  }

  finishEvents(): string {
    let out = this.start() + this.closeBlock();
    out += sseEvent({ type: 'message_delta', delta: { stop_reason: stopReason(this.finish ?? 'stop'), stop_sequence: null }, usage: { output_tokens: this.usage.output_tokens } }, 'message_delta');
    return out + sseEvent({ type: 'message_stop' }, 'message_stop');
  }

  errorEvent(status: number, message: string): string {
    return this.start() + sseEvent(anthropicError(status, message), 'error');
  }

  result(): unknown {
    const content = this.content.map((b) => {
      if (b.type !== 'tool_use') return b;
      const { partial, ...rest } = b as { partial?: string };
      return { ...rest, input: parseArguments(partial ?? '') };
    });
    return { id: this.id, type: 'message', role: 'assistant', model: this.model, content, stop_reason: stopReason(this.finish ?? 'stop'), stop_sequence: null, usage: this.usage };
  }

  private openBlock(block: Block, contentBlock: Record<string, unknown>): string {
    const out = this.closeBlock();
    this.open = block;
    this.next += 1;
    this.content.push({ ...contentBlock });
    return out + sseEvent({ type: 'content_block_start', index: block.index, content_block: contentBlock }, 'content_block_start');
  }

  private closeBlock(): string {
    if (!this.open) return '';
    const index = this.open.index;
    this.open = null;
    return sseEvent({ type: 'content_block_stop', index }, 'content_block_stop');
  }
}
