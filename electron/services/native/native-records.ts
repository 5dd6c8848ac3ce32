import {
  carriesLabels,
  NATIVE_ID_PREFIX,
  containerStatusText,
  type ContainerSummary,
} from '../engines/container-engine';
import { assertRunName, type NativeRunSpec } from './native-scripts';

/** What the host reports about one run directory (describeScript). */
export interface NativeRunRecord {
  spec: NativeRunSpec;
  alive: boolean;
  pid: number | null;
  /** "<epoch s> <log offset>" of the last start; null when never started. */
  startedAtMs: number | null;
  startOffset: number;
  exitCode: number | null;
  finishedAtMs: number | null;
}

export function nativeIdOf(name: string): string {
  return `${NATIVE_ID_PREFIX}${name}`;
}

export function isNativeId(id: string): boolean {
  return id.startsWith(NATIVE_ID_PREFIX);
}

export function runNameOf(id: string): string {
  return assertRunName(id.slice(NATIVE_ID_PREFIX.length));
}

/** Parses describeScript's output: `@@run alive|pid|started|exit` then `@@spec <json>` per run. */
export function parseRunRecords(stdout: string): NativeRunRecord[] {
  const records: NativeRunRecord[] = [];
  let head: string[] | null = null;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('@@run ')) head = line.slice(6).split('|');
    else if (line.startsWith('@@spec ') && head) {
      let spec: NativeRunSpec;
      try {
        spec = JSON.parse(line.slice(7)) as NativeRunSpec;
      } catch {
        head = null;
        continue; // a half-written spec.json (create in progress): not a run yet
      }
      const [alive, pid, started, exit] = head;
      const [startedS, offset] = (started ?? '').trim().split(/\s+/);
      const [code, finishedS] = (exit ?? '').trim().split(/\s+/);
      const num = (text: string | undefined): number | null => (text !== undefined && text !== '' && Number.isFinite(Number(text)) ? Number(text) : null);
      records.push({
        spec,
        alive: alive === '1',
        pid: num(pid?.trim()),
        startedAtMs: num(startedS) === null ? null : Math.round(num(startedS)! * 1000),
        startOffset: num(offset) ?? 0,
        exitCode: num(code),
        finishedAtMs: num(finishedS) === null ? null : Math.round(num(finishedS)! * 1000),
      });
      head = null;
    }
  }
  return records;
}

export function summaryOfRecord(record: NativeRunRecord, now = Date.now()): ContainerSummary {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const state = record.alive ? 'running' : record.startedAtMs === null ? 'created' : 'exited';
  const summary: ContainerSummary = {
    id: nativeIdOf(record.spec.name),
    name: record.spec.name,
    // Shown where Docker shows the image: what runs, not a registry reference.
    image: `native: ${record.spec.cmd.join(' ')}`,
    state,
    statusText: '',
    labels: record.spec.labels,
    createdAt: record.spec.createdAt,
    startedAt: iso(record.startedAtMs),
    finishedAt: state === 'exited' ? iso(record.finishedAtMs) : null,
    exitCode: state === 'exited' ? record.exitCode : null,
    oomKilled: false,
  };
  summary.statusText = containerStatusText(summary, now);
  return summary;
}

export function hasLabels(record: NativeRunRecord, labels: Record<string, string>): boolean {
  return carriesLabels(record.spec.labels, labels);
}

