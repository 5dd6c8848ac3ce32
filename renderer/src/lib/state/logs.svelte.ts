import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { LogAppended, LogExported, LogFilter, LogLine, ServerLogTail } from '../../../../electron/shared/schemas-profiles';

/** Every row has this height (px): what lets the viewer compute which rows are visible. */
export const LOG_ROW_HEIGHT = 20;
/** Lines asked per `logs:read` (the backend allows up to 5,000). */
const WINDOW = 400;
/** Rows kept in the renderer beyond what is visible, so scrolling back a little needs no round trip. */
const KEEP_ROWS = 4000;
/** A filtered view refreshes its count at most this often while lines arrive. */
const FILTER_REFRESH_MS = 500;

/**
 * One container's stored log as the viewer shows it: counts, the rows loaded near the viewport
 * (by index among the lines that pass the filter), the filter, follow-at-bottom, export and the
 * server log file. Rows come in windows through `logs:read`; new lines from `logs:appended`.
 */
export class LogsState {
  total = $state(0);
  matching = $state(0);
  following = $state(false);
  filter = $state<LogFilter>({ text: '', regex: false, stream: 'all' });
  /** Stick to the newest line as lines arrive. */
  followBottom = $state(true);
  /** Rows by index among matching lines (a plain object, replaced as a whole: cheap to track). */
  rows = $state.raw<Record<number, LogLine>>({});
  error = $state<AppErrorShape | null>(null);
  loaded = $state(false);
  exported = $state<LogExported | null>(null);
  exporting = $state(false);
  serverLog = $state<ServerLogTail | null>(null);
  serverLogError = $state<AppErrorShape | null>(null);
  /** Bumped on every filter change: answers for an older filter are dropped. */
  private generation = 0;
  /** Windows being read now, by their `from` (not reactive: only guards against asking twice). */
  private inflight: number[] = [];
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private viewport = { first: 0, count: 0 };

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
    readonly containerId: string,
  ) {}

  /** Loads the newest lines and listens for more; returns the teardown. */
  start(): () => void {
    const off = this.api.events.on('logs:appended', (event) => this.onAppended(event));
    void this.load(-1);
    return () => {
      off();
      if (this.refreshTimer) clearTimeout(this.refreshTimer);
    };
  }

  private get filtered(): boolean {
    return this.filter.text !== '' || this.filter.stream !== 'all';
  }

  /** Reads a window (`from: -1` = the newest) and keeps its rows. */
  async load(from: number): Promise<void> {
    const generation = this.generation;
    const key = from;
    if (this.inflight.includes(key)) return;
    this.inflight.push(key);
    try {
      const result = await this.api.logs.read({ engineId: this.engineId, containerId: this.containerId, from, count: WINDOW, filter: { ...this.filter } });
      if (generation !== this.generation) return;
      if (!result.ok) {
        this.error = result.error;
        return;
      }
      const window = result.value;
      this.error = null;
      this.loaded = true;
      this.total = window.total;
      this.matching = window.matching;
      this.following = window.following;
      this.putRows(window.from, window.lines);
    } finally {
      this.inflight = this.inflight.filter((k) => k !== key);
    }
  }

  private putRows(from: number, lines: LogLine[]): void {
    const next: Record<number, LogLine> = { ...this.rows };
    lines.forEach((line, i) => (next[from + i] = line));
    // Only rows near the viewport stay: a million lines never sit in the renderer.
    const keys = Object.keys(next);
    if (keys.length > KEEP_ROWS) {
      const centre = this.viewport.first + this.viewport.count / 2;
      for (const k of keys) if (Math.abs(Number(k) - centre) > KEEP_ROWS / 2) delete next[Number(k)];
    }
    this.rows = next;
  }

  private onAppended(event: LogAppended): void {
    if (event.engineId !== this.engineId || event.containerId !== this.containerId) return;
    if (this.filtered) {
      // Which new lines pass the filter only the backend knows: refresh the count now and then.
      this.refreshTimer ??= setTimeout(() => {
        this.refreshTimer = null;
        void this.load(this.followBottom ? -1 : this.viewport.first);
      }, FILTER_REFRESH_MS);
      return;
    }
    this.total = Math.max(this.total, event.total);
    this.matching = this.total;
    this.following = true;
    this.putRows(event.lines[0]?.n ?? this.total, event.lines);
  }

  /** The viewer shows rows `first`…`first + count`: load what is missing there. */
  show(first: number, count: number): void {
    this.viewport = { first, count };
    const last = Math.min(this.matching, first + count);
    for (let i = first; i < last; i += 1) {
      if (!this.rows[i]) {
        void this.load(Math.max(0, Math.floor(i / WINDOW) * WINDOW));
        i = (Math.floor(i / WINDOW) + 1) * WINDOW - 1;
      }
    }
  }

  setFilter(next: Partial<LogFilter>): void {
    this.filter = { ...this.filter, ...next };
    this.generation += 1;
    this.inflight = [];
    this.rows = {};
    this.followBottom = true;
    void this.load(-1);
  }

  async exportLog(): Promise<void> {
    this.exporting = true;
    try {
      const result = await this.api.logs.export({ engineId: this.engineId, containerId: this.containerId });
      if (result.ok) {
        this.exported = result.value;
        this.error = null;
      } else this.error = result.error;
    } finally {
      this.exporting = false;
    }
  }

  async loadServerLog(lines = 200): Promise<void> {
    const result = await this.api.logs.serverLog({ engineId: this.engineId, containerId: this.containerId, lines });
    if (result.ok) {
      this.serverLog = result.value;
      this.serverLogError = null;
    } else this.serverLogError = result.error;
  }
}
