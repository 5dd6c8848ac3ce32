import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { AppError } from '../../../electron/shared/errors';
import type { ContainerEvent, EngineLogLine } from '../../../electron/services/engines/container-engine';
import { DockerLogSplitter, dockerSince, followDockerLog, parseDockerEvent, timestampNanos, watchDockerEvents } from '../../../electron/services/engines/docker-logs';
import { TarTail } from '../../../electron/services/engines/tar-tail';
import { LogFile } from '../../../electron/services/logs/log-file';
import { linePredicate } from '../../../electron/services/logs/log-filter';

function frame(stream: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

/** A one-file tar as Docker's archive API sends it: header, data padded to 512, two zero blocks. */
function tarOf(name: string, data: Buffer): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'latin1');
  header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write('0', 156, 'latin1');
  const padding = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, padding, Buffer.alloc(1024)]);
}

describe('Docker log stream to lines', () => {
  it('demultiplexes frames split anywhere across chunks, keeps partial lines until their newline', () => {
    const stamp = '2026-12-03T15:16:25.123456789Z';
    const bytes = Buffer.concat([frame(1, `${stamp} hello wor`), frame(1, `ld\n${stamp} two\n`), frame(2, `${stamp} oops ✓\n`)]);
    const splitter = new DockerLogSplitter(false);
    const lines = [];
    // One byte at a time: every header and the multi-byte ✓ are cut.
    for (let i = 0; i < bytes.length; i += 1) lines.push(...splitter.push(bytes.subarray(i, i + 1)));
    lines.push(...splitter.end());
    expect(lines).toEqual([
      { stream: 'stdout', timestamp: stamp, text: 'hello world' },
      { stream: 'stdout', timestamp: stamp, text: 'two' },
      { stream: 'stderr', timestamp: stamp, text: 'oops ✓' },
    ]);
  });

  it('reads a TTY container (no frames) as stdout, and gives a last line without newline at the end', () => {
    const splitter = new DockerLogSplitter(true);
    expect(splitter.push(Buffer.from('2026-12-03T15:16:25Z a\r\n2026-12-03T15:16:25.5Z b'))).toEqual([{ stream: 'stdout', timestamp: '2026-12-03T15:16:25Z', text: 'a' }]);
    expect(splitter.end()).toEqual([{ stream: 'stdout', timestamp: '2026-12-03T15:16:25.5Z', text: 'b' }]);
  });

  it('orders timestamps with cut fractions and writes Docker `since` as seconds.nanoseconds', () => {
    const a = timestampNanos('2026-12-03T15:16:25.5Z')!;
    const b = timestampNanos('2026-12-03T15:16:25.123456789Z')!;
    expect(a > b).toBe(true);
    expect(dockerSince(b)).toBe(`${Date.parse('2026-12-03T15:16:25Z') / 1000}.123456789`);
    expect(timestampNanos('not a time')).toBeNull();
  });

  it('parses container events with the exit code and time', () => {
    const event = parseDockerEvent({ Type: 'container', Action: 'die', Actor: { ID: 'abc', Attributes: { exitCode: '137', 'io.agentswarm.managed': 'true' } }, timeNano: 1_700_000_000_123_000_000 });
    expect(event).toEqual({ containerId: 'abc', action: 'die', exitCode: 137, at: 1_700_000_000_123, labels: { exitCode: '137', 'io.agentswarm.managed': 'true' } });
    expect(parseDockerEvent({ Type: 'container', Action: 'exec_start: sh', Actor: { ID: 'abc' } })).toBeNull();
  });
});

describe('container events', () => {
  it('reconnects when the event stream drops, from the second of the last event, with the label filter', async () => {
    const asked: { filters: Record<string, string[]>; since?: number }[] = [];
    const event = (id: string, action: string, seconds: number) =>
      `${JSON.stringify({ Type: 'container', Action: action, Actor: { ID: id, Attributes: { exitCode: '1' } }, timeNano: seconds * 1e9 })}\n`;
    // TEST DOUBLE: Docker's /events, ending the stream after each answer (an engine restart, an SSH reconnect).
    const docker = {
      getEvents: async (options: { filters: Record<string, string[]>; since?: number }) => {
        asked.push(options);
        const body = asked.length === 1 ? [event('a', 'start', 1000).slice(0, 30), event('a', 'start', 1000).slice(30)] : asked.length === 2 ? [event('a', 'die', 1001)] : [];
        return Readable.from(body.map((text) => Buffer.from(text)));
      },
    } as unknown as Docker;
    const seen: ContainerEvent[] = [];
    const stop = watchDockerEvents(docker, { 'io.agentswarm.managed': 'true' }, (e) => seen.push(e));
    try {
      await expect.poll(() => seen.map((e) => e.action), { timeout: 20_000 }).toEqual(['start', 'die']);
      expect(asked[0]!.filters).toEqual({ type: ['container'], event: ['start', 'die', 'oom', 'stop', 'destroy'], label: ['io.agentswarm.managed=true'] });
      expect(asked[1]!.since).toBe(1000);
      expect(seen[1]).toMatchObject({ containerId: 'a', exitCode: 1, at: 1_001_000 });
    } finally {
      stop();
    }
  });
});

describe('resuming a follow from a cursor', () => {
  it('asks Docker from the cursor and skips exactly the lines already seen at its timestamp', async () => {
    const t1 = '2026-12-03T15:16:25.1Z';
    const t2 = '2026-12-03T15:16:25.2Z';
    const t3 = '2026-12-03T15:16:25.3Z';
    // Docker's `since` keeps lines AT that time: it sends all three lines of t2 again.
    const bytes = Buffer.concat([frame(1, `${t1} old\n`), frame(1, `${t2} a\n${t2} b\n`), frame(2, `${t2} c\n`), frame(1, `${t3} d\n`)]);
    const asked: unknown[] = [];
    // TEST DOUBLE: the two dockerode calls a follow makes, answering with a finished log stream.
    const docker = {
      getContainer: () => ({
        inspect: async () => ({ Config: { Tty: false } }),
        logs: async (query: unknown) => {
          asked.push(query);
          return Readable.from([bytes.subarray(0, 5), bytes.subarray(5)]);
        },
      }),
    } as unknown as Docker;
    const got: EngineLogLine[] = [];
    const fail = (error: unknown) => new AppError('INTERNAL', String(error));
    await followDockerLog(docker, 'x', { sinceTimestamp: t2, skipAtSince: 2, signal: new AbortController().signal, onLines: (lines) => got.push(...lines) }, fail);
    expect(asked[0]).toMatchObject({ follow: true, timestamps: true, since: dockerSince(timestampNanos(t2)!) });
    expect(got.map((l) => l.text)).toEqual(['c', 'd']);
  });
});

describe('a file inside a container, from its tar', () => {
  it('keeps only the last bytes, cut at a line start, even when the tar arrives in small chunks', () => {
    const data = Buffer.from(Array.from({ length: 2000 }, (_, i) => `row ${i}`).join('\n') + '\n');
    const tar = tarOf('swarm_server.log', data);
    const tail = new TarTail(100);
    for (let i = 0; i < tar.length; i += 97) tail.push(tar.subarray(i, i + 97));
    const text = tail.result()!;
    expect(text.length).toBeLessThanOrEqual(100);
    expect(text.endsWith('row 1999\n')).toBe(true);
    expect(text.startsWith('row ')).toBe(true);
    const small = new TarTail(1000);
    small.push(tarOf('a.log', Buffer.from('one\ntwo\n')));
    expect(small.result()).toBe('one\ntwo\n');
    expect(new TarTail(10).result()).toBeNull();
  });
});

describe('a stored log', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('indexes the file again after a restart, drops a torn last line, and resumes from the last timestamp with its count', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentswarm-logfile-'));
    const path = join(dir, 'x.log');
    const file = await LogFile.open(path);
    const t1 = '2026-12-03T15:16:25.1Z';
    const t2 = '2026-12-03T15:16:25.2Z';
    await file.append([
      { stream: 'stdout', timestamp: t1, text: 'a\twith tab' },
      { stream: 'stderr', timestamp: t2, text: 'b' },
      { stream: 'stdout', timestamp: t2, text: 'c' },
    ]);
    expect(file.cursor).toEqual({ timestamp: t2, linesAtTimestamp: 2 });
    // A batch that ends at the same time adds to the count; one with a newer time starts over.
    await file.append([{ stream: 'stdout', timestamp: t2, text: 'd' }]);
    expect(file.cursor).toEqual({ timestamp: t2, linesAtTimestamp: 3 });
    await file.close();
    // A crash in the middle of a write leaves half a line.
    appendFileSync(path, 'o\t2026-12-03T15:16:25.3Z\thal');
    const again = await LogFile.open(path);
    expect(again.total).toBe(4);
    expect(again.cursor).toEqual({ timestamp: t2, linesAtTimestamp: 3 });
    expect(await again.readRange(0, 3)).toEqual([
      { n: 0, stream: 'stdout', time: t1, text: 'a\twith tab' },
      { n: 1, stream: 'stderr', time: t2, text: 'b' },
      { n: 2, stream: 'stdout', time: t2, text: 'c' },
    ]);
    expect(readFileSync(path, 'utf8').endsWith('d\n')).toBe(true);
    expect(await again.filtered(linePredicate({ text: 'C', regex: false, stream: 'all' }), 0, 10)).toEqual({ matching: 1, lines: [2] });
    expect(await again.filtered(linePredicate({ text: '', regex: false, stream: 'stdout' }), 1, 10)).toEqual({ matching: 3, lines: [2, 3] });
    await again.close();
  });

  it('pages a log longer than its in-memory ring from the file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentswarm-logfile-'));
    const file = await LogFile.open(join(dir, 'y.log'));
    const lines = Array.from({ length: 12_000 }, (_, i) => ({ stream: 'stdout' as const, timestamp: null, text: `line ${i}` }));
    await file.append(lines);
    expect((await file.readRange(100, 103)).map((l) => l.text)).toEqual(['line 100', 'line 101', 'line 102']);
    expect((await file.readRange(11_998, 12_000)).map((l) => l.n)).toEqual([11_998, 11_999]);
    const regex = await file.filtered(linePredicate({ text: '^line 1\\d{4}$', regex: true, stream: 'all' }), 0, 5);
    expect(regex).toEqual({ matching: 2000, lines: [10_000, 10_001, 10_002, 10_003, 10_004] });
    await file.close();
  });

  it('two reads of one new filter at once both get the whole answer (the second waits for the first scan)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentswarm-logfile-'));
    const file = await LogFile.open(join(dir, 'z.log'));
    await file.append(Array.from({ length: 12_000 }, (_, i) => ({ stream: 'stdout' as const, timestamp: null, text: `line ${i}` })));
    const filter = () => linePredicate({ text: 'line 7', regex: false, stream: 'all' });
    const [first, second] = await Promise.all([file.filtered(filter(), 0, 3), file.filtered(filter(), 0, 3)]);
    expect(first).toEqual({ matching: 1111, lines: [7, 70, 71] });
    expect(second).toEqual(first);
    await file.close();
  });
});
