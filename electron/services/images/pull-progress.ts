import type { PullEvent } from '../engines/container-engine';

/** The phases a pull goes through while it runs; the manager sets done / failed / cancelled at the end. */
export type RunningPhase = 'resolving' | 'downloading' | 'extracting';

/** What the aggregator knows of a pull at one moment (the progress fields of `PullView`). */
export interface PullProgressSnapshot {
  phase: RunningPhase;
  percent: number | null;
  layersDone: number;
  layersTotal: number;
  bytesDone: number;
  bytesTotal: number;
  etaSeconds: number | null;
}

interface Layer {
  /** Compressed size; null until Docker says (small layers often never do before "Download complete"). */
  total: number | null;
  downloaded: number;
  extracted: number;
  downloadDone: boolean;
  done: boolean;
  /** Bytes of it came over the wire in this pull ("Already exists" layers never do). */
  fetched: boolean;
}

/** How far back the rate for the ETA looks: long enough to smooth bursts, short enough to follow a change of speed. */
export const ETA_WINDOW_MS = 10_000;
/** Below this much history the rate is noise: no ETA yet. */
const ETA_MIN_SPAN_MS = 1_000;

/**
 * Messages about the whole image, not a layer. Docker gives "Pulling from <repo>" the tag as its id,
 * so the id alone does not tell a layer from the image.
 */
function isImageMessage(event: PullEvent): boolean {
  return !event.id || /^(Pulling from|Digest:|Status:|Pulling repository)/i.test(event.status);
}

/**
 * Folds Docker's per-layer pull messages into one view: percent over all layers' bytes (download and
 * extract each count for half of a layer's bytes), layers done, bytes downloaded, and an ETA from the
 * rate over the last {@link ETA_WINDOW_MS}. Pure apart from the injected clock, so recorded message
 * sequences test it.
 */
export class PullProgress {
  private readonly layers = new Map<string, Layer>();
  /** Percent never goes back: a layer whose size becomes known late would otherwise make the bar jump back. */
  private highestPercent = 0;
  private readonly samples: { at: number; units: number }[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes one message; true when the phase changed (the caller sends those at once). */
  apply(event: PullEvent): boolean {
    const before = this.phase();
    if (!isImageMessage(event)) this.applyToLayer(event.id!, event);
    this.sample();
    return this.phase() !== before;
  }

  private applyToLayer(id: string, event: PullEvent): void {
    let layer = this.layers.get(id);
    if (!layer) {
      layer = { total: null, downloaded: 0, extracted: 0, downloadDone: false, done: false, fetched: false };
      this.layers.set(id, layer);
    }
    const status = event.status.toLowerCase();
    const current = event.progressDetail?.current;
    const total = event.progressDetail?.total;
    // Docker sends total -1 (or 0) when it does not know it.
    if (typeof total === 'number' && total > 0 && layer.total === null) layer.total = total;
    if (status.startsWith('downloading')) {
      if (typeof current === 'number') layer.downloaded = Math.max(layer.downloaded, current);
    } else if (status.startsWith('verifying checksum') || status.startsWith('download complete')) {
      layer.downloadDone = true;
    } else if (status.startsWith('extracting')) {
      layer.downloadDone = true;
      if (typeof current === 'number') layer.extracted = Math.max(layer.extracted, current);
    } else if (status.startsWith('pull complete') || status.startsWith('already exists')) {
      layer.downloadDone = true;
      layer.done = true;
    }
    if (!status.startsWith('already exists') && !status.startsWith('pulling fs layer') && !status.startsWith('waiting')) layer.fetched = true;
    if (layer.downloadDone && layer.total !== null) layer.downloaded = layer.total;
    if (layer.done && layer.total !== null) layer.extracted = layer.total;
  }

  /** Progress in "units": half a layer's bytes for its download, half for its extraction. */
  private units(): { done: number; total: number; unknownOpen: boolean } {
    let done = 0;
    let total = 0;
    let unknownOpen = false;
    for (const layer of this.layers.values()) {
      if (layer.total === null) {
        if (!layer.done) unknownOpen = true;
        continue;
      }
      total += layer.total;
      done += Math.min(layer.downloaded, layer.total) / 2 + Math.min(layer.extracted, layer.total) / 2;
    }
    return { done, total, unknownOpen };
  }

  private sample(): void {
    const at = this.now();
    this.samples.push({ at, units: this.units().done });
    while (this.samples.length > 2 && at - this.samples[1]!.at >= ETA_WINDOW_MS) this.samples.shift();
  }

  private phase(): RunningPhase {
    const layers = [...this.layers.values()];
    const open = layers.filter((l) => !l.done);
    // Only "Already exists" so far: nothing is being fetched yet.
    if (open.length === 0) return layers.some((l) => l.fetched) ? 'extracting' : 'resolving';
    if (open.every((l) => l.downloadDone)) return 'extracting';
    return layers.some((l) => l.fetched) ? 'downloading' : 'resolving';
  }

  snapshot(): PullProgressSnapshot {
    const layers = [...this.layers.values()];
    const layersTotal = layers.length;
    const layersDone = layers.filter((l) => l.done).length;
    const { done, total, unknownOpen } = this.units();
    let percent: number | null = null;
    if (total > 0) {
      percent = (done / total) * 100;
    } else {
      // No sizes yet: count the layers this pull fetches ("Already exists" ones say nothing about
      // the work left, and when every layer seen so far exists, more may still be announced).
      const fetched = layers.filter((l) => !l.done || l.fetched);
      if (fetched.length > 0 && fetched.some((l) => !l.done)) percent = (fetched.filter((l) => l.done).length / fetched.length) * 100;
    }
    // A layer of unknown size still open: the bar must not say 100 yet.
    if (percent !== null && unknownOpen) percent = Math.min(percent, 99);
    if (percent !== null) {
      this.highestPercent = Math.max(this.highestPercent, Math.min(100, percent));
      percent = Math.round(this.highestPercent * 10) / 10;
    }
    let bytesDone = 0;
    for (const l of layers) if (l.total !== null) bytesDone += Math.min(l.downloaded, l.total);
    return {
      phase: this.phase(),
      percent,
      layersDone,
      layersTotal,
      bytesDone,
      bytesTotal: total,
      etaSeconds: this.eta(total - done, unknownOpen),
    };
  }

  private eta(remaining: number, unknownOpen: boolean): number | null {
    if (remaining <= 0) return unknownOpen ? null : 0;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at - first.at < ETA_MIN_SPAN_MS) return null;
    // Nothing heard for a whole window: a stalled pull has no honest ETA.
    if (this.now() - last.at > ETA_WINDOW_MS) return null;
    const rate = (last.units - first.units) / ((last.at - first.at) / 1000);
    if (rate <= 0) return null;
    return Math.ceil(remaining / rate);
  }
}
