import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatLine, JobLog, MAX_LINE_CHARS, parseLine, readLogWindow } from '../../../../electron/services/jobs/job-log';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-joblog-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('JobLog', () => {
  it('keeps the newest bufferLines in memory and reads older ones back from its file, by line number', async () => {
    const log = new JobLog(join(dir, 'a.log'), 5);
    for (let i = 0; i < 20; i += 1) log.append(i % 2 ? 'err' : 'out', `line ${i}`);
    expect(log.lines).toBe(20);
    expect(log.tail()).toEqual(['line 15', 'line 16', 'line 17', 'line 18', 'line 19']);
    // From the file (flushed first, though the stream may not have written it yet).
    expect(await log.window(0, 3)).toEqual([
      { n: 0, stream: 'out', text: 'line 0' },
      { n: 1, stream: 'err', text: 'line 1' },
      { n: 2, stream: 'out', text: 'line 2' },
    ]);
    expect((await log.window(13, 4)).map((l) => l.text)).toEqual(['line 13', 'line 14', 'line 15', 'line 16']);
    expect((await log.window(17, 100)).map((l) => l.n)).toEqual([17, 18, 19]);
    expect(await log.window(20, 10)).toEqual([]);
    await log.close();
    await log.close();
    expect((await readFile(join(dir, 'a.log'), 'utf8')).split('\n').slice(0, 2)).toEqual(['out line 0', 'err line 1']);
  });

  it('the classification tail leaves out the app lines', async () => {
    const log = new JobLog(join(dir, 'b.log'));
    log.append('app', '$ python x.py');
    log.append('out', 'o');
    log.append('err', 'e');
    expect(log.tail()).toEqual(['o', 'e']);
    expect(log.tail(['app'])).toEqual(['$ python x.py']);
    await log.close();
  });

  it('cuts a huge line (a progress bar without newlines) and says so', async () => {
    const log = new JobLog(join(dir, 'c.log'));
    log.append('out', 'x'.repeat(MAX_LINE_CHARS + 10));
    const [line] = await log.window(0, 1);
    expect(line!.text).toHaveLength(MAX_LINE_CHARS + '… [line cut]'.length);
    expect(line!.text.endsWith('… [line cut]')).toBe(true);
    await log.close();
  });

  it('a log file it cannot write does not stop the run: the memory buffer still serves', async () => {
    const problems: string[] = [];
    const log = new JobLog(join(dir, 'no-such-folder', 'd.log'), 10, (error) => problems.push(error.message));
    log.append('out', 'still here');
    // The write fails asynchronously: wait for its report (no fixed sleep: a loaded machine may take longer).
    for (let i = 0; i < 200 && problems.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(problems[0]).toMatch(/ENOENT/);
    expect(await log.window(0, 5)).toEqual([{ n: 0, stream: 'out', text: 'still here' }]);
    await log.close();
  });
});

describe('file format', () => {
  it('prefixes each line with its stream; a line not written by us is shown as stdout', () => {
    expect(formatLine('err', 'boom')).toBe('err boom\n');
    expect(parseLine('app $ python', 4)).toEqual({ n: 4, stream: 'app', text: '$ python' });
    expect(parseLine('outside the format', 0)).toEqual({ n: 0, stream: 'out', text: 'outside the format' });
    expect(parseLine('errata', 1)).toEqual({ n: 1, stream: 'out', text: 'errata' });
  });

  it('readLogWindow fails for a missing file (the runner turns that into LOG_UNAVAILABLE)', async () => {
    await expect(readLogWindow(join(dir, 'gone.log'), 0, 10)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
