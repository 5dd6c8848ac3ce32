/**
 * The dry run's LLM relay: an episode's LLM call (after the server's swarm checks) goes to the user's debug LLM,
 * any OpenAI-compatible chat-completions endpoint, with the debug LLM's model and key — the agent's `model` field
 * is ignored as upstream ignores it (reference §1.3) — and rewritten as upstream rewrites it for the trained model
 * (model-view.ts: default system message, the job's sampling for train episodes). Chat answers are passed on as they
 * come, in upstream's shape (chat-answer.ts: the SDK's keys, the request's model and usage at the end of a stream),
 * while a copy is parsed for the trace. /v1/responses and /v1/messages are translated to chat completions
 * (translate-responses.ts, translate-messages.ts).
 *
 * Upstream's GPU server has no rate limits or outages of a third party, so there is no upstream text to copy for
 * those; the relay answers the way an OpenAI-compatible server does: the debug LLM's status, body and Retry-After
 * pass through (so the agent's SDK retries a 429 or 500 as it would against the LLM itself), a debug LLM that
 * cannot be reached is a 502 naming it, and a refused key is a 502 too (the agent's own routing key is fine).
 * Streams stay alive as newer upstream keeps them (`: keepalive` every 5 s; `event: ping` after message_start for
 * /v1/messages) and, like newer upstream, an error after a stream opened ends the 200 stream early — with an error
 * event the SDKs raise. The key is never logged, traced or put into an error (and is scrubbed from error bodies).
 */
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { MIN_KNOWN_SECRET_CHARS, REDACTED, rememberSecretValue } from '../util/redact';
import { ChatStreamNormalizer, withSdkKeys } from './chat-answer';
import { trainedModelView } from './model-view';
import type { LlmRelay, LlmRoute, RelayEpisode } from './relay-contract';
import { ChatChunkMerger, SseParser, parseChatChunk, type ChatChunk, type ChatCompletion } from './sse';
import { anthropicError, chatToMessages, messagesToChat, MessagesStream } from './translate-messages';
import { chatToResponse, openAiError, responsesToChat, ResponsesStream } from './translate-responses';
import type { LlmCallRecord } from './trace-store';
import { estimateTokens, type Call, type LlmRelayOptions } from './llm-relay-call';
import {
  completionAsChunk,
  describeLlmError,
  describeNetworkError,
  MAX_BODY_BYTES,
  onCut,
  parseJson,
  readBody,
  sendJson,
  usageFromTranslated,
  usageOf,
  type TokenUsage,
} from './llm-relay-util';

export type { LlmRelayOptions } from './llm-relay-call';

export class DebugLlmRelay implements LlmRelay {
  private readonly endpoint: URL;
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private readonly keepaliveMs: number;
  private readonly touchMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: LlmRelayOptions) {
    this.endpoint = new URL(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`);
    const https = this.endpoint.protocol === 'https:';
    // Keep-alive and LIFO: 64 concurrent episodes reuse warm sockets instead of a handshake per call.
    const agentOptions = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo' as const };
    this.agent = https ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.send = https ? httpsRequest : httpRequest;
    this.keepaliveMs = options.keepaliveMs ?? 5000;
    this.touchMs = options.touchMs ?? 6000;
    this.timeoutMs = options.timeoutMs ?? 3_600_000;
    rememberSecretValue(options.apiKey);
  }

  close(): void {
    this.agent.destroy();
  }

  async handle(route: LlmRoute, episode: RelayEpisode, body: Record<string, unknown>, _req: IncomingMessage, res: ServerResponse): Promise<void> {
    const call: Call = {
      route,
      episode,
      body,
      res,
      stream: body.stream === true,
      startedAt: Date.now(),
      opened: false,
      translator: null,
      requestForTrace: body,
      modelRequest: null,
      modelChanges: [],
      usageEstimated: false,
    };
    const admission = this.options.spend.admit(episode.episodeUuid, episode.callIndex);
    if (!admission.ok) {
      this.options.log?.('warn', `LLM call ${episode.callIndex} of episode ${episode.episodeUuid} refused: ${admission.reason}`);
      this.sendError(call, 403, admission.reason, 'dry_run_limit');
      this.record(call, 403, null, null, admission.reason);
      return;
    }
    let asked: Record<string, unknown>;
    if (route === 'chat') asked = body;
    else {
      const translated = route === 'responses' ? responsesToChat(body) : messagesToChat(body);
      asked = translated.chat;
      if (translated.dropped.length > 0) call.requestForTrace = { ...body, _dry_run_dropped: translated.dropped };
      if (call.stream) call.translator = route === 'responses' ? new ResponsesStream(body, this.options.model) : new MessagesStream(String(body.model ?? this.options.model));
    }
    // What the trained model would get (default system message, the job's sampling for train episodes) goes to the
    // debug LLM, so the debug run sees what training will.
    const view = trainedModelView(route, asked, episode);
    const chat: Record<string, unknown> = { ...view.chat, model: this.options.model };
    // Upstream always sends usage at the end of a stream: ask the debug LLM to count (chat-answer.ts passes it on).
    if (call.stream && route === 'chat') chat.stream_options = { ...(chat.stream_options as object | undefined), include_usage: true };
    call.modelRequest = chat;
    call.modelChanges = view.changes;
    const touch = setInterval(() => episode.touch(), this.touchMs);
    try {
      await this.forward(call, JSON.stringify(chat));
    } finally {
      clearInterval(touch);
    }
  }

  private forward(call: Call, payload: string): Promise<void> {
    return new Promise<void>((resolve) => {
      let done = false;
      let keepalive: NodeJS.Timeout | undefined;
      const finish: Finish = (status, response, usage, error, responseBytes) => {
        if (done) return;
        done = true;
        clearTimeout(keepalive);
        clearInterval(keepalive);
        // Failed calls cost nothing; a success without usage is estimated (4 characters a token).
        if (status >= 200 && status < 300) {
          this.options.spend.settle(usage ?? { promptTokens: estimateTokens(payload), completionTokens: Math.ceil((responseBytes ?? 0) / 4) });
        }
        this.record(call, status, response, usage, error, payload.length, responseBytes);
        resolve();
      };
      if (call.stream) {
        keepalive = setTimeout(() => {
          this.open(call);
          call.res.write(call.translator ? call.translator.keepalive() : ': keepalive\n\n');
          keepalive = setInterval(() => call.res.write(call.translator ? call.translator.keepalive() : ': keepalive\n\n'), this.keepaliveMs);
        }, this.keepaliveMs);
      }
      let upstream: ClientRequest;
      const attempt = (retry: boolean): void => {
        upstream = this.send(this.endpoint, {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            accept: call.stream ? 'text/event-stream' : 'application/json',
            authorization: `Bearer ${this.options.apiKey}`,
          },
        });
        const sent = upstream;
        sent.setTimeout(this.timeoutMs, () => sent.destroy(new Error(`no answer for ${Math.round(this.timeoutMs / 1000)} s`)));
        sent.on('response', (answer) => {
          // A reset mid-answer shows as 'close' without `complete` (handled per path); the 'error' must not go unheard.
          answer.on('error', () => undefined);
          clearTimeout(keepalive);
          clearInterval(keepalive);
          const status = answer.statusCode ?? 502;
          if (status < 200 || status >= 300) this.upstreamFailed(call, answer, status, finish);
          else if (call.route === 'chat') this.passThrough(call, answer, status, finish);
          else this.translate(call, answer, finish);
        });
        sent.on('error', (error: NodeJS.ErrnoException) => {
          if (done) return;
          // A kept-alive socket the LLM closed as idle just as we reused it: the request never got there; Node's
          // documented remedy is to send it again, once, on a fresh socket.
          if (retry && sent.reusedSocket && error.code === 'ECONNRESET') {
            attempt(false);
            return;
          }
          const reason = `The dry run could not reach the debug LLM at ${this.endpoint.origin}: ${describeNetworkError(error)}. Check that it is running and that the base URL in the dry run settings is right.`;
          this.options.log?.('warn', `LLM call of episode ${call.episode.episodeUuid} failed: ${reason}`);
          if (!call.res.headersSent) this.sendError(call, 502, reason, 'dry_run_llm_unreachable');
          else this.streamError(call, 502, reason);
          finish(502, null, null, reason);
        });
        sent.end(payload);
      };
      attempt(true);
      // The agent gave up (closed its connection): stop the debug LLM's work too.
      call.res.on('close', () => {
        if (!call.res.writableFinished && !done) {
          upstream.destroy();
          finish(499, null, null, 'The agent closed the connection before the answer was complete.');
        }
      });
    });
  }

  /** Chat route, 2xx: the LLM's bytes to the agent unchanged; a parsed copy for the trace and the token count. */
  private passThrough(call: Call, answer: IncomingMessage, status: number, finish: Finish): void {
    if (!String(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      // Not streamed: the agent needs the whole body anyway, so it goes in one write (one syscall, not three).
      readBody(answer, (body, complete) => {
        if (!complete) {
          this.midStreamFailure(call, finish);
          return;
        }
        const parsed = body.length <= MAX_BODY_BYTES ? (parseJson(body.toString('utf8')) as ChatCompletion | null) : null;
        if (call.opened) {
          // The stream was opened by keepalives but the LLM ignored `stream: true`: its answer as one chunk.
          const chunk = completionAsChunk(parsed);
          call.res.end(`${chunk ? `data: ${JSON.stringify(chunk)}\n\n` : ''}data: [DONE]\n\n`);
        } else {
          // Upstream's keys (refusal, annotations … as null) when it is a completion; anything else as it came.
          const out = parsed?.choices ? Buffer.from(JSON.stringify(withSdkKeys(parsed as unknown as Record<string, unknown>))) : body;
          call.res.writeHead(status, { 'content-type': String(answer.headers['content-type'] ?? 'application/json'), 'content-length': out.length });
          call.res.end(out);
        }
        finish(status, parsed ?? { cut: `${body.length} bytes, not JSON or too large for the trace` }, usageOf(parsed?.usage), null, body.length);
      }, Number.POSITIVE_INFINITY);
      return;
    }
    if (!call.opened) {
      call.res.writeHead(status, { 'content-type': String(answer.headers['content-type']), 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
      call.opened = true;
    }
    const parser = new SseParser();
    const merger = new ChatChunkMerger();
    // Event by event as it comes, in upstream's shape: the request's model, usage in the last chunk (chat-answer.ts).
    const requestModel = typeof call.body.model === 'string' ? call.body.model : null;
    const normalizer = new ChatStreamNormalizer(requestModel, () => ({
      promptTokens: estimateTokens(JSON.stringify(call.modelRequest)),
      completionTokens: estimateTokens(JSON.stringify(merger.result())),
    }));
    let bytes = 0;
    const take = (events: Array<{ data: string }>): void => {
      let out = '';
      for (const event of events) {
        const parsed = parseChatChunk(event.data);
        if (parsed) merger.add(parsed);
        out += normalizer.event(event.data);
      }
      if (out) call.res.write(out);
    };
    answer.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      take(parser.push(chunk));
    });
    answer.on('end', () => {
      take(parser.end());
      call.res.end(normalizer.end());
      call.usageEstimated = normalizer.estimated;
      finish(status, merger.result(), usageOf(merger.usage) ?? normalizer.estimatedUsage, merger.error ? describeLlmError(merger.error) : null, bytes);
    });
    onCut(answer, () => this.midStreamFailure(call, finish));
  }

  /** Responses / Messages, 2xx: the chat answer (stream or not) turned into the agent's format. */
  private translate(call: Call, answer: IncomingMessage, finish: Finish): void {
    const streamed = String(answer.headers['content-type'] ?? '').startsWith('text/event-stream');
    if (call.translator) {
      const translator = call.translator;
      this.open(call);
      const parser = new SseParser();
      const onChunk = (chunk: ChatChunk | null): void => {
        if (chunk) call.res.write(translator.chunk(chunk));
      };
      let text = '';
      answer.on('data', (chunk: Buffer) => {
        if (streamed) for (const event of parser.push(chunk)) onChunk(parseChatChunk(event.data));
        else text += chunk.toString('utf8');
      });
      answer.on('end', () => {
        if (streamed) for (const event of parser.end()) onChunk(parseChatChunk(event.data));
        // A debug LLM that ignored `stream: true` answered one JSON completion: replay it as one chunk.
        else onChunk(completionAsChunk(parseJson(text) as ChatCompletion | null));
        call.res.end(translator.finishEvents());
        const result = translator.result() as { usage?: Record<string, number> };
        finish(200, result, usageFromTranslated(result.usage), null);
      });
      onCut(answer, () => this.midStreamFailure(call, finish));
      return;
    }
    readBody(answer, (body) => {
      const text = body.toString('utf8');
      const completion = parseJson(text) as ChatCompletion | null;
      if (!completion?.choices) {
        const reason = `The debug LLM answered HTTP 200 without a chat completion: ${text.slice(0, 200)}`;
        this.sendError(call, 502, reason, 'dry_run_llm_bad_answer');
        finish(502, text, null, reason);
        return;
      }
      const translated = call.route === 'responses' ? chatToResponse(completion, call.body) : chatToMessages(completion, String(call.body.model ?? ''));
      sendJson(call.res, 200, translated);
      finish(200, translated, usageOf(completion.usage), null);
    });
  }

  /** The debug LLM answered an error status: to the agent as the LLM said it (401/403: our key, so a 502). */
  private upstreamFailed(call: Call, answer: IncomingMessage, status: number, finish: Finish): void {
    readBody(answer, (raw) => {
      const text = this.scrub(raw.toString('utf8'));
      const parsed = parseJson(text);
      const llmMessage = describeLlmError(parsed ?? text);
      const keyRefused = status === 401 || status === 403;
      const reason = keyRefused
        ? `The debug LLM at ${this.endpoint.origin} refused the dry run's key (HTTP ${status}: ${llmMessage}). Check the debug LLM's key in the dry run settings.`
        : `The debug LLM answered HTTP ${status}: ${llmMessage}`;
      if (call.res.headersSent) this.streamError(call, status, reason);
      else if (keyRefused) this.sendError(call, 502, reason, 'dry_run_llm_key_refused');
      else {
        const headers: Record<string, string> = {};
        for (const name of ['retry-after', 'retry-after-ms', 'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
          const value = answer.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        if (call.route === 'messages') sendJson(call.res, status, anthropicError(status, llmMessage), headers);
        else {
          call.res.writeHead(status, { 'content-type': String(answer.headers['content-type'] ?? 'application/json'), ...headers });
          call.res.end(text);
        }
      }
      finish(keyRefused ? 502 : status, parsed ?? text, null, reason);
    });
  }

  private midStreamFailure(call: Call, finish: Finish): void {
    const reason = 'The debug LLM closed the connection before its answer was complete.';
    if (call.opened) this.streamError(call, 502, reason);
    else call.res.destroy();
    finish(502, null, null, reason);
  }

  private open(call: Call): void {
    if (call.opened || call.res.headersSent) return;
    call.opened = true;
    call.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    if (call.translator) call.res.write(call.translator.start());
  }

  /** An error after the 200 stream opened: an error event the SDKs raise, then the stream ends early. */
  private streamError(call: Call, status: number, reason: string): void {
    if (call.res.writableEnded) return;
    const type = status === 429 ? 'rate_limit_exceeded' : 'server_error';
    call.res.end(call.translator ? call.translator.errorEvent(status, reason) : `data: ${JSON.stringify(openAiError(reason, type))}\n\n`);
  }

  private sendError(call: Call, status: number, message: string, type: string): void {
    sendJson(call.res, status, call.route === 'messages' ? anthropicError(status, message) : openAiError(message, type, type));
  }

  private scrub(text: string): string {
    // A placeholder key such as vLLM's "EMPTY" is no secret, and blanking that word everywhere would garble errors.
    const key = this.options.apiKey;
    return key.length >= MIN_KNOWN_SECRET_CHARS ? text.split(key).join(REDACTED) : text;
  }

  private record(call: Call, status: number, response: unknown, usage: TokenUsage | null, error: string | null, requestBytes?: number, responseBytes?: number): void {
    const record: LlmCallRecord = {
      callId: randomUUID(),
      episodeUuid: call.episode.episodeUuid,
      taskId: call.episode.taskId,
      clientUuid: call.episode.clientUuid,
      step: call.episode.step,
      route: call.route,
      stream: call.stream,
      startedAt: call.startedAt,
      latencyMs: Date.now() - call.startedAt,
      status,
      request: call.requestForTrace,
      ...(call.modelRequest ? { modelRequest: call.modelRequest, modelChanges: call.modelChanges } : {}),
      response,
      ...(call.usageEstimated ? { usageEstimated: true } : {}),
      promptTokens: usage?.promptTokens ?? null,
      completionTokens: usage?.completionTokens ?? null,
      error: error === null ? null : this.scrub(error),
      requestBytes,
      responseBytes,
    };
    try {
      this.options.calls?.call(record);
    } catch (e) {
      this.options.log?.('error', `the trace could not record an LLM call: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** Ends a call once: spend, trace. `responseBytes` (as received from the LLM) sizes the trace without serialising. */
type Finish = (status: number, response: unknown, usage: TokenUsage | null, error: string | null, responseBytes?: number) => void;
