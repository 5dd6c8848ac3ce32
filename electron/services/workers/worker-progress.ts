/**
 * What a worker's log says about it: the progress line the generated `agent_roll.py` prints every
 * few seconds on stderr (`AGENTSWARM_PROGRESS {"client_uuid": …, "episodes": …, "failed_episodes": …, "llm_calls": …}`),
 * and the last line that reads like an error. Pure: the pool feeds lines in, reads numbers out.
 */
export const PROGRESS_PREFIX = 'AGENTSWARM_PROGRESS';

/** Episodes per minute are measured over this window of progress lines (older ones are dropped). */
const RATE_WINDOW_MS = 3 * 60_000;

const ERROR_LINE = /\b(error|exception|traceback|failed|refused|killed)\b|agent_roll: stopped:|gave no reward/i;

export interface ProgressSample {
  atMs: number;
  episodes: number;
}

export class WorkerProgress {
  clientUuid: string | null = null;
  episodes = 0;
  failedEpisodes = 0;
  /** LLM calls of its ended episodes as the server counted them (the worker reads each episode's count before ending it); null: its script does not say. */
  llmCalls: number | null = null;
  lastError: string | null = null;
  private samples: ProgressSample[] = [];

  /** One log line (already redacted); `atMs` is when it was read. */
  see(line: string, atMs: number): void {
    const text = line.trim();
    if (text.startsWith(PROGRESS_PREFIX)) {
      this.seeProgress(text.slice(PROGRESS_PREFIX.length).trim(), atMs);
      return;
    }
    if (ERROR_LINE.test(text)) this.lastError = text.length > 500 ? `${text.slice(0, 497)}...` : text;
  }

  private seeProgress(json: string, atMs: number): void {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (typeof record['client_uuid'] === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(record['client_uuid'])) this.clientUuid = record['client_uuid'];
    const episodes = wholeNumber(record['episodes']);
    if (episodes !== null) {
      // A restarted worker counts from 0 again: its rate samples start over.
      const last = this.samples.at(-1);
      if (last && episodes < last.episodes) this.samples = [];
      this.episodes = episodes;
      this.samples.push({ atMs, episodes });
      this.samples = this.samples.filter((s) => s.atMs >= atMs - RATE_WINDOW_MS);
    }
    const failed = wholeNumber(record['failed_episodes']);
    if (failed !== null) this.failedEpisodes = failed;
    const calls = wholeNumber(record['llm_calls']);
    if (calls !== null) this.llmCalls = calls;
  }

  /** Changes when anything shown changed (the pool then sends a snapshot). */
  signature(): string {
    return `${this.episodes}/${this.failedEpisodes}/${this.llmCalls}/${this.clientUuid}/${this.lastError}`;
  }

  /** Episodes per minute over the window; null until two progress lines some time apart came. */
  perMinute(): number | null {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.atMs - first.atMs < 500) return null;
    return Math.round(((last.episodes - first.episodes) / ((last.atMs - first.atMs) / 60_000)) * 10) / 10;
  }

  /** The worker ended: its rate is no longer a rate. */
  ended(): void {
    this.samples = [];
  }
}

function wholeNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}
