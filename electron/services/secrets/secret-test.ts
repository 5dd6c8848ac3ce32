import { AppError } from '../../shared/errors';
import type { LlmAttributes, SecretKind, SecretTestResult } from '../../shared/schemas-vault';
import { redactText as redact } from '../util/redact';
import type { SecretVaultApi } from './vault-api';

/** One test request waits this long for an answer (an endpoint that hangs must not hang the Test button). */
export const SECRET_TEST_TIMEOUT_MS = 15_000;
/** Bytes of an error answer read for its message (a proxy's HTML error page can be large). */
const MAX_ERROR_BODY_CHARS = 4096;
/** Characters of the server's own words kept in the message. */
const MAX_DETAIL_CHARS = 200;

export interface SecretTestOptions {
  timeoutMs?: number;
  /** Tests pass their own; default: Node's fetch. */
  fetch?: typeof fetch;
  now?: () => Date;
}

/** What "Test" means for the kinds that cannot be tested from the vault itself. */
const NOT_TESTABLE: Record<Exclude<SecretKind, 'llm'>, string> = {
  'ssh-password': 'An SSH password is tested by connecting to the server that uses it: choose it in the server’s settings and press “Test connection” on the Servers page.',
  'ssh-passphrase': 'A key passphrase is tested by connecting to a server that logs in with that key: choose it in the server’s settings and press “Test connection” on the Servers page.',
  swanlab: 'A SwanLab key cannot be tested here: it is given to the swarm container as env, and SwanLab checks it when training starts (see the container log).',
  env: 'A secret env value cannot be tested here: only the program in the swarm container that reads it knows what it is for.',
};

/**
 * Tests a secret for real and records the result with its metadata. An LLM endpoint gets
 * `GET {baseUrl}/models` with the key as a bearer token; where that route is missing (404/405,
 * as on some self-hosted servers) a 1-token chat completion with the endpoint's model instead.
 * The message is plain English and redacted (a server that echoes the key back must not show it;
 * the narrow payload rules, so "1-token" stays readable).
 */
export async function testSecret(vault: SecretVaultApi, id: string, options: SecretTestOptions = {}): Promise<SecretTestResult> {
  const meta = vault.meta(id);
  if (!meta) throw new AppError('SECRET_NOT_FOUND', `No secret with id "${id}" in the vault. It may have been deleted in another window.`);
  if (meta.kind !== 'llm') throw new AppError('VALIDATION_FAILED', NOT_TESTABLE[meta.kind]);
  if (!meta.llm) throw new AppError('VALIDATION_FAILED', `"${meta.name}" has no base URL and model: edit the endpoint and add them, then test again.`);
  const key = await vault.reveal(id);
  const result = await testLlmEndpoint(meta.llm, key, options);
  await vault.recordTest(id, result);
  return result;
}

type Answer = { status: number; statusText: string; body: string; latencyMs: number };
type Outcome = { answer: Answer } | { failure: string; latencyMs: number | null };

/** The endpoint test alone (no vault): used by `testSecret`, and by the dry run's Test of its LLM. */
export async function testLlmEndpoint(llm: LlmAttributes, key: string, options: SecretTestOptions = {}): Promise<SecretTestResult> {
  const at = (options.now ?? (() => new Date()))().toISOString();
  const base = llm.baseUrl.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
  const models = await request(`${base}/models`, { method: 'GET', headers }, options);
  if ('failure' in models) return { ok: false, at, status: null, latencyMs: models.latencyMs, method: 'models', message: redact(models.failure) };
  if (models.answer.status !== 404 && models.answer.status !== 405) return judgeModels(models.answer, llm.model, at);
  // No /models here: one token of a chat completion proves the key and the model together.
  const chat = await request(
    `${base}/chat/completions`,
    {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: llm.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1, stream: false }),
    },
    options,
  );
  if ('failure' in chat) return { ok: false, at, status: null, latencyMs: chat.latencyMs, method: 'chat', message: redact(chat.failure) };
  const { answer } = chat;
  const ok = answer.status >= 200 && answer.status < 300;
  const message = ok
    ? `${statusLine(answer)}, a 1-token chat completion with ${llm.model} answered (this endpoint has no GET /models)`
    : `${statusLine(answer)}: ${detailOf(answer)} (1-token chat completion with ${llm.model}; this endpoint has no GET /models)`;
  return { ok, at, status: answer.status, latencyMs: answer.latencyMs, method: 'chat', message: redact(message) };
}

function judgeModels(answer: Answer, model: string, at: string): SecretTestResult {
  const base = { at, status: answer.status, latencyMs: answer.latencyMs, method: 'models' as const };
  if (answer.status < 200 || answer.status >= 300) return { ...base, ok: false, message: redact(`${statusLine(answer)}: ${detailOf(answer)}`) };
  const ids = modelIds(answer.body);
  if (ids === null) return { ...base, ok: true, message: redact(`${statusLine(answer)}, but the answer is not an OpenAI model list`) };
  const listed = ids.includes(model) ? `${model} listed` : `${model} NOT listed (check the model name)`;
  return { ...base, ok: true, message: redact(`${statusLine(answer)}, ${ids.length} model${ids.length === 1 ? '' : 's'}, ${listed}`) };
}

function modelIds(body: string): string[] | null {
  try {
    const parsed = JSON.parse(body) as { data?: unknown };
    if (!Array.isArray(parsed.data)) return null;
    return parsed.data.flatMap((m) => (m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string' ? [(m as { id: string }).id] : []));
  } catch {
    return null;
  }
}

function statusLine(answer: Answer): string {
  return `${answer.status} ${answer.statusText || reasonOf(answer.status)}`.trim();
}

function reasonOf(status: number): string {
  const reasons: Record<number, string> = { 200: 'OK', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };
  return reasons[status] ?? '';
}

/** The server's own words: OpenAI's `{error: {message}}`, else a short piece of the body. */
function detailOf(answer: Answer): string {
  let detail = answer.body.trim();
  try {
    const parsed = JSON.parse(answer.body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const candidate = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message ?? parsed.detail);
    if (typeof candidate === 'string') detail = candidate;
  } catch {
    // Not JSON (a proxy's page): the text itself, shortened.
  }
  detail = detail.replace(/\s+/g, ' ');
  if (detail === '') return answer.status === 401 ? 'the key was refused' : 'no details given';
  return detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}…` : detail;
}

async function request(url: string, init: RequestInit, options: SecretTestOptions): Promise<Outcome> {
  const timeoutMs = options.timeoutMs ?? SECRET_TEST_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    // `redirect: 'error'`: a redirect would carry the key to wherever the endpoint points (fetch keeps Authorization on same-origin only, but a proxy may be same-origin).
    const response = await (options.fetch ?? fetch)(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    const latencyMs = elapsed();
    const body = (await response.text()).slice(0, response.ok ? 4 * 1024 * 1024 : MAX_ERROR_BODY_CHARS);
    return { answer: { status: response.status, statusText: response.statusText, body, latencyMs } };
  } catch (error) {
    return { failure: describeFailure(error, url, timeoutMs), latencyMs: null };
  }
}

function describeFailure(error: unknown, url: string, timeoutMs: number): string {
  const host = safeHost(url);
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') return `No answer from ${host} within ${Math.round(timeoutMs / 1000)} s. Check the base URL, or whether the server is up.`;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null;
  const code = (cause as NodeJS.ErrnoException | null)?.code;
  if (code === 'ECONNREFUSED') return `Nothing listens at ${host} (connection refused). Check the base URL and port.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `The host of ${host} was not found (DNS). Check the base URL.`;
  if (cause && /redirect/i.test(cause.message + (error as Error).message)) return `${host} answered with a redirect; the app does not follow it with your key. Use the final URL as the base URL.`;
  const text = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `Could not reach ${host}: ${code ?? text}`;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the endpoint';
  }
}
