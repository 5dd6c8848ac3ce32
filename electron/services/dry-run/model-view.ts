/**
 * What the trained model receives for an agent's LLM call, as upstream's server rewrites it (oai_model_server.py and
 * its Responses/Messages translators, c68c154 and newer; reference §1.3): a default system message is put first when
 * the first message is not one, and for train episodes the request's sampling parameters are ignored — vLLM samples
 * with the job's settings (ajet.rollout.temperature). Eval episodes keep their parameters. The dry run sends the rewritten request to the debug LLM, so a debug run sees what training
 * will, and the trace shows both the agent's request and this one.
 */
import type { ModelChange } from '../../shared/schemas-dryrun';
import type { LlmRoute } from './relay-contract';

export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant, your name is AgentJet.';

/** vLLM's sampling parameters among the chat-completions fields: a train episode's request loses them. */
const SAMPLING = new Set([
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'seed',
  'n',
  'stop',
  'logit_bias',
  'logprobs',
  'top_logprobs',
]);

export interface ModelSampling {
  /** ajet.rollout.temperature of the synced job. */
  temperature: number;
}

export interface ModelView {
  /** The chat-completions body the model receives (before the debug LLM's model name is set). */
  chat: Record<string, unknown>;
  /** What changed, for the trace (the renderer words it). */
  changes: ModelChange[];
}

type Message = { role?: unknown };

/**
 * Whether upstream inserts the default system message. The chat and Responses routes do so only when there are
 * messages; the Messages route also when there are none (its translator checks `not messages or …`).
 */
function needsSystem(route: LlmRoute, messages: Message[]): boolean {
  if (messages.length === 0) return route === 'messages';
  return messages[0]?.role !== 'system';
}

export function trainedModelView(route: LlmRoute, chat: Record<string, unknown>, episode: { isEval: boolean; sampling: ModelSampling }): ModelView {
  const changes: ModelChange[] = [];
  let out: Record<string, unknown> = { ...chat };
  const messages = Array.isArray(chat.messages) ? (chat.messages as Message[]) : null;
  if (messages && needsSystem(route, messages)) {
    out.messages = [{ role: 'system', content: DEFAULT_SYSTEM_PROMPT }, ...messages];
    changes.push({ kind: 'system-inserted', content: DEFAULT_SYSTEM_PROMPT });
  }
  if (!episode.isEval) {
    const ignored = Object.keys(out).filter((key) => SAMPLING.has(key));
    out = Object.fromEntries(Object.entries(out).filter(([key]) => !SAMPLING.has(key)));
    out.temperature = episode.sampling.temperature;
    changes.push({ kind: 'sampling-from-job', ignored, temperature: episode.sampling.temperature });
  }
  return { chat: out, changes };
}
