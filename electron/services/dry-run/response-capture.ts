/**
 * Keeps a copy of what the relay writes to the agent, so /replay_latest_llm_call can answer {input, output} as
 * upstream does (overwatch's "t" mode) although the relay, not the server, writes the response.
 */
import type { ServerResponse } from 'node:http';
import type { LlmRoute } from './relay-contract';

/** A replayed answer larger than this is cut (overwatch shows only the start of it anyway). */
const MAX_CAPTURED_BYTES = 1024 * 1024;

export interface CapturedResponse {
  status: number;
  contentType: string;
  text: string;
  truncated: boolean;
}

type Chunk = string | Uint8Array;

export function captureResponse(res: ServerResponse): { result(): CapturedResponse } {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk);
    if (size + bytes.length > MAX_CAPTURED_BYTES) {
      truncated = true;
      return;
    }
    chunks.push(bytes);
    size += bytes.length;
  };
  // Headers given to writeHead directly are not readable with getHeader afterwards: note the content type here.
  let contentType: string | undefined;
  const writeHead = res.writeHead.bind(res);
  res.writeHead = ((statusCode: number, ...rest: unknown[]) => {
    const headers = rest.find((arg) => typeof arg === 'object' && arg !== null);
    contentType = headerOf(headers, 'content-type') ?? contentType;
    return (writeHead as (...args: unknown[]) => ServerResponse)(statusCode, ...rest);
  }) as typeof res.writeHead;
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = ((chunk: Chunk, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') keep(chunk, rest[0]);
    return (end as (...args: unknown[]) => ServerResponse)(chunk, ...rest);
  }) as typeof res.end;
  return {
    result: () => ({
      status: res.statusCode,
      contentType: contentType ?? String(res.getHeader('content-type') ?? ''),
      text: Buffer.concat(chunks).toString('utf8'),
      truncated,
    }),
  };
}

/** A header from writeHead's object or flat [name, value, …] array form. */
function headerOf(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    return undefined;
  }
  if (typeof headers !== 'object' || headers === null) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return String(value);
  return undefined;
}

/**
 * The output as upstream's replay shows it: the JSON answer; for a streamed chat answer, the chunks put back
 * together into one chat.completion; for other streams, their data events.
 */
export function summariseOutput(route: LlmRoute, captured: CapturedResponse): unknown {
  if (!captured.contentType.startsWith('text/event-stream')) {
    try {
      return JSON.parse(captured.text);
    } catch {
      return { text: captured.text, truncated: captured.truncated };
    }
  }
  const events: unknown[] = [];
  for (const line of captured.text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') continue;
    try {
      events.push(JSON.parse(data));
    } catch {
      // a partial event at the capture limit
    }
  }
  return route === 'chat' ? mergeChatChunks(events) : { stream: true, events, truncated: captured.truncated };
}

interface ChatChunk {
  id?: string;
  model?: string;
  created?: number;
  usage?: unknown;
  choices?: Array<{ delta?: { content?: string | null; role?: string }; finish_reason?: string | null }>;
}

function mergeChatChunks(events: unknown[]): unknown {
  let content = '';
  let role = 'assistant';
  let finishReason: string | null = null;
  let usage: unknown = null;
  let first: ChatChunk | undefined;
  for (const event of events as ChatChunk[]) {
    first ??= event;
    if (event.usage) usage = event.usage;
    const choice = event.choices?.[0];
    if (!choice) continue;
    if (choice.delta?.role) role = choice.delta.role;
    if (typeof choice.delta?.content === 'string') content += choice.delta.content;
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return {
    id: first?.id ?? null,
    object: 'chat.completion',
    created: first?.created ?? null,
    model: first?.model ?? null,
    choices: [{ index: 0, message: { role, content }, finish_reason: finishReason }],
    usage,
  };
}
