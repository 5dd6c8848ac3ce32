import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/helpers';

const repoRoot = resolve(import.meta.dirname, '..', '..');

/** Waits for a line matching `pattern` on the child's stdout. */
function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${output.slice(-2000)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited early with ${code}:\n${output.slice(-2000)}`));
    });
  });
}

// `npm start` here, where the Electron binary cannot be had: it must say so in one line and
// serve the UI through the browser host, with the real services behind it.
describe('npm start without an Electron binary', () => {
  let child: ChildProcess | undefined;
  let dataDir: string | undefined;

  afterAll(async () => {
    if (child?.pid && child.exitCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('falls back to the browser host, prints its URL, and the UI and API answer', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agentswarm-start-'));
    const port = await freePort();
    child = spawn(process.execPath, ['scripts/start.mjs', '--port', String(port)], {
      cwd: repoRoot,
      detached: true, // its own process group, so the test can stop the whole tree
      env: {
        ...process.env,
        AGENTSWARM_DATA_DIR: dataDir,
        ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
        ELECTRON_MIRROR: 'http://127.0.0.1:9/',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const fallbackLine = waitForLine(child, /^Electron binary not available.*browser host instead\.$/m, 90_000);
    const [, url, token] = await waitForLine(child, /Open: (http:\/\/127\.0\.0\.1:\d+\/)#token=([0-9a-f]{64})/, 90_000);
    await expect(fallbackLine).resolves.toBeTruthy();
    expect(url).toBe(`http://127.0.0.1:${port}/`);

    const page = await fetch(url ?? '');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
    const info = await fetch(`${url}api/invoke/app:info`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await info.json()).toMatchObject({ ok: true, value: { host: 'browser' } });
  });
});
