import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FakeWebContents, resetElectronStub } from '../../../stubs/electron';
import { EventQueue } from '../../../../electron/main/ipc';
import { AppError } from '../../../../electron/shared/errors';
import type { ContainerEngine, FollowLogOptions } from '../../../../electron/services/engines/container-engine';
import { EngineRegistry } from '../../../../electron/services/engines/engine-registry';
import { EventHub } from '../../../../electron/services/events';
import { runHandler } from '../../../../electron/services/ipc/run-handler';
import { LogService } from '../../../../electron/services/logs/log-service';
import { SeriesStore } from '../../../../electron/services/training/series-store';
import { forgetSecretValue, redact, redactLines, redactPayload, redactText, rememberSecretValue, REDACTED } from '../../../../electron/services/util/redact';

const CANARY = 'canary-Q7w"x\\9-zz81';
const dirs: string[] = [];
afterEach(() => {
  forgetSecretValue(CANARY);
  resetElectronStub();
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'redact-wiring-'));
  dirs.push(dir);
  return dir;
};

describe('the one redactor: payload rules', () => {
  it('hides known values (also JSON-escaped), sk- keys, bearer tokens and URL passwords, and leaves payload text alone', () => {
    rememberSecretValue(CANARY);
    const json = JSON.stringify({ note: `key ${CANARY}` });
    expect(json).toContain('\\"x\\\\9');
    expect(redactText(json)).not.toContain(JSON.stringify(CANARY).slice(1, -1));
    expect(redactText(`value ${CANARY} end`)).toBe(`value ${REDACTED} end`);
    expect(redactText('key sk-abcdefghijklmnop1234 here')).toBe(`key ${REDACTED} here`);
    expect(redactText('Authorization: Bearer abc.def-123')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactText('https://bob:pa55word@host/x')).toBe(`https://bob:${REDACTED}@host/x`);
    // What the log rules would blank but payloads need: fingerprints, field names, "1-token".
    const plain = 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s passwordSecretId=gpu-pw a 1-token chat completion';
    expect(redactText(plain)).toBe(plain);
  });

  it('redactPayload returns the same object when nothing changes and a scrubbed copy when something does', () => {
    rememberSecretValue(CANARY);
    const clean = { a: [{ b: 'x' }], c: 1, d: null };
    expect(redactPayload(clean)).toBe(clean);
    const dirty = { a: [{ b: `has ${CANARY}` }, { keep: 'y' }], c: 1 };
    const out = redactPayload(dirty);
    expect(out).not.toBe(dirty);
    expect(out.a[1]).toBe(dirty.a[1]);
    expect(JSON.stringify(out)).not.toContain('zz81');
    expect(dirty.a[0]!.b).toContain(CANARY);
  });

  it('redactLines gives exactly what redact gives line by line (batched fast path)', () => {
    rememberSecretValue(CANARY);
    const lines = ['plain line 1', `token=abc123 rest`, `x ${CANARY}`, 'ZmFrZUtleUFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFla', 'step 3 reward=0.5'];
    expect(redactLines(lines)).toEqual(lines.map(redact));
    const clean = ['a', 'b'];
    expect(redactLines(clean)).toEqual(clean);
  });
});

describe('the one redactor at the choke points', () => {
  it('run-handler redacts answers and error messages of both transports', async () => {
    rememberSecretValue(CANARY);
    const failed = await runHandler(z.object({}), {}, () => {
      throw new AppError('SSH_AUTH_FAILED', `login refused with ${CANARY}`);
    });
    expect(JSON.stringify(failed)).not.toContain('zz81');
    expect(failed).toMatchObject({ ok: false, error: { code: 'SSH_AUTH_FAILED', message: `login refused with ${REDACTED}` } });
    const answered = await runHandler(z.object({}), {}, () => ({ text: `echo sk-abcdefghijklmnop1234 ${CANARY}` }));
    expect(answered).toEqual({ ok: true, value: { text: `echo ${REDACTED} ${REDACTED}` } });
  });

  it('EventHub hands every transport the redacted payload', () => {
    rememberSecretValue(CANARY);
    const hub = new EventHub();
    const seen: unknown[] = [];
    hub.subscribe((_channel, payload) => seen.push(payload));
    hub.emit('app:notification', { title: 't', body: `oops ${CANARY}` } as never);
    expect(JSON.stringify(seen)).not.toContain('zz81');
    expect(JSON.stringify(seen)).toContain(REDACTED);
  });

  it("Electron's EventQueue sends the redacted payload to the window", () => {
    rememberSecretValue(CANARY);
    const queue = new EventQueue();
    const contents = new FakeWebContents();
    queue.attach(contents);
    queue.markReady(contents.id);
    queue.emit('app:notification', { title: 't', body: `oops ${CANARY}` } as never);
    expect(JSON.stringify(contents.sent)).not.toContain('zz81');
    expect(contents.sent).toHaveLength(1);
  });

  it('training run records are written redacted', async () => {
    rememberSecretValue(CANARY);
    const root = tempDir();
    const store = new SeriesStore(root);
    await store.append('local', 'c1', 'run-1', [{ k: 'run', note: `cfg ${CANARY}` } as never]);
    const dir = join(root, 'local', 'c1');
    const text = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).join('');
    expect(text).toContain(REDACTED);
    expect(text).not.toContain('zz81');
  });

  it('container log lines are stored redacted (file, window reads, appended events, export)', async () => {
    rememberSecretValue(CANARY);
    const dataDir = tempDir();
    const hub = new EventHub();
    const events: string[] = [];
    hub.subscribe((channel, payload) => events.push(`${channel} ${JSON.stringify(payload)}`));
    // TEST DOUBLE engine: prints two lines (one with the canary, one with a bearer token) and ends.
    const engine = {
      summary: { id: 'local', kind: 'local-docker', label: 'Memory', endpoint: 'memory://' },
      followLog: async (_id: string, options: FollowLogOptions) => {
        options.onLines([
          { stream: 'stdout', timestamp: '2026-12-03T10:00:00.000000001Z', text: `OPENAI_API_KEY is ${CANARY}` },
          { stream: 'stderr', timestamp: '2026-12-03T10:00:00.000000002Z', text: 'curl -H "Authorization: Bearer abcdefgh12345"' },
        ]);
      },
    };
    const engines = new EngineRegistry();
    engines.add(engine as unknown as ContainerEngine);
    const service = new LogService({ engines, events: hub, logger: { warn: () => undefined }, dataDir, downloadsDir: join(dataDir, 'dl'), isWatching: () => false, appendedEveryMs: 1 });
    service.follow({ engineId: 'local', containerId: 'c1' } as never);
    await expect.poll(async () => (await service.read({ engineId: 'local', containerId: 'c1', from: 0, count: 10, filter: { text: '', regex: false, stream: 'all' } }).catch(() => null))?.total).toBe(2);
    const window = await service.read({ engineId: 'local', containerId: 'c1', from: 0, count: 10, filter: { text: '', regex: false, stream: 'all' } });
    const exported = await service.export('local', 'c1');
    await expect.poll(() => events.some((e) => e.startsWith('logs:appended'))).toBe(true);
    await service.dispose();
    const everything = [JSON.stringify(window), readFileSync(service.pathOf('local', 'c1'), 'utf8'), readFileSync(exported.path, 'utf8'), ...events].join('\n');
    expect(everything).not.toContain('zz81');
    expect(everything).not.toContain('abcdefgh12345');
    expect(window.lines.map((l) => l.text)).toEqual([`OPENAI_API_KEY is ${REDACTED}`, expect.stringContaining(REDACTED)]);
  });
});
