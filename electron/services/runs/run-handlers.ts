import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import type { RunDetail, RunListRequest, RunSummary } from '../../shared/schemas-runs';
import type { DomainHandlers } from '../domain';
import { writeFileAtomic } from '../util/atomic-file';
import { CHART_HEIGHT, CHART_WIDTH, rewardChartSvg } from './card-chart';
import { runCardHtml, runCardMarkdown } from './run-card';
import type { RunRecorder } from './run-recorder';
import { detailOf, summarize } from './run-stats';
import type { RunIndexEntry, RunStore } from './run-store';
import { sideBySide } from './yaml-diff';

export interface RunHandlerDeps {
  store: RunStore;
  recorder: RunRecorder;
  changed: (runIds: string[]) => void;
  downloadsDir: string;
  now?: () => number;
}

/** Biggest PNG the page may hand in for a Markdown card. */
const MAX_PNG_BYTES = 4 * 1024 * 1024;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function matches(entry: RunIndexEntry, filter: RunListRequest): boolean {
  const { run } = entry;
  if (filter.engine !== null && run.engineId !== filter.engine) return false;
  if (filter.profile !== null && run.profileId !== filter.profile) return false;
  if (filter.state === 'running' && run.endedAt !== null) return false;
  if (filter.state === 'ended' && run.endedAt === null) return false;
  if (filter.state !== 'any' && filter.state !== 'running' && filter.state !== 'ended' && run.endKind !== filter.state) return false;
  if (filter.since !== null && run.startedAt < filter.since) return false;
  if (filter.until !== null && run.startedAt > filter.until) return false;
  const text = filter.text.trim().toLowerCase();
  if (text !== '') {
    const haystack = [run.runId, run.serverName, run.profileLabel, run.image, run.engineId, run.containerId].filter(Boolean).join(' ').toLowerCase();
    if (!text.split(/\s+/).every((word) => haystack.includes(word))) return false;
  }
  return true;
}

const fileStamp = (runId: string): string => `agentswarm-run-${runId.replace(/[^A-Za-z0-9._-]/g, '_')}`;

/** The `runs:*` handlers over the store (kept runs) and the recorder (which runs go on). */
export function runHandlers(deps: RunHandlerDeps): DomainHandlers<'runs'> {
  const { store, recorder } = deps;
  const now = () => deps.now?.() ?? Date.now();
  const summaryOf = (entry: RunIndexEntry): RunSummary => summarize({ ...entry.run, yaml: null, scripts: [], points: [], timeline: [] }, entry.stats, entry.bytes, store.settings, now());
  const fixScriptCount = (summary: RunSummary, entry: RunIndexEntry): RunSummary => ({ ...summary, scriptCount: entry.run.scriptCount });

  const detail = async (runId: string): Promise<RunDetail> => {
    const run = await store.read(runId);
    const entry = store.entry(runId);
    if (!run || !entry) throw new AppError('VALIDATION_FAILED', `No kept run ${runId}: it was deleted, or dropped as the oldest when the limit was reached.`);
    return detailOf(run, summarize(run, entry.stats, entry.bytes, store.settings, now()));
  };

  const pruned = async (): Promise<void> => {
    const dropped = await store.prune(recorder.openRunIds());
    if (dropped.length > 0) deps.changed(dropped);
  };

  return {
    'runs:list': async (filter) =>
      store
        .entries()
        .filter((entry) => matches(entry, filter))
        .sort((a, b) => b.run.startedAt.localeCompare(a.run.startedAt) || b.run.runId.localeCompare(a.run.runId))
        .map((entry) => fixScriptCount(summaryOf(entry), entry)),
    'runs:get': async ({ runId }) => detail(runId),
    'runs:delete': async ({ runId }) => {
      if (recorder.isOpen(runId)) throw new AppError('VALIDATION_FAILED', `Run ${runId} still goes on: it can be deleted once it ended.`);
      if (!(await store.delete(runId))) throw new AppError('VALIDATION_FAILED', `No kept run ${runId}.`);
      deps.changed([runId]);
      return { removed: true as const };
    },
    'runs:compare': async ({ runIds }) => {
      const unique = [...new Set(runIds)];
      if (unique.length < 2) throw new AppError('VALIDATION_FAILED', 'Pick two to five different runs to compare.');
      const runs = await Promise.all(unique.map(detail));
      const [first, ...others] = runs;
      const diffs = others.map((other) => {
        if (first!.yaml === null || other.yaml === null) return { leftRunId: first!.runId, rightRunId: other.runId, rows: null, changed: 0 };
        const { rows, changed } = sideBySide(first!.yaml, other.yaml);
        return { leftRunId: first!.runId, rightRunId: other.runId, rows, changed };
      });
      return { runs, diffs };
    },
    'runs:settings': async () => store.settings,
    'runs:set-rate': async ({ engineId, perGpuHour, currency }) => {
      const rates = store.settings.rates.filter((r) => r.engineId !== engineId);
      if (perGpuHour !== null) rates.push({ engineId, perGpuHour, currency });
      const settings = await store.saveSettings({ ...store.settings, rates });
      deps.changed(store.entries().filter((e) => e.run.engineId === engineId).map((e) => e.run.runId));
      return settings;
    },
    'runs:set-limits': async (limits) => {
      const settings = await store.saveSettings({ ...store.settings, ...limits });
      await pruned();
      return settings;
    },
    'runs:card': async ({ runId }) => {
      const run = await detail(runId);
      return { runId, svg: rewardChartSvg(run.points, `Mean reward per step: ${run.serverName}`), width: CHART_WIDTH, height: CHART_HEIGHT };
    },
    'runs:export-card': async (request) => {
      const run = await detail(request.runId);
      await mkdir(deps.downloadsDir, { recursive: true });
      const base = join(deps.downloadsDir, fileStamp(run.runId));
      if (request.format === 'html') {
        const html = runCardHtml(run, now());
        await writeFileAtomic(`${base}.html`, html, 0o644);
        return { path: `${base}.html`, pngPath: null, bytes: Buffer.byteLength(html) };
      }
      let pngPath: string | null = null;
      if (request.pngBase64 !== null) {
        const png = Buffer.from(request.pngBase64, 'base64');
        if (png.length > MAX_PNG_BYTES || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new AppError('VALIDATION_FAILED', 'The chart picture is not a PNG of at most 4 MB.');
        pngPath = `${base}.png`;
        await writeFileAtomic(pngPath, png, 0o644);
      }
      const markdown = runCardMarkdown(run, pngPath ? `${fileStamp(run.runId)}.png` : null, now());
      await writeFileAtomic(`${base}.md`, markdown, 0o644);
      return { path: `${base}.md`, pngPath, bytes: Buffer.byteLength(markdown) };
    },
  };
}
