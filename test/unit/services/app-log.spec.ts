import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppLog } from '../../../electron/services/util/app-log';
import { describeThrown } from '../../../electron/services/util/logger';

const CANARY = 'hf_CanaryTokenAbCdEf0123456789xyz';

describe('AppLog (real files)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-applog-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function allText(): Promise<string> {
    const files = (await readdir(dir)).filter((f) => f.startsWith('app.log'));
    return (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
  }

  it('never writes a canary secret: in the message, in meta, in a stack, in a URL, in a header', async () => {
    const log = new AppLog(dir);
    const error = new Error(`pull failed: Authorization: Bearer ${CANARY}`);
    log.error(`login with token=${CANARY}`, { ...describeThrown(error), apiKey: CANARY, url: `https://user:${CANARY}@example.com/x` });
    log.warn('docker said', { detail: `HF_TOKEN=${CANARY}\nsecond line ${CANARY}` });
    const text = await allText();
    expect(text).toContain('login with token=');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('CanaryToken');
    expect(log.tail(50).join('\n')).not.toContain(CANARY);
    expect((await stat(join(dir, 'app.log'))).mode & 0o777).toBe(0o600);
  });

  it('rotates at the size cap and keeps a fixed number of files', async () => {
    const log = new AppLog(dir, { maxBytes: 2_000, files: 3 });
    for (let index = 0; index < 200; index += 1) log.info(`entry ${index} ${'x'.repeat(60)}`);
    const files = (await readdir(dir)).sort();
    expect(files).toEqual(['app.log', 'app.log.1', 'app.log.2']);
    for (const file of files) expect((await stat(join(dir, file))).size).toBeLessThanOrEqual(2_000);
    const tail = log.tail(3);
    expect(tail).toHaveLength(3);
    expect(tail[2]).toContain('entry 199');
  });

  it('cuts one huge entry instead of letting it flush the log', async () => {
    const log = new AppLog(dir, { maxEntryChars: 500 });
    log.error('docker output', { detail: 'y'.repeat(100_000) });
    const text = await readFile(join(dir, 'app.log'), 'utf8');
    expect(text.length).toBeLessThan(700);
    expect(text).toContain('[cut at 500 characters]');
  });
});
