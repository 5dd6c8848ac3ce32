import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { AppError } from '../../shared/errors';
import type { ContainerEvent, EngineLogLine, FollowLogOptions } from './container-engine';
import { TarTail } from './tar-tail';

/**
 * Nanoseconds since the epoch of Docker's RFC 3339 timestamp ("2026-12-03T15:16:25.1234Z": the
 * fraction has its trailing zeros cut, so strings do not compare): the order of log lines.
 */
export function timestampNanos(stamp: string): bigint | null {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(stamp);
  if (!match) return null;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(seconds)) return null;
  return BigInt(seconds) * 1_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'));
}

/** Docker's `since` query value: `<seconds>.<nanoseconds>`. */
export function dockerSince(nanos: bigint): string {
  return `${nanos / 1_000_000_000n}.${String(nanos % 1_000_000_000n).padStart(9, '0')}`;
}

/**
 * Turns Docker's log stream into lines: multiplexed frames (8-byte header: stream, 3 zeros, length)
 * that may split anywhere across chunks, or raw bytes for a TTY container; each stream keeps its
 * partial line until its newline comes. With `timestamps=1` every line starts with its stamp.
 */
export class DockerLogSplitter {
  private pending: Buffer = Buffer.alloc(0);
  private readonly partial = { stdout: '', stderr: '' };
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };

  constructor(private readonly tty: boolean) {}

  push(chunk: Buffer): EngineLogLine[] {
    const out: EngineLogLine[] = [];
    if (this.tty) {
      this.take('stdout', chunk, out);
      return out;
    }
    let buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    let offset = 0;
    // Docker sends one frame per line: frames in a row of the same stream are decoded in one go.
    let run: Buffer[] = [];
    let runStream: 'stdout' | 'stderr' = 'stdout';
    while (buffer.length - offset >= 8) {
      const size = buffer.readUInt32BE(offset + 4);
      if (buffer.length - offset - 8 < size) break;
      const stream = buffer[offset] === 2 ? 'stderr' : 'stdout';
      if (stream !== runStream && run.length > 0) {
        this.take(runStream, run.length === 1 ? run[0]! : Buffer.concat(run), out);
        run = [];
      }
      runStream = stream;
      run.push(buffer.subarray(offset + 8, offset + 8 + size));
      offset += 8 + size;
    }
    if (run.length > 0) this.take(runStream, run.length === 1 ? run[0]! : Buffer.concat(run), out);
    buffer = buffer.subarray(offset);
    // Copy the rest: holding a subarray would keep the whole chunk alive.
    this.pending = Buffer.from(buffer);
    return out;
  }

  /** The stream ended: partial lines (no newline at the end of the output) are lines too. */
  end(): EngineLogLine[] {
    const out: EngineLogLine[] = [];
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.partial[stream] + this.decoders[stream].end();
      this.partial[stream] = '';
      if (rest !== '') out.push(parseStampedLine(stream, rest));
    }
    return out;
  }

  private take(stream: 'stdout' | 'stderr', bytes: Buffer, out: EngineLogLine[]): void {
    const text = this.partial[stream] + this.decoders[stream].write(bytes);
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      out.push(parseStampedLine(stream, text.slice(start, end)));
      start = newline + 1;
    }
    this.partial[stream] = text.slice(start);
  }
}

function parseStampedLine(stream: 'stdout' | 'stderr', line: string): EngineLogLine {
  const space = line.indexOf(' ');
  const stamp = space > 0 ? line.slice(0, space) : line;
  if (stamp.length >= 20 && stamp.charCodeAt(4) === 45 && stamp.charCodeAt(10) === 84) {
    return { stream, timestamp: stamp, text: space > 0 ? line.slice(space + 1) : '' };
  }
  return { stream, timestamp: null, text: line };
}

/**
 * Follows a container's log from `sinceTimestamp` (Docker's `since` keeps lines AT that time, so
 * those are dropped here: the first `skipAtSince` of them, all of them when absent) until the
 * container stops (Docker ends the stream) or `signal` aborts.
 */
export async function followDockerLog(docker: Docker, id: string, options: FollowLogOptions, fail: (error: unknown) => AppError): Promise<void> {
  const { signal, onLines } = options;
  if (signal.aborted) return;
  const sinceNanos = options.sinceTimestamp ? timestampNanos(options.sinceTimestamp) : null;
  let skipAtSince = options.skipAtSince ?? Number.POSITIVE_INFINITY;
  let stream: Readable;
  let tty: boolean;
  try {
    const container = docker.getContainer(id);
    tty = Boolean((await container.inspect()).Config?.Tty);
    const query = { follow: true as const, stdout: true, stderr: true, timestamps: true, ...(sinceNanos !== null ? { since: dockerSince(sinceNanos) } : {}) };
    stream = (await container.logs(query as unknown as Docker.ContainerLogsOptions & { follow: true })) as unknown as Readable;
  } catch (error) {
    if (signal.aborted) return;
    throw fail(error);
  }
  const splitter = new DockerLogSplitter(tty);
  const deliver = (lines: EngineLogLine[]) => {
    if (sinceNanos !== null) {
      lines = lines.filter((line) => {
        const at = line.timestamp ? timestampNanos(line.timestamp) : null;
        if (at === null || at > sinceNanos) return true;
        if (at < sinceNanos) return false;
        if (skipAtSince > 0) {
          skipAtSince -= 1;
          return false;
        }
        return true;
      });
    }
    if (lines.length > 0) onLines(lines);
  };
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      stream.destroy();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (error?: unknown) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return resolve();
      if (error) return reject(fail(error));
      try {
        deliver(splitter.end());
      } catch (deliverError) {
        return reject(deliverError instanceof Error ? deliverError : new Error(String(deliverError)));
      }
      resolve();
    };
    stream.on('data', (chunk: Buffer) => {
      try {
        deliver(splitter.push(chunk));
      } catch (error) {
        stream.destroy();
        finish(error);
      }
    });
    stream.once('end', () => finish());
    stream.once('error', (error) => finish(error));
    stream.once('close', () => finish());
  });
}

const EVENT_ACTIONS = ['start', 'die', 'oom', 'stop', 'destroy'] as const;
type EventAction = (typeof EVENT_ACTIONS)[number];

/** One event of Docker's JSON stream, as the app uses it; null for anything else. */
export function parseDockerEvent(raw: unknown): ContainerEvent | null {
  if (!raw || typeof raw !== 'object') return null;
  const event = raw as { Type?: string; Action?: string; status?: string; id?: string; timeNano?: number; time?: number; Actor?: { ID?: string; Attributes?: Record<string, string> } };
  const action = (event.Action ?? event.status ?? '') as EventAction;
  if ((event.Type ?? 'container') !== 'container' || !EVENT_ACTIONS.includes(action)) return null;
  const containerId = event.Actor?.ID ?? event.id;
  if (!containerId) return null;
  const attributes = event.Actor?.Attributes ?? {};
  const code = attributes.exitCode === undefined ? Number.NaN : Number(attributes.exitCode);
  const at = typeof event.timeNano === 'number' ? Math.floor(event.timeNano / 1e6) : typeof event.time === 'number' ? event.time * 1000 : Date.now();
  return { containerId, action, exitCode: Number.isInteger(code) ? code : null, at, labels: attributes };
}

/**
 * How an engine names its container events: which actions to ask its events API for, and how one
 * raw event becomes the app's ContainerEvent. Docker's is below; Podman's (`remove`, `cleanup`) is
 * in podman-events.ts, so the monitor sees the same actions from both.
 */
export interface EventDialect {
  readonly actions: readonly string[];
  parse(raw: unknown): ContainerEvent | null;
}

export const DOCKER_EVENTS: EventDialect = { actions: EVENT_ACTIONS, parse: parseDockerEvent };

const FIRST_RECONNECT_MS = 250;
const MAX_RECONNECT_MS = 5000;

/**
 * Docker's event stream for containers carrying `labels`: start, die, oom, stop, destroy. The
 * stream drops when the engine restarts or an SSH connection is replaced: then it reconnects with
 * a growing delay, asking from the last event's second so nothing in between is missed (an event
 * may come twice; listeners act idempotently). `dialect` is asked at each (re)connect: the engine
 * behind a socket is known only once it answered, and may differ after a reconnect.
 */
export function watchDockerEvents(
  docker: Docker,
  labels: Record<string, string>,
  onEvent: (event: ContainerEvent) => void,
  dialect: () => Promise<EventDialect> = () => Promise.resolve(DOCKER_EVENTS),
): () => void {
  let closed = false;
  let current: Readable | null = null;
  let timer: NodeJS.Timeout | null = null;
  let delay = FIRST_RECONNECT_MS;
  let sinceSeconds: number | null = null;
  const label = Object.entries(labels).map(([k, v]) => `${k}=${v}`);

  const retry = () => {
    current = null;
    if (closed) return;
    timer = setTimeout(connect, delay);
    delay = Math.min(MAX_RECONNECT_MS, delay * 2);
  };
  const connect = () => {
    timer = null;
    if (closed) return;
    const opened = Date.now();
    const since = sinceSeconds ?? undefined;
    let events: EventDialect = DOCKER_EVENTS;
    dialect()
      .then((chosen) => {
        events = chosen;
        const filters = { type: ['container'], event: [...chosen.actions], label };
        return docker.getEvents({ filters, ...(since !== undefined ? { since } : {}) } as Docker.GetEventsOptions);
      })
      .then(
        (stream) => {
          const readable = stream as unknown as Readable;
          if (closed) return readable.destroy();
          current = readable;
          // From now on a drop resumes from here: nothing between the drop and the reconnect is lost.
          sinceSeconds ??= Math.floor(opened / 1000);
          let partial = '';
          const decoder = new StringDecoder('utf8');
          readable.on('data', (chunk: Buffer) => {
            delay = FIRST_RECONNECT_MS;
            const text = partial + decoder.write(chunk);
            const parts = text.split('\n');
            partial = parts.pop() ?? '';
            for (const part of parts) {
              if (part.trim() === '') continue;
              let parsed: ContainerEvent | null = null;
              try {
                parsed = events.parse(JSON.parse(part));
              } catch {
                continue; // Not JSON: nothing an event listener could use.
              }
              if (!parsed) continue;
              sinceSeconds = Math.floor(parsed.at / 1000);
              try {
                onEvent(parsed);
              } catch {
                // A listener's bug must not end the stream for the others.
              }
            }
          });
          let ended = false;
          const onEnd = () => {
            if (ended) return;
            ended = true;
            retry();
          };
          readable.once('end', onEnd);
          readable.once('close', onEnd);
          readable.once('error', onEnd);
        },
        () => retry(),
      );
  };
  connect();
  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    current?.destroy();
  };
}

/**
 * The last `maxBytes` of a file inside a container, through Docker's archive API (a tar stream; the
 * image needs no `tail`). Cut at a line start when shortened. Null when the path does not exist.
 */
export async function readDockerContainerFile(docker: Docker, id: string, path: string, maxBytes: number, fail: (error: unknown) => AppError): Promise<string | null> {
  let stream: Readable;
  try {
    stream = (await docker.getContainer(id).getArchive({ path })) as unknown as Readable;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw fail(error);
  }
  const tail = new TarTail(maxBytes);
  try {
    for await (const chunk of stream) {
      tail.push(chunk as Buffer);
      if (tail.done) {
        stream.destroy();
        break;
      }
    }
  } catch (error) {
    throw fail(error);
  }
  return tail.result();
}
