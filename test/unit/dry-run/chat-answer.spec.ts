// chat-answer.ts on its own: a stream's usage moved into the finish chunk or estimated when the LLM sent none; the
// openai SDK's keys on a plain completion. The relay's use of it is tested in dry-run-with-relay.spec.ts.
import { describe, expect, it } from 'vitest';
import { ChatStreamNormalizer, withSdkKeys } from '../../../electron/services/dry-run/chat-answer';

const chunk = (extra: Record<string, unknown>) => JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'llm-model', ...extra });
const parse = (text: string) => text.split('\n\n').filter(Boolean).map((b) => b.slice('data: '.length));

describe('ChatStreamNormalizer', () => {
  it("holds the finish chunk until the LLM's usage chunk, then sends them as one, with the request's model", () => {
    const n = new ChatStreamNormalizer('agent-model', () => ({ promptTokens: 1, completionTokens: 1 }));
    expect(parse(n.event(chunk({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] })))).toHaveLength(1);
    expect(n.event(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }))).toBe('');
    const out = parse(n.event(chunk({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })));
    expect(out.map((d) => JSON.parse(d))).toEqual([expect.objectContaining({ model: 'agent-model', choices: [expect.objectContaining({ finish_reason: 'stop' })], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })]);
    expect(parse(n.event('[DONE]'))).toEqual(['[DONE]']);
    expect(n.estimated).toBe(false);
  });

  it('estimates the usage when the LLM sends none, and says so', () => {
    const n = new ChatStreamNormalizer(null, () => ({ promptTokens: 3, completionTokens: 4 }));
    n.event(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    const [finish, done] = parse(n.event('[DONE]'));
    expect(JSON.parse(finish!)).toMatchObject({ model: 'llm-model', usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
    expect(done).toBe('[DONE]');
    expect(n.estimated).toBe(true);
    expect(n.estimatedUsage).toEqual({ promptTokens: 3, completionTokens: 4 });
  });
});

describe('withSdkKeys', () => {
  it('adds the message keys and service_tier as null where absent and keeps the rest', () => {
    const out = withSdkKeys({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: 'a', tool_calls: [{ id: 't' }] }, finish_reason: 'stop' }] });
    expect(out).toEqual({
      id: 'x',
      service_tier: null,
      choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: 'a', tool_calls: [{ id: 't' }], refusal: null, annotations: null, audio: null, function_call: null } }],
    });
  });
});
