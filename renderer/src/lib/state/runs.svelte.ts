import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { EngineSummary } from '../../../../electron/shared/schemas';
import type { RunCardExported, RunComparison, RunListRequest, RunsSettings, RunSummary } from '../../../../electron/shared/schemas-runs';

/** At most this many runs are compared at once (the backend refuses more). */
export const MAX_COMPARED = 5;

export type RunFilter = Pick<RunListRequest, 'engine' | 'state' | 'text' | 'since'>;

/**
 * The Runs page's state: the kept runs (`runs:list` under the page's filter, read again on `runs:changed`),
 * which are picked for comparing, the comparison, and the store's limits and rates. It only reads what the
 * backend keeps; the run recorder is the backend's.
 */
export class RunsState {
  runs = $state<RunSummary[]>([]);
  loaded = $state(false);
  filter = $state<RunFilter>({ engine: null, state: 'any', text: '', since: null });
  picked = $state<string[]>([]);
  comparison = $state<RunComparison | null>(null);
  comparing = $state(false);
  settings = $state<RunsSettings | null>(null);
  error = $state<AppErrorShape | null>(null);
  exported = $state<RunCardExported | null>(null);
  /** The engines, for the filter and the price forms (read once when the page opens). */
  engines = $state<EngineSummary[]>([]);
  private reloadTimer: ReturnType<typeof setTimeout> | null = null;
  private seq = 0;

  constructor(private readonly api: ExposedApi) {}

  start(): () => void {
    const off = this.api.events.on('runs:changed', () => this.reloadSoon());
    void this.load();
    void this.loadSettings();
    void this.api.engines.list().then((r) => {
      if (r.ok) this.engines = r.value;
    });
    return () => {
      off();
      if (this.reloadTimer) clearTimeout(this.reloadTimer);
    };
  }

  /** Several changes in a row (a fast run's steps) are one read. */
  private reloadSoon(): void {
    this.reloadTimer ??= setTimeout(() => {
      this.reloadTimer = null;
      void this.load();
    }, 300);
  }

  async load(): Promise<void> {
    const seq = ++this.seq;
    const result = await this.api.runs.list({ ...this.filter, profile: null, until: null });
    // An older, slower answer must not overwrite a newer filter's.
    if (seq !== this.seq) return;
    this.loaded = true;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.runs = result.value;
  }

  setFilter(patch: Partial<RunFilter>): void {
    this.filter = { ...this.filter, ...patch };
    void this.load();
  }

  async loadSettings(): Promise<void> {
    const result = await this.api.runs.settings();
    if (result.ok) this.settings = result.value;
  }

  toggle(runId: string, on: boolean): void {
    this.picked = on ? [...this.picked.filter((id) => id !== runId), runId] : this.picked.filter((id) => id !== runId);
  }

  canCompare(): boolean {
    return this.picked.length >= 2 && this.picked.length <= MAX_COMPARED;
  }

  /** The picked runs, oldest first (the first is the YAML diffs' left side). */
  async compare(): Promise<void> {
    if (!this.canCompare()) return;
    const order = [...this.picked].sort((a, b) => (this.runs.find((r) => r.runId === a)?.startedAt ?? a).localeCompare(this.runs.find((r) => r.runId === b)?.startedAt ?? b));
    this.comparing = true;
    const result = await this.api.runs.compare({ runIds: order });
    this.comparing = false;
    if (result.ok) this.comparison = result.value;
    else this.error = result.error;
  }

  closeComparison(): void {
    this.comparison = null;
  }

  async remove(runId: string): Promise<boolean> {
    const result = await this.api.runs.delete({ runId });
    if (!result.ok) {
      this.error = result.error;
      return false;
    }
    this.picked = this.picked.filter((id) => id !== runId);
    this.runs = this.runs.filter((r) => r.runId !== runId);
    return true;
  }

  async exportCard(runId: string, format: 'html' | 'markdown'): Promise<void> {
    this.exported = null;
    let pngBase64: string | null = null;
    if (format === 'markdown') {
      const card = await this.api.runs.card({ runId });
      if (!card.ok) {
        this.error = card.error;
        return;
      }
      pngBase64 = await svgToPngBase64(card.value.svg, card.value.width, card.value.height).catch(() => null);
    }
    const result = format === 'html' ? await this.api.runs.exportCard({ format, runId }) : await this.api.runs.exportCard({ format, runId, pngBase64 });
    if (result.ok) this.exported = result.value;
    else this.error = result.error;
  }

  async setLimits(keepRuns: number, keepMegabytes: number): Promise<boolean> {
    const result = await this.api.runs.setLimits({ keepRuns, keepMegabytes });
    if (!result.ok) {
      this.error = result.error;
      return false;
    }
    this.settings = result.value;
    return true;
  }

  async setRate(engineId: string, perGpuHour: number | null, currency: string): Promise<boolean> {
    const result = await this.api.runs.setRate({ engineId, perGpuHour, currency });
    if (!result.ok) {
      this.error = result.error;
      return false;
    }
    this.settings = result.value;
    return true;
  }
}

/**
 * The card's SVG drawn on a canvas, as PNG (base64): the page renders the Markdown card's picture (Chromium in
 * Electron and in the browser host alike), so the backend needs no image library. SVG without external parts
 * does not taint the canvas.
 */
export async function svgToPngBase64(svg: string, width: number, height: number): Promise<string> {
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d canvas');
  context.drawImage(image, 0, 0);
  return canvas.toDataURL('image/png').split(',')[1] ?? '';
}
