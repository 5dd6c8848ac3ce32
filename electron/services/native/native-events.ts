import type { ContainerEvent } from '../engines/container-engine';
import { hasLabels, nativeIdOf, type NativeRunRecord } from './native-records';

interface Seen {
  alive: boolean;
  /** Polls since the process vanished without an exit file yet (the wrapper writes it a moment later). */
  waitingForExit: number | null;
  labels: Record<string, string>;
}

const POLL_MS = 1000;
/** With no run directory on the host, look less often: nothing can die there. */
const IDLE_POLL_MS = 3000;
/** A `die` without the exit file after this many polls (the wrapper itself was killed) carries no code. */
const EXIT_FILE_POLLS = 3;

/**
 * Docker-like container events for native runs, by polling the run directories (one host command
 * per poll): `start` when a run's process appears, `die` with the exit code the wrapper recorded,
 * `destroy` when its run directory goes. The first poll is the baseline and emits nothing.
 */
export function watchNativeRuns(
  read: () => Promise<NativeRunRecord[]>,
  labels: Record<string, string>,
  onEvent: (event: ContainerEvent) => void,
  intervalMs = POLL_MS,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let known: Map<string, Seen> | null = null;
  const emit = (containerId: string, action: ContainerEvent['action'], exitCode: number | null, eventLabels: Record<string, string>) => {
    if (!stopped) onEvent({ containerId, action, exitCode, at: Date.now(), labels: eventLabels });
  };

  const tick = async (): Promise<void> => {
    let records: NativeRunRecord[] | null = null;
    try {
      records = (await read()).filter((r) => hasLabels(r, labels));
    } catch {
      // Host unreachable for a moment (SSH reconnecting): try again on the next poll.
    }
    if (stopped) return;
    if (records) {
      const next = new Map<string, Seen>();
      for (const record of records) {
        const id = nativeIdOf(record.spec.name);
        const before = known?.get(id);
        const seen: Seen = { alive: record.alive, waitingForExit: null, labels: record.spec.labels };
        next.set(id, seen);
        if (!known) continue;
        if (record.alive && !before?.alive) emit(id, 'start', null, seen.labels);
        const justDied = !record.alive && (before?.alive === true || before?.waitingForExit != null);
        if (!justDied) continue;
        const waited = (before?.waitingForExit ?? -1) + 1;
        if (record.exitCode !== null || waited >= EXIT_FILE_POLLS) emit(id, 'die', record.exitCode, seen.labels);
        else seen.waitingForExit = waited;
      }
      if (known) {
        for (const [id, before] of known) {
          if (next.has(id)) continue;
          if (before.alive || before.waitingForExit !== null) emit(id, 'die', null, before.labels);
          emit(id, 'destroy', null, before.labels);
        }
      }
      known = next;
    }
    if (!stopped) timer = setTimeout(() => void tick(), known && known.size > 0 ? intervalMs : Math.max(intervalMs, IDLE_POLL_MS));
  };
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
