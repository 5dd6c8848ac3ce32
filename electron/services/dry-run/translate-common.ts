/** What the Responses and Messages translators share with the relay. */
import { randomBytes } from 'node:crypto';
import type { ChatChunk } from './sse';

export interface ChatTranslation {
  /** The chat-completions request for the debug LLM, without `model` (the relay sets the debug LLM's). */
  chat: Record<string, unknown>;
  /** Request features with no chat-completions equivalent, dropped (kept in the trace so the user sees it). */
  dropped: string[];
}

/** Turns the debug LLM's chat chunks into the agent's stream format, event by event. */
export interface StreamTranslator {
  /** The events that open the stream (written once, when the stream opens). */
  start(): string;
  /** What keeps the agent's stream alive while the debug LLM has not answered yet. */
  keepalive(): string;
  chunk(chunk: ChatChunk): string;
  /** The closing events once the debug LLM's stream ended normally. */
  finishEvents(): string;
  /** An error after the stream opened (the HTTP status is already 200). */
  errorEvent(status: number, message: string): string;
  /** The whole answer as the agent's SDK would assemble it, for the trace. */
  result(): unknown;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}
