import { randomUUID } from 'node:crypto';
import { AppError } from '../../shared/errors';
import { rememberSecretValue } from '../util/redact';
import type { SecretPrompt } from '../../shared/schemas-servers';
import type { SecretRequest } from './ssh-auth';

/** How long a prompt waits for the user before it counts as cancelled (default 5 min). */
export const PROMPT_TIMEOUT_MS = 5 * 60_000;

interface Pending {
  prompt: SecretPrompt;
  settle: (value: string | null) => void;
}

/**
 * The secrets the backend is waiting for (passphrase, password, keyboard-interactive answer), one
 * entry per question with a random id. The answer goes straight to whoever asked: it is never
 * stored here, put in an event, logged, or part of an error.
 */
export class SecretPrompts {
  private readonly pending = new Map<string, Pending>();

  constructor(
    /** Called when a prompt appears or goes: the owner publishes a fresh `servers:changed` snapshot. */
    private readonly onChange: (serverId: string) => void,
    private readonly timeoutMs = PROMPT_TIMEOUT_MS,
  ) {}

  /** Shows the question and waits for the answer; null when cancelled, timed out, or the server was disconnected. */
  ask(serverId: string, request: SecretRequest): Promise<string | null> {
    return new Promise((resolve) => {
      const promptId = randomUUID();
      const timer = setTimeout(() => settle(null), this.timeoutMs);
      timer.unref?.();
      const settle = (value: string | null): void => {
        if (!this.pending.delete(promptId)) return;
        clearTimeout(timer);
        resolve(value);
        this.onChange(serverId);
      };
      this.pending.set(promptId, {
        prompt: { promptId, serverId, kind: request.kind, prompt: request.prompt, echo: request.echo },
        settle,
      });
      this.onChange(serverId);
    });
  }

  /** The oldest question waiting for `serverId` (one is shown at a time). */
  current(serverId: string): SecretPrompt | null {
    for (const { prompt } of this.pending.values()) if (prompt.serverId === serverId) return { ...prompt };
    return null;
  }

  /** The user's answer (null: cancel). PROMPT_NOT_FOUND when the question was answered, timed out or withdrawn. */
  answer(promptId: string, value: string | null): void {
    const entry = this.pending.get(promptId);
    if (!entry) {
      throw new AppError('PROMPT_NOT_FOUND', 'That question is no longer open (it was answered, timed out or the connection was stopped). Connect again to be asked again.');
    }
    // A hidden answer is a secret: from now on the one redactor hides it in every log, event and error.
    if (value !== null && !entry.prompt.echo) rememberSecretValue(value);
    entry.settle(value);
  }

  /** Withdraws every question of a server (disconnect, removal): each one counts as cancelled. */
  cancelAll(serverId: string): void {
    for (const entry of [...this.pending.values()]) if (entry.prompt.serverId === serverId) entry.settle(null);
  }
}
