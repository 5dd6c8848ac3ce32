import type { EngineLogLine, FollowLogOptions, LogReadOptions } from '../engines/container-engine';
import { redact } from '../util/redact';

/** Lines kept in memory per dry run (the logs domain stores what it follows on disk). */
const MAX_LINES = 5000;

/**
 * Docker's timestamp format (RFC 3339 with nanoseconds), so the logs domain stores and resumes a
 * dry run's output exactly like a container's; all stamps have the same length, so they also
 * compare as strings.
 */
function stampOf(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000000Z');
}

/**
 * The dry run's "container output": what the server, the relay and the service log, redacted,
 * in a bounded ring. It stands in for `docker logs` so the swarm monitor's boot excerpts, the exit
 * reason and the log viewer work for the dry run unchanged.
 */
export class DryRunLog {
  private readonly lines: EngineLogLine[] = [];
  private readonly waiters = new Set<() => void>();
  /** Lines dropped from the front of the ring so far: followers count in absolute line numbers. */
  private dropped = 0;
  private ended = false;

  write(level: 'info' | 'warn' | 'error', message: string, now = Date.now()): void {
    const stream = level === 'info' ? 'stdout' : 'stderr';
    const prefix = level === 'info' ? 'INFO' : level === 'warn' ? 'WARNING' : 'ERROR';
    for (const text of redact(message).split('\n')) {
      this.lines.push({ stream, timestamp: stampOf(now), text: `${prefix} | ${text}` });
    }
    if (this.lines.length > MAX_LINES) {
      const excess = this.lines.length - MAX_LINES;
      this.lines.splice(0, excess);
      this.dropped += excess;
    }
    this.wake();
  }

  /** The run is over: followers get what is left and return. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  read(options: LogReadOptions): string[] {
    const since = options.sinceMs === undefined ? null : stampOf(options.sinceMs);
    const picked = since === null ? this.lines : this.lines.filter((line) => (line.timestamp ?? '') >= since);
    return picked.slice(-Math.max(0, options.tail)).map((line) => line.text);
  }

  /** Lines after the cursor (Docker's `since` + lines already seen at it), then new ones until the run ends or `signal` aborts. */
  async follow(options: FollowLogOptions): Promise<void> {
    const { signal } = options;
    // Absolute line numbers: lines the ring drops meanwhile are skipped, never delivered twice.
    let next = this.dropped + this.firstAfter(options.sinceTimestamp, options.skipAtSince);
    while (!signal.aborted) {
      const end = this.dropped + this.lines.length;
      if (next < end) {
        options.onLines(this.lines.slice(Math.max(0, next - this.dropped)));
        next = end;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private firstAfter(since: string | undefined, skipAtSince: number | undefined): number {
    if (since === undefined) return 0;
    let index = this.lines.findIndex((line) => (line.timestamp ?? '') >= since);
    if (index < 0) return this.lines.length;
    let atSince = 0;
    while (index < this.lines.length && this.lines[index]!.timestamp === since) {
      // Absent skipAtSince: every line at that time was seen.
      if (skipAtSince !== undefined && atSince >= skipAtSince) break;
      atSince += 1;
      index += 1;
    }
    return index;
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
