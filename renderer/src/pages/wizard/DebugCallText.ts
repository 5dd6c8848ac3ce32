/**
 * One-line summaries of an LLM call from the dry run's trace (request and response as the agent
 * sent and got them, already redacted by the backend). The three routes the dry run relays have
 * different shapes: chat completions (`messages` / `choices`), responses (`input` / `output`) and
 * Anthropic messages (`messages` / `content`). Anything else is shown as compact JSON.
 */

const MAX = 160;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string, max = MAX): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A message's content: a string, or parts with `text` (chat and Anthropic), joined. */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : null)).filter((p): p is string => p !== null);
    return parts.length > 0 ? parts.join(' ') : null;
  }
  return null;
}

function lastMessageText(messages: unknown): string | null {
  if (!Array.isArray(messages) || messages.length === 0) return null;
  const last: unknown = messages[messages.length - 1];
  return isObject(last) ? contentText(last.content) : null;
}

function json(value: unknown): string {
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** The model the agent asked for (`model` in the request), or null. */
export function requestModel(request: unknown): string | null {
  return isObject(request) && typeof request.model === 'string' && request.model !== '' ? request.model : null;
}

/** The last message the agent sent (what the call was about). */
export function requestSummary(request: unknown): string {
  if (isObject(request)) {
    const text = lastMessageText(request.messages) ?? (typeof request.input === 'string' ? request.input : lastMessageText(request.input));
    if (text !== null) return clip(text);
  }
  return clip(json(request));
}

/** What the LLM answered: the first choice, the output text, or the content parts. */
export function responseSummary(response: unknown): string {
  if (isObject(response)) {
    const choice: unknown = Array.isArray(response.choices) ? response.choices[0] : undefined;
    if (isObject(choice) && isObject(choice.message)) {
      const text = contentText(choice.message.content);
      if (text !== null) return clip(text);
    }
    if (typeof response.output_text === 'string') return clip(response.output_text);
    if (Array.isArray(response.output)) {
      const texts = response.output.map((item) => (isObject(item) ? contentText(item.content) : null)).filter((p): p is string => p !== null);
      if (texts.length > 0) return clip(texts.join(' '));
    }
    const content = contentText(response.content);
    if (content !== null) return clip(content);
  }
  return clip(json(response));
}
