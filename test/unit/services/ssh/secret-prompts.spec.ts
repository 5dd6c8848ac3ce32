import { describe, expect, it, vi } from 'vitest';
import { SecretPrompts } from '../../../../electron/services/ssh/secret-prompts';

const request = { kind: 'passphrase' as const, prompt: 'Passphrase for /k', echo: false };

describe('SecretPrompts', () => {
  it('shows one question per server with a random id and hands the answer to the asker only', async () => {
    const changes: string[] = [];
    const prompts = new SecretPrompts((id) => changes.push(id));
    const answer = prompts.ask('a', request);
    const shown = prompts.current('a')!;
    expect(shown).toMatchObject({ serverId: 'a', kind: 'passphrase', prompt: 'Passphrase for /k', echo: false });
    expect(shown.promptId).toMatch(/^[0-9a-f-]{36}$/);
    expect(prompts.current('b')).toBeNull();
    prompts.answer(shown.promptId, 'canary-secret');
    expect(await answer).toBe('canary-secret');
    expect(prompts.current('a')).toBeNull();
    expect(changes).toEqual(['a', 'a']);
    expect(JSON.stringify(shown)).not.toContain('canary-secret');
    // Answered: the id is gone.
    expect(() => prompts.answer(shown.promptId, 'again')).toThrow(expect.objectContaining({ code: 'PROMPT_NOT_FOUND' }));
  });

  it('null is a cancel; unknown ids are PROMPT_NOT_FOUND', async () => {
    const prompts = new SecretPrompts(() => undefined);
    const answer = prompts.ask('a', request);
    expect(() => prompts.answer('not-an-id', 'x')).toThrow(expect.objectContaining({ code: 'PROMPT_NOT_FOUND' }));
    prompts.answer(prompts.current('a')!.promptId, null);
    expect(await answer).toBeNull();
  });

  it('a question nobody answers counts as cancelled after the timeout', async () => {
    vi.useFakeTimers();
    try {
      const prompts = new SecretPrompts(() => undefined, 1000);
      const answer = prompts.ask('a', request);
      vi.advanceTimersByTime(1000);
      expect(await answer).toBeNull();
      expect(prompts.current('a')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('cancelAll withdraws only that server’s questions', async () => {
    const prompts = new SecretPrompts(() => undefined);
    const a = prompts.ask('a', request);
    const b = prompts.ask('b', request);
    prompts.cancelAll('a');
    expect(await a).toBeNull();
    expect(prompts.current('b')).not.toBeNull();
    prompts.answer(prompts.current('b')!.promptId, 'x');
    expect(await b).toBe('x');
  });
});
