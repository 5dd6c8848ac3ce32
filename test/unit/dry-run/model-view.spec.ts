// What the trained model receives (model-view.ts): upstream's default system message and, for train episodes, the
// job's sampling instead of the request's (reference §1.3; oai_model_server.py and its translators).
import { describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT, trainedModelView } from '../../../electron/services/dry-run/model-view';

const SYSTEM = { role: 'system', content: DEFAULT_SYSTEM_PROMPT };
const train = { isEval: false, sampling: { temperature: 0.7 } };
const evaluation = { isEval: true, sampling: { temperature: 0.7 } };

describe('trainedModelView', () => {
  it('puts the default system message first when the first message is not one, and only then', () => {
    const user = { role: 'user', content: 'hi' };
    expect(trainedModelView('chat', { messages: [user] }, evaluation)).toEqual({ chat: { messages: [SYSTEM, user] }, changes: [{ kind: 'system-inserted', content: DEFAULT_SYSTEM_PROMPT }] });
    const own = { role: 'system', content: 'mine' };
    expect(trainedModelView('chat', { messages: [own, user] }, evaluation)).toEqual({ chat: { messages: [own, user] }, changes: [] });
  });

  it('with no messages: the chat and Responses routes add none, the Messages route adds one (its translator checks `not messages`)', () => {
    expect(trainedModelView('chat', { messages: [] }, evaluation).chat.messages).toEqual([]);
    expect(trainedModelView('responses', { messages: [] }, evaluation).chat.messages).toEqual([]);
    expect(trainedModelView('messages', { messages: [] }, evaluation).chat.messages).toEqual([SYSTEM]);
  });

  it("a train episode loses the request's sampling fields and gets the job's temperature; other fields stay", () => {
    const asked = { messages: [SYSTEM], temperature: 0, top_p: 0.1, max_tokens: 9, stop: ['x'], seed: 1, tools: [], tool_choice: 'auto', response_format: { type: 'json_object' }, stream: true };
    const view = trainedModelView('chat', asked, train);
    expect(view.chat).toEqual({ messages: [SYSTEM], tools: [], tool_choice: 'auto', response_format: { type: 'json_object' }, stream: true, temperature: 0.7 });
    expect(view.changes).toEqual([{ kind: 'sampling-from-job', ignored: ['temperature', 'top_p', 'max_tokens', 'stop', 'seed'], temperature: 0.7 }]);
    // The agent's object is not changed (the trace shows it as sent).
    expect(asked.temperature).toBe(0);
  });
});
