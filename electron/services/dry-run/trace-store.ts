/**
 * The dry run's episode trace: the server's lifecycle events (TraceSink) and every LLM call the relay answered,
 * in memory for the trace view (query by step / task, newest first, paged) and exported as JSONL. Calls are
 * redacted when first read (get, export), not when recorded: redaction costs a fifth of the relay's CPU per call and
 * most calls are never opened; nothing leaves the store unredacted (the relay scrubs the debug LLM's key from what
 * it records, and the process-wide redactor knows it too). Memory is bounded: one call's
 * request or response over `maxCallBytes` is cut to a preview, and past `maxBytes` / `maxCalls` / `maxEpisodes`
 * the oldest episodes are dropped whole (never the one being written); `capped` says so in pages and exports.
 */
import { join } from 'node:path';
import type { EpisodeTrace, EpisodeTraceSummary, LlmCallTrace, ModelChange, TraceExport, TracePage, TraceQuery } from '../../shared/schemas-dryrun';
import { writeFileAtomic } from '../util/atomic-file';
import { REDACTED, redact } from '../util/redact';
import type { EpisodeTraceEvent, LlmRoute, StepTraceEvent, TraceSink } from './relay-contract';

/** One LLM call as the relay saw it (unredacted; the store redacts). */
export interface LlmCallRecord {
  callId: string;
  episodeUuid: string;
  taskId: string | null;
  clientUuid: string | null;
  step: number;
  route: LlmRoute;
  stream: boolean;
  /** Epoch milliseconds when the agent's call arrived. */
  startedAt: number;
  latencyMs: number | null;
  status: number;
  /** As the agent sent it. */
  request: unknown;
  /** As the model received it (upstream's rewrite: default system message, the job's sampling), and what changed. */
  modelRequest?: unknown;
  modelChanges?: ModelChange[];
  /** The agent got an estimated usage (the debug LLM sent none). */
  usageEstimated?: boolean;
  response: unknown;
  promptTokens: number | null;
  completionTokens: number | null;
  error: string | null;
  /** Sizes as sent / received, when the relay knows them (saves serialising to size the trace). */
  requestBytes?: number;
  responseBytes?: number;
}

export interface LlmCallSink {
  call(record: LlmCallRecord): void;
}

export interface TraceStoreOptions {
  /** Bytes of stored requests and responses (JSON) per dry run. Default 64 MiB. */
  maxBytes?: number;
  /** Calls kept per dry run. Default 50,000. */
  maxCalls?: number;
  /** Episodes kept per dry run. Default 20,000. */
  maxEpisodes?: number;
  /** A request or response larger than this (JSON) is kept as a cut preview. Default 256 KiB. */
  maxCallBytes?: number;
  /** Step walk entries kept. Default 2,000. */
  maxSteps?: number;
}

/** A call as recorded (`raw`) until it is first read, then redacted once (`trace`). */
interface StoredCall {
  raw: LlmCallRecord | null;
  trace: LlmCallTrace | null;
  bytes: number;
}

interface EpisodeEntry {
  summary: EpisodeTraceSummary;
  metadata: unknown;
  calls: StoredCall[];
  bytes: number;
}

type StepRow = TracePage['steps'][number];

const SECRET_KEY = /^(?:authorization|x-api-key|api[_-]?key|password|secret)$/i;
const MAX_DEPTH = 48;
const PREVIEW_CHARS = 16 * 1024;

/** Redacts every string at any depth (keys named like credentials lose their value) — not only to depth 4. */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested too deep for the trace]';
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? REDACTED : redactDeep(item, depth + 1);
  return out;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const jsonLength = (value: unknown): number => (JSON.stringify(value) ?? 'null').length;

export class TraceStore implements TraceSink, LlmCallSink {
  private readonly episodes = new Map<string, EpisodeEntry>();
  private readonly steps: StepRow[] = [];
  private stallReason: string | null = null;
  private bytes = 0;
  private storedCalls = 0;
  private droppedEpisodes = 0;
  private droppedCalls = 0;
  private cutBodies = 0;
  private readonly listeners = new Set<() => void>();
  private readonly limits: Required<TraceStoreOptions>;

  constructor(options: TraceStoreOptions = {}) {
    this.limits = { maxBytes: 64 * 1024 * 1024, maxCalls: 50_000, maxEpisodes: 20_000, maxCallBytes: 256 * 1024, maxSteps: 2_000, ...options };
  }

  episode(event: EpisodeTraceEvent): void {
    const entry = this.entry(event.episodeUuid, event.step, event.taskId, event.clientUuid);
    const s = entry.summary;
    s.state = event.kind;
    if (event.taskId !== null) s.taskId = event.taskId;
    if (event.clientUuid !== null) s.clientUuid = event.clientUuid;
    if (event.kind === 'claimed') {
      s.startedAt ??= iso(event.at);
      s.endedAt = null;
      // Claimed again (a debug episode goes back to the pool): what it is now is no longer a debug episode.
      s.debug = null;
    }
    if (event.debugReward !== undefined) s.debug = { reward: event.debugReward };
    if (event.kind === 'ended' || event.kind === 'aborted' || event.kind === 'discarded') s.endedAt = iso(event.at);
    if (event.reward !== undefined) s.reward = event.reward;
    if (event.metadata !== undefined) entry.metadata = redactDeep(event.metadata);
    s.detail = event.detail !== undefined ? redact(event.detail) : s.detail;
    this.changed();
  }

  step(event: StepTraceEvent): void {
    this.steps.push({ step: event.step, status: event.status, at: iso(event.at), reason: event.reason ?? null });
    if (this.steps.length > this.limits.maxSteps) this.steps.splice(0, this.steps.length - this.limits.maxSteps);
    this.changed();
  }

  stall(reason: string | null): void {
    if (reason === this.stallReason) return;
    this.stallReason = reason;
    this.changed();
  }

  call(record: LlmCallRecord): void {
    const entry = this.entry(record.episodeUuid, record.step, record.taskId, record.clientUuid);
    entry.summary.llmCalls += 1;
    const stored: StoredCall = { raw: record, trace: null, bytes: 0 };
    const requestBytes = record.requestBytes ?? jsonLength(record.request);
    const responseBytes = record.responseBytes ?? jsonLength(record.response);
    // The model's request is the agent's plus a system message at most: counted at the same size, not serialised.
    const modelBytes = record.modelRequest === undefined || record.modelRequest === null ? 0 : requestBytes;
    if (requestBytes > this.limits.maxCallBytes || responseBytes > this.limits.maxCallBytes) {
      // Rare: cut now, so memory stays bounded (this one is redacted at once).
      stored.trace = this.redacted(record);
      stored.raw = null;
      stored.bytes = jsonLength(stored.trace.request) + jsonLength(stored.trace.modelRequest) + jsonLength(stored.trace.response);
    } else stored.bytes = requestBytes + modelBytes + responseBytes;
    entry.calls.push(stored);
    entry.bytes += stored.bytes;
    this.bytes += stored.bytes;
    this.storedCalls += 1;
    this.evict(record.episodeUuid);
    this.changed();
  }

  /** Why the trace is incomplete, in plain words; null while nothing was dropped or cut. */
  capped(): string | null {
    const parts: string[] = [];
    if (this.droppedEpisodes > 0) {
      parts.push(
        `the ${this.droppedEpisodes} oldest episodes (${this.droppedCalls} LLM calls) were dropped to keep the trace under ` +
          `${Math.round(this.limits.maxBytes / 1024 / 1024)} MB, ${this.limits.maxCalls} calls and ${this.limits.maxEpisodes} episodes`,
      );
    }
    if (this.cutBodies > 0) parts.push(`${this.cutBodies} requests or answers over ${Math.round(this.limits.maxCallBytes / 1024)} KB were cut to a preview`);
    return parts.length > 0 ? `Trace capped: ${parts.join('; ')}.` : null;
  }

  query(q: TraceQuery): TracePage {
    const all = [...this.episodes.values()].reverse();
    const matching = all.filter((e) => (q.step === null || e.summary.step === q.step) && (q.taskId === null || e.summary.taskId === q.taskId));
    const taskIds = [...new Set(all.map((e) => e.summary.taskId).filter((t): t is string => t !== null))].sort();
    return {
      total: matching.length,
      episodes: matching.slice(q.offset, q.offset + q.limit).map((e) => ({ ...e.summary })),
      steps: this.steps.map((s) => ({ ...s })),
      taskIds,
      capped: this.capped(),
    };
  }

  /** One episode with its calls; null when unknown (or dropped by the cap). */
  get(episodeUuid: string): EpisodeTrace | null {
    const entry = this.episodes.get(episodeUuid);
    return entry ? { ...entry.summary, metadata: entry.metadata, calls: entry.calls.map((c) => this.read(c)) } : null;
  }

  stats(): { episodes: number; calls: number; bytes: number; capped: string | null } {
    return { episodes: this.episodes.size, calls: this.storedCalls, bytes: this.bytes, capped: this.capped() };
  }

  /**
   * Writes the trace as JSONL into `folder` (atomic: a reader never sees half a file): a `meta` line, the step walk
   * (`step` lines) and one `episode` line per episode, oldest first.
   */
  async exportJsonl(folder: string, now: Date = new Date()): Promise<TraceExport> {
    const lines: string[] = [JSON.stringify({ kind: 'meta', exportedAt: now.toISOString(), episodes: this.episodes.size, calls: this.storedCalls, capped: this.capped(), stall: this.stallReason })];
    for (const s of this.steps) lines.push(JSON.stringify({ kind: 'step', ...s }));
    for (const uuid of this.episodes.keys()) lines.push(JSON.stringify({ kind: 'episode', ...this.get(uuid) }));
    const text = `${lines.join('\n')}\n`;
    const path = join(folder, `dry-run-trace-${now.toISOString().replace(/[:.]/g, '-')}.jsonl`);
    await writeFileAtomic(path, text, 0o600);
    return { path, episodes: this.episodes.size, bytes: Buffer.byteLength(text) };
  }

  /** Called after every change (many per second under load: throttle on the consumer side). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private entry(uuid: string, step: number, taskId: string | null, clientUuid: string | null): EpisodeEntry {
    let entry = this.episodes.get(uuid);
    if (!entry) {
      entry = {
        summary: { episodeUuid: uuid, taskId, step, clientUuid, state: 'claimed', reward: null, llmCalls: 0, startedAt: null, endedAt: null, detail: null, debug: null },
        metadata: null,
        calls: [],
        bytes: 0,
      };
      this.episodes.set(uuid, entry);
      this.evict(uuid);
    }
    return entry;
  }

  private read(stored: StoredCall): LlmCallTrace {
    if (!stored.trace) {
      stored.trace = this.redacted(stored.raw!);
      stored.raw = null;
    }
    return stored.trace;
  }

  private redacted(record: LlmCallRecord): LlmCallTrace {
    return {
      callId: record.callId,
      episodeUuid: record.episodeUuid,
      route: record.route,
      at: iso(record.startedAt),
      latencyMs: record.latencyMs,
      stream: record.stream,
      status: record.status,
      request: this.bounded(redactDeep(record.request)),
      modelRequest: record.modelRequest === undefined ? null : this.bounded(redactDeep(record.modelRequest)),
      modelChanges: structuredClone(record.modelChanges ?? []),
      response: this.bounded(redactDeep(record.response)),
      promptTokens: record.promptTokens,
      completionTokens: record.completionTokens,
      usageEstimated: record.usageEstimated === true,
      error: record.error === null ? null : redact(record.error),
    };
  }

  private bounded(value: unknown): unknown {
    const text = JSON.stringify(value) ?? 'null';
    if (text.length <= this.limits.maxCallBytes) return value;
    this.cutBodies += 1;
    return { cut: `${text.length} characters of JSON, cut to the first ${PREVIEW_CHARS} (trace limit per call)`, preview: text.slice(0, PREVIEW_CHARS) };
  }

  /** Drops the oldest episodes (never `keep`, the one being written) until every limit holds. */
  private evict(keep: string): void {
    const over = (): boolean => this.bytes > this.limits.maxBytes || this.storedCalls > this.limits.maxCalls || this.episodes.size > this.limits.maxEpisodes;
    if (!over()) return;
    for (const [uuid, entry] of this.episodes) {
      if (!over()) break;
      if (uuid === keep) continue;
      this.episodes.delete(uuid);
      this.bytes -= entry.bytes;
      this.storedCalls -= entry.calls.length;
      this.droppedEpisodes += 1;
      this.droppedCalls += entry.calls.length;
    }
    // One episode alone over the limits: its oldest call bodies go (the call rows stay).
    const own = this.episodes.get(keep);
    for (const call of own?.calls ?? []) {
      if (this.bytes <= this.limits.maxBytes) break;
      if (call.bytes === 0) continue;
      const trace = this.read(call);
      trace.request = { cut: 'dropped to keep the trace under its memory limit' };
      trace.modelRequest = null;
      trace.response = null;
      own!.bytes -= call.bytes;
      this.bytes -= call.bytes;
      call.bytes = 0;
      this.cutBodies += 1;
    }
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
