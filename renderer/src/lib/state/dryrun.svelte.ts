import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { DryRunStartRequest, DryRunView, EpisodeTrace, TraceExport, TracePage } from '../../../../electron/shared/schemas-dryrun';

/** Bursts of `dryrun:traces-changed` (already throttled by the backend) become one refetch. */
export const TRACES_REFETCH_MS = 300;
export const TRACE_PAGE_SIZE = 50;

/**
 * The dry run as the card shows it: its view (from `dryrun:view`, then every `dryrun:changed`),
 * Start and Stop with their busy flag and error. The key typed for a run goes to the backend in
 * the start request and is never kept here.
 */
export class DryRunState {
  view = $state<DryRunView | null>(null);
  loaded = $state(false);
  loadError = $state<AppErrorShape | null>(null);
  busy = $state<'start' | 'stop' | null>(null);
  actionError = $state<AppErrorShape | null>(null);

  constructor(private readonly api: ExposedApi) {}

  start(): () => void {
    const off = this.api.events.on('dryrun:changed', (view) => {
      this.view = view;
      this.loaded = true;
      this.loadError = null;
    });
    void this.api.dryrun.view({}).then((result) => {
      this.loaded = true;
      if (!result.ok) {
        if (!this.view) this.loadError = result.error;
        return;
      }
      // An event may have overtaken the first answer: a view that is already there is newer.
      this.view ??= result.value;
    });
    return off;
  }

  get running(): boolean {
    return this.view?.state === 'running';
  }

  async startRun(request: DryRunStartRequest): Promise<boolean> {
    if (this.busy) return false;
    this.busy = 'start';
    this.actionError = null;
    try {
      const result = await this.api.dryrun.start(request);
      if (!result.ok) {
        this.actionError = result.error;
        return false;
      }
      this.view = result.value;
      return true;
    } finally {
      this.busy = null;
    }
  }

  async stopRun(): Promise<boolean> {
    if (this.busy) return false;
    this.busy = 'stop';
    this.actionError = null;
    try {
      const result = await this.api.dryrun.stop({});
      if (!result.ok) {
        this.actionError = result.error;
        return false;
      }
      this.view = result.value;
      return true;
    } finally {
      this.busy = null;
    }
  }
}

/**
 * The episode trace view: one page of episodes (newest first) with the step walk, filtered by step
 * and task, refetched on `dryrun:traces-changed`; one opened episode with its LLM calls; export.
 */
export class DryRunTracesState {
  page = $state<TracePage | null>(null);
  error = $state<AppErrorShape | null>(null);
  taskId = $state<string | null>(null);
  step = $state<number | null>(null);
  offset = $state(0);
  opened = $state<EpisodeTrace | null>(null);
  openError = $state<AppErrorShape | null>(null);
  exported = $state<TraceExport | null>(null);
  exporting = $state(false);
  exportError = $state<AppErrorShape | null>(null);
  private latest = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly api: ExposedApi) {}

  start(): () => void {
    void this.load();
    const off = this.api.events.on('dryrun:traces-changed', () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.load(), TRACES_REFETCH_MS);
    });
    return () => {
      off();
      clearTimeout(this.timer);
    };
  }

  /** Newest request wins: a slow page must not replace the one for a newer filter. */
  async load(): Promise<void> {
    const request = ++this.latest;
    const result = await this.api.dryrun.traces({ step: this.step, taskId: this.taskId, offset: this.offset, limit: TRACE_PAGE_SIZE });
    if (request !== this.latest) return;
    if (result.ok) {
      this.page = result.value;
      this.error = null;
    } else {
      this.page = null;
      this.error = result.error;
    }
    // The opened episode's calls may have grown: read it again.
    if (this.opened) await this.open(this.opened.episodeUuid, true);
  }

  filter(next: { taskId?: string | null; step?: number | null }): void {
    if (next.taskId !== undefined) this.taskId = next.taskId;
    if (next.step !== undefined) this.step = next.step;
    this.offset = 0;
    void this.load();
  }

  goTo(offset: number): void {
    this.offset = Math.max(0, offset);
    void this.load();
  }

  async open(episodeUuid: string, refresh = false): Promise<void> {
    const result = await this.api.dryrun.trace({ episodeUuid });
    // Closed (or another one opened) meanwhile: a refresh must not reopen it.
    if (refresh && this.opened?.episodeUuid !== episodeUuid) return;
    if (result.ok) {
      this.opened = result.value;
      this.openError = null;
    } else {
      this.opened = null;
      this.openError = result.error;
    }
  }

  close(): void {
    this.opened = null;
    this.openError = null;
  }

  async exportJsonl(): Promise<void> {
    if (this.exporting) return;
    this.exporting = true;
    this.exportError = null;
    try {
      const result = await this.api.dryrun.exportTraces({});
      if (result.ok) this.exported = result.value;
      else this.exportError = result.error;
    } finally {
      this.exporting = false;
    }
  }
}
