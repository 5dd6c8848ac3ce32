// TEST DOUBLE — NOT the dry run's LLM relay (electron/services/dry-run/llm-relay.ts). An LlmRelay that answers
// every chat call with a canned echo the way upstream's server re-emits a finished generation (c68c154: a
// ChatCompletion, or for stream:true exactly three SSE chunks and [DONE], the usage in the last one), so the
// conformance suite can check the dry-run server's own part of /v1/chat/completions without any LLM.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { LlmRelay, LlmRoute, RelayEpisode } from '../../../electron/services/dry-run/relay-contract';

export interface EchoRelay extends LlmRelay {
  /** Every call the server handed over, in order. */
  calls: Array<{ route: LlmRoute; episode: RelayEpisode; body: Record<string, unknown> }>;
}

export function createEchoRelay(): EchoRelay {
  const calls: EchoRelay['calls'] = [];
  return {
    calls,
    async handle(route, episode, body, _req, res) {
      calls.push({ route, episode, body });
      const completion = echo(body, episode.callIndex);
      if (body.stream !== true) return sendJson(res, completion);
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      const model = typeof body.model === 'string' && body.model !== '' ? body.model : 'unknown_model';
      const chunk = (delta: Record<string, string>, finish: string | null, usage?: unknown) => ({
        id: completion.id,
        choices: [{ delta, finish_reason: finish, index: 0, logprobs: null }],
        created: completion.created,
        model,
        object: 'chat.completion.chunk',
        ...(usage ? { usage } : {}),
      });
      const events = [chunk({ content: '', role: 'assistant' }, null), chunk({ content: completion.choices[0]!.message.content }, null), chunk({ content: '' }, 'stop', completion.usage)];
      for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
      res.end('data: [DONE]\n\n');
    },
  };
}

function echo(body: Record<string, unknown>, callIndex: number) {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: string; content?: unknown }>) : [];
  const last = [...messages].reverse().find((m) => m?.role === 'user');
  const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  const content = `[echo relay] reply #${callIndex} to: ${text.slice(0, 200)}`;
  const prompt = Math.ceil(JSON.stringify(messages).length / 4);
  const completion = Math.ceil(content.length / 4);
  return {
    id: `chatcmpl-${randomUUID().replace(/-/g, '')}`,
    // The keys the openai SDK always serialises, as upstream's re-serialised ChatCompletion has them (issue 30 §3).
    choices: [{ finish_reason: 'stop', index: 0, logprobs: null, message: { content, role: 'assistant', refusal: null, annotations: null, audio: null, function_call: null, tool_calls: null } }],
    created: Math.floor(Date.now() / 1000),
    model: 'echo-relay',
    object: 'chat.completion',
    service_tier: null,
    usage: { completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion },
  };
}

function sendJson(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
