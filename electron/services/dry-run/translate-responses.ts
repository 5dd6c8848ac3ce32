/**
 * OpenAI Responses API (`POST /v1/responses`, served by newer upstream versions) on top of the debug LLM's chat
 * completions, so agents built on the Responses API can be dry-run against any OpenAI-compatible endpoint.
 * Request: instructions, input (text, messages, function_call and function_call_output items, images), function
 * tools, tool_choice, max_output_tokens, text.format are mapped; what chat has no equivalent for (built-in tools,
 * reasoning items, previous_response_id — the dry run keeps no conversation state) is dropped and named in
 * `dropped`. Answers and stream events follow the Responses shapes (response.created … response.completed).
 */
import { sseEvent, type ChatChunk, type ChatCompletion, type ChatUsage } from './sse';
import type { ChatTranslation, StreamTranslator } from './translate-common';
import { asArray, asRecord, newId } from './translate-common';

function partsToChat(content: unknown): unknown {
  if (typeof content === 'string') return content;
  const parts = asArray(content).map((p) => asRecord(p));
  const converted = parts.map((p) => {
    if (p.type === 'input_image') return { type: 'image_url', image_url: { url: String(p.image_url ?? '') } };
    return { type: 'text', text: String(p.text ?? p.refusal ?? '') };
  });
  return converted.every((p) => p.type === 'text') ? converted.map((p) => (p as { text: string }).text).join('\n') : converted;
}

function convertInput(input: unknown, messages: Array<Record<string, unknown>>, dropped: Set<string>): void {
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return;
  }
  for (const raw of asArray(input)) {
    const item = asRecord(raw);
    const type = item.type ?? 'message';
    if (type === 'message') {
      const role = item.role === 'developer' ? 'system' : String(item.role ?? 'user');
      messages.push({ role, content: partsToChat(item.content) });
    } else if (type === 'function_call') {
      const call = { id: String(item.call_id ?? ''), type: 'function', function: { name: String(item.name ?? ''), arguments: String(item.arguments ?? '') } };
      const last = messages.at(-1);
      // Parallel calls arrive as consecutive items; chat wants them on one assistant message.
      if (last?.role === 'assistant' && Array.isArray(last.tool_calls)) (last.tool_calls as unknown[]).push(call);
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      messages.push({ role: 'tool', tool_call_id: String(item.call_id ?? ''), content: output });
    } else dropped.add(`input item ${String(type)}`);
  }
}

/** The Responses request as a chat-completions request for the debug LLM (`model` set by the relay). */
export function responsesToChat(body: Record<string, unknown>): ChatTranslation {
  const dropped = new Set<string>();
  const messages: Array<Record<string, unknown>> = [];
  if (typeof body.instructions === 'string' && body.instructions) messages.push({ role: 'system', content: body.instructions });
  convertInput(body.input, messages, dropped);
  const chat: Record<string, unknown> = { messages };
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  for (const key of ['temperature', 'top_p', 'parallel_tool_calls', 'user'] as const) if (body[key] !== undefined) chat[key] = body[key];
  const tools = asArray(body.tools).map((t) => asRecord(t));
  const fnTools = tools.filter((t) => t.type === 'function');
  if (fnTools.length < tools.length) dropped.add('built-in tools (web_search, file_search …)');
  if (fnTools.length > 0) {
    chat.tools = fnTools.map((t) => ({ type: 'function', function: { name: String(t.name ?? ''), description: t.description ?? '', parameters: t.parameters ?? { type: 'object' }, ...(t.strict !== undefined ? { strict: t.strict } : {}) } }));
  }
  const choice = body.tool_choice;
  if (typeof choice === 'string') chat.tool_choice = choice;
  else if (asRecord(choice).type === 'function') chat.tool_choice = { type: 'function', function: { name: String(asRecord(choice).name ?? '') } };
  const format = asRecord(asRecord(body.text).format);
  if (format.type === 'json_schema') chat.response_format = { type: 'json_schema', json_schema: { name: format.name ?? 'output', schema: format.schema ?? {}, ...(format.strict !== undefined ? { strict: format.strict } : {}) } };
  else if (format.type === 'json_object') chat.response_format = { type: 'json_object' };
  if (body.previous_response_id) dropped.add('previous_response_id (the dry run keeps no conversation state; send the whole input)');
  if (body.reasoning !== undefined) dropped.add('reasoning');
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return { chat, dropped: [...dropped] };
}

function usageOf(usage: ChatUsage | null): Record<string, unknown> {
  const input = usage?.prompt_tokens ?? 0;
  const output = usage?.completion_tokens ?? 0;
  return { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output };
}

function envelope(id: string, createdAt: number, model: string, body: Record<string, unknown>): Record<string, unknown> {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    max_output_tokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null,
    model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    temperature: body.temperature ?? null,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    usage: null,
    metadata: body.metadata ?? {},
  };
}

function finished(env: Record<string, unknown>, output: unknown[], finish: string | null, usage: ChatUsage | null): Record<string, unknown> {
  const truncated = finish === 'length';
  const text = output
    .map((o) => asRecord(o))
    .filter((o) => o.type === 'message')
    .flatMap((o) => asArray(o.content).map((c) => String(asRecord(c).text ?? '')))
    .join('');
  return { ...env, status: truncated ? 'incomplete' : 'completed', incomplete_details: truncated ? { reason: 'max_output_tokens' } : null, output, output_text: text, usage: usageOf(usage) };
}

/** The debug LLM's chat answer as a Response. */
export function chatToResponse(completion: ChatCompletion, body: Record<string, unknown>): Record<string, unknown> {
  const choice = completion.choices[0];
  const output: unknown[] = [];
  if (choice?.message.content) {
    output.push({ id: newId('msg_'), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: choice.message.content, annotations: [] }] });
  }
  for (const call of choice?.message.tool_calls ?? []) {
    output.push({ id: newId('fc_'), type: 'function_call', status: 'completed', call_id: call.id || newId('call_'), name: call.function.name, arguments: call.function.arguments });
  }
  const env = envelope(newId('resp_'), completion.created || Math.floor(Date.now() / 1000), completion.model, body);
  return finished(env, output, choice?.finish_reason ?? 'stop', completion.usage);
}

/** OpenAI's error body (the Responses route shares it with chat). */
export function openAiError(message: string, type: string, code: string | null = null): Record<string, unknown> {
  return { error: { message, type, param: null, code } };
}

interface OpenItem {
  outputIndex: number;
  item: Record<string, unknown>;
  chatIndex: number | null;
}

/** Chat chunks → Responses stream events, incrementally; `result()` is the final Response for the trace. */
export class ResponsesStream implements StreamTranslator {
  private seq = 0;
  private started = false;
  private readonly env: Record<string, unknown>;
  private readonly output: Array<Record<string, unknown>> = [];
  private open: OpenItem | null = null;
  private finish: string | null = null;
  private usage: ChatUsage | null = null;

  constructor(body: Record<string, unknown>, model: string) {
    this.env = envelope(newId('resp_'), Math.floor(Date.now() / 1000), model, body);
  }

  start(): string {
    if (this.started) return '';
    this.started = true;
    return this.emit('response.created', { response: this.env }) + this.emit('response.in_progress', { response: this.env });
  }

  keepalive(): string {
    return ': keepalive\n\n';
  }

  chunk(chunk: ChatChunk): string {
    let out = this.start();
    if (chunk.model) this.env.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    const delta = choice?.delta;
    if (typeof delta?.content === 'string' && delta.content) {
      if (this.open?.item.type !== 'message') {
        out += this.openItem({ id: newId('msg_'), type: 'message', status: 'in_progress', role: 'assistant', content: [] }, null);
        const part = { type: 'output_text', text: '', annotations: [] };
        (this.open!.item.content as unknown[]).push(part);
        out += this.emit('response.content_part.added', { item_id: this.open!.item.id, output_index: this.open!.outputIndex, content_index: 0, part: { ...part } });
      }
      const part = (this.open!.item.content as Array<{ text: string }>)[0]!;
      part.text += delta.content;
      out += this.emit('response.output_text.delta', { item_id: this.open!.item.id, output_index: this.open!.outputIndex, content_index: 0, delta: delta.content, logprobs: [] });
    }
    for (const call of delta?.tool_calls ?? []) {
      const chatIndex = call.index ?? 0;
      if (this.open?.chatIndex !== chatIndex || this.open.item.type !== 'function_call') {
        out += this.openItem({ id: newId('fc_'), type: 'function_call', status: 'in_progress', call_id: call.id || newId('call_'), name: call.function?.name ?? '', arguments: '' }, chatIndex);
      }
      const args = call.function?.arguments;
      if (args) {
        this.open!.item.arguments = String(this.open!.item.arguments) + args;
        out += this.emit('response.function_call_arguments.delta', { item_id: this.open!.item.id, output_index: this.open!.outputIndex, delta: args });
      }
    }
    if (choice?.finish_reason) this.finish = choice.finish_reason;
    return out;
  }

  finishEvents(): string {
    const out = this.start() + this.closeItem();
    return out + this.emit('response.completed', { response: this.result() });
  }

  errorEvent(status: number, message: string): string {
    const code = status === 429 ? 'rate_limit_exceeded' : 'server_error';
    const failed = { ...this.env, status: 'failed', error: { code, message }, output: this.output };
    return this.start() + this.emit('error', { code, message, param: null }) + this.emit('response.failed', { response: failed });
  }

  result(): unknown {
    return finished(this.env, this.output, this.finish ?? 'stop', this.usage);
  }

  private emit(type: string, payload: Record<string, unknown>): string {
    const event = { type, sequence_number: this.seq, ...payload };
    this.seq += 1;
    return sseEvent(event, type);
  }

  private openItem(item: Record<string, unknown>, chatIndex: number | null): string {
    const out = this.closeItem();
    this.open = { outputIndex: this.output.length, item, chatIndex };
    this.output.push(item);
    return out + this.emit('response.output_item.added', { output_index: this.open.outputIndex, item: { ...item, content: item.type === 'message' ? [] : undefined } });
  }

  private closeItem(): string {
    const open = this.open;
    if (!open) return '';
    this.open = null;
    open.item.status = 'completed';
    const { item, outputIndex } = open;
    let out = '';
    if (item.type === 'message') {
      const part = (item.content as Array<{ text: string }>)[0]!;
      out += this.emit('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text: part.text, logprobs: [] });
      out += this.emit('response.content_part.done', { item_id: item.id, output_index: outputIndex, content_index: 0, part });
    } else {
      out += this.emit('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, arguments: item.arguments });
    }
    return out + this.emit('response.output_item.done', { output_index: outputIndex, item });
  }
}
