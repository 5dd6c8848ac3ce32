import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../../../electron/browser-host/server';
import { createAppServices, type AppServices } from '../../../electron/services/app-services';
import { EventHub } from '../../../electron/services/events';
import type { Handlers } from '../../../electron/services/ipc/handlers';
import { startRecordingDocker, type RecordingDocker } from '../../fixtures/fake-docker/recording-docker';

// Shaped like real keys so every redaction rule has to catch them; never written anywhere else.
const CANARY_KEY = 'sk-canaryA1b2C3d4E5f6G7h8I9j0';
const CANARY_PASSWORD = 'canary-hunter2-pw';

/** The browser host the way `npm run web` wires it (cli.ts): real services, their app log, real HTTP. */
describe('browser host with the real services, app log and settings status', () => {
  let dir: string;
  let docker: RecordingDocker;
  let services: AppServices | null = null;
  let host: BrowserHost | null = null;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-host-log-'));
    await mkdir(join(dir, 'static'));
    await writeFile(join(dir, 'static', 'index.html'), '<!doctype html><title>x</title>');
    docker = await startRecordingDocker(dir);
  });
  afterEach(async () => {
    await host?.close();
    await services?.dispose();
    host = null;
    services = null;
    await docker.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function startHost(dataDir: string, override: Partial<Handlers> = {}): Promise<BrowserHost> {
    const hub = new EventHub();
    services = createAppServices({ dataDir, host: 'browser', version: '0.0.0-test', events: hub, dockerHost: docker.host });
    await services.start();
    host = await startBrowserHost({ handlers: { ...services.handlers, ...override }, hub, staticDir: join(dir, 'static'), logger: services.logger });
    return host;
  }

  async function invoke(channel: string, body: unknown = {}): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> {
    if (!host) throw new Error('no host');
    const response = await fetch(`${host.url}api/invoke/${channel}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { ok: boolean };
  }

  it('starts with a data folder path that is a file: defaults, swarm servers looked for, status says where', async () => {
    await writeFile(join(dir, 'data'), 'not a folder');
    await startHost(join(dir, 'data'));
    expect(docker.listedSwarmContainers()).toBe(true);
    await expect(invoke('settings:get')).resolves.toMatchObject({ ok: true, value: { language: 'en' } });
    await expect(invoke('settings:status')).resolves.toEqual({
      ok: true,
      value: expect.objectContaining({ file: join(dir, 'data', 'settings.json'), problem: 'unreadable', detail: expect.stringMatching(/^ENOTDIR/) }),
    });
    // The log cannot be written there either: app:log says so instead of failing.
    await expect(invoke('app:log')).resolves.toMatchObject({ ok: true, value: { problem: expect.stringMatching(/^ENOTDIR/) } });
  });

  it('an unexpected error: INTERNAL to the UI, the full error with its stack in the app log, no secret anywhere', async () => {
    const dataDir = join(dir, 'data');
    await startHost(dataDir, {
      'app:info': async () => {
        throw new Error(`engine said: token expired for api_key=${CANARY_KEY} password: ${CANARY_PASSWORD}`);
      },
    });
    const answer = await invoke('app:info');
    expect(answer).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: expect.stringContaining('app log') } });
    expect(JSON.stringify(answer)).not.toContain('canary');

    const files = await readdir(dataDir);
    expect(files).toContain('app.log');
    const text = (await Promise.all(files.filter((f) => f.startsWith('app.log')).map((f) => readFile(join(dataDir, f), 'utf8')))).join('\n');
    expect(text).toContain('request failed with an unexpected error');
    expect(text).toContain('"channel":"app:info"');
    expect(text).toMatch(/browser-host-app-log\.spec\.ts:\d+/); // the stack, not just the name
    expect(text).not.toContain(CANARY_KEY);
    expect(text).not.toContain(CANARY_PASSWORD);
    expect(text).not.toContain('canary');

    const tail = await invoke('app:log', { lines: 20 });
    expect(tail).toMatchObject({ ok: true, value: { path: join(dataDir, 'app.log'), canOpen: false, problem: null } });
    expect(JSON.stringify(tail)).toContain('request failed with an unexpected error');
    expect(JSON.stringify(tail)).not.toContain('canary');
  });

  it('app:open-log cannot open a desktop app from the browser host: LOG_UNAVAILABLE naming the path', async () => {
    const dataDir = join(dir, 'data');
    await startHost(dataDir);
    await expect(invoke('app:open-log')).resolves.toEqual({
      ok: false,
      error: { code: 'LOG_UNAVAILABLE', message: expect.stringContaining(join(dataDir, 'app.log')) },
    });
  });

  it('a 900 KB unknown key over real HTTP gives a short VALIDATION_FAILED reply', async () => {
    await startHost(join(dir, 'data'));
    if (!host) throw new Error('no host');
    const response = await fetch(`${host.url}api/invoke/app:info`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ['k'.repeat(900 * 1024)]: 1 }),
    });
    const text = await response.text();
    expect(text.length).toBeLessThan(2_000);
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });
});
