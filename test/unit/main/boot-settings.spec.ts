import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { app, fakeIpcEvent, ipcMain, resetElectronStub, shell } from '../../stubs/electron';
import { boot, type BootedApp } from '../../../electron/main/boot';
import { tempShellStore } from './temp-shell-store';
import { createAppServices, type AppServicesOptions } from '../../../electron/services/app-services';
import { startRecordingDocker, type RecordingDocker } from '../../fixtures/fake-docker/recording-docker';

const APP_URL = 'agentswarm://app/index.html';

/**
 * Electron boot (against the stand-in in test/stubs/electron.ts) with the REAL services on real
 * files: a settings problem never stops the start, swarm servers are still looked for again, and
 * the UI can ask what happened. Docker is the recording double (no containers).
 */
describe('boot with a settings file that cannot be read', () => {
  let dir: string;
  let docker: RecordingDocker;
  let booted: BootedApp | null = null;
  const logger = { warn: vi.fn() };

  beforeEach(async () => {
    resetElectronStub();
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-boot-'));
    docker = await startRecordingDocker(dir);
    logger.warn.mockClear();
  });
  afterEach(async () => {
    await booted?.services.dispose();
    booted = null;
    await docker.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function bootWith(userData: string): Promise<BootedApp> {
    app.paths['userData'] = userData;
    const withDocker = (options: AppServicesOptions) => createAppServices({ ...options, dockerHost: docker.host });
    booted = await boot({ createAppServices: withDocker, mainDir: '/opt/app/out/main', env: {}, platform: 'linux', logger, openShellStore: tempShellStore() });
    if (!booted) throw new Error('boot returned null');
    return booted;
  }

  const call = (channel: string, request: unknown = {}) => ipcMain.invoke(channel, fakeIpcEvent(APP_URL), request);

  it.each([
    ['the data folder path is a file (ENOTDIR)', 'ENOTDIR', async (d: string) => {
      await writeFile(join(d, 'data'), 'a file where the data folder should be');
      return join(d, 'data');
    }],
    ['settings.json is a folder (EISDIR)', 'EISDIR', async (d: string) => {
      await mkdir(join(d, 'data', 'settings.json'), { recursive: true });
      return join(d, 'data');
    }],
  ])('%s: defaults in memory, swarm servers watched again, status for the UI', async (_label, code, prepare) => {
    const userData = await prepare(dir);
    await bootWith(userData);
    expect(docker.listedSwarmContainers()).toBe(true);
    await expect(call('settings:get')).resolves.toMatchObject({ ok: true, value: { language: 'en' } });
    const status = await call('settings:status');
    expect(status).toEqual({
      ok: true,
      value: expect.objectContaining({ file: join(userData, 'settings.json'), problem: 'unreadable', writable: false, detail: expect.stringMatching(new RegExp(`^${code}`)) }),
    });
    // Saving names the file and writes nothing over it.
    const saved = await call('settings:update', { language: 'zh-CN' });
    expect(saved).toMatchObject({ ok: false, error: { code: 'SETTINGS_NOT_SAVED', message: expect.stringContaining(join(userData, 'settings.json')) } });
  });

  it('a settings.json holding a JSON array: moved aside, the status says where', async () => {
    const userData = join(dir, 'data');
    await mkdir(userData);
    await writeFile(join(userData, 'settings.json'), '[1,2]');
    await bootWith(userData);
    expect(docker.listedSwarmContainers()).toBe(true);
    const status = (await call('settings:status')) as { ok: true; value: { problem: string; movedTo: string } };
    expect(status.value.problem).toBe('moved-aside');
    expect(await readFile(status.value.movedTo, 'utf8')).toBe('[1,2]');
  });

  it('app:log shows the log file in the data folder; app:open-log opens it with shell.openPath', async () => {
    const userData = join(dir, 'data');
    await bootWith(userData);
    const log = (await call('app:log', { lines: 50 })) as { ok: true; value: { path: string; lines: string[]; canOpen: boolean } };
    expect(log.value.path).toBe(join(userData, 'app.log'));
    expect(log.value.canOpen).toBe(true);
    expect(log.value.lines.join('\n')).toContain('starting');
    await expect(call('app:open-log')).resolves.toEqual({ ok: true, value: { opened: true, path: join(userData, 'app.log') } });
    expect(shell.openedPaths).toEqual([join(userData, 'app.log')]);
    shell.openPathResult = 'Failed to open path';
    await expect(call('app:open-log')).resolves.toMatchObject({ ok: false, error: { code: 'LOG_UNAVAILABLE', message: expect.stringContaining('Failed to open path') } });
  });

  it('an unexpected error over IPC: INTERNAL to the window, the full error with its stack in the app log, no secret', async () => {
    const userData = join(dir, 'data');
    const canary = 'sk-canaryZ9y8X7w6V5u4T3s2R1q0';
    app.paths['userData'] = userData;
    booted = await boot({
      createAppServices: (options) => {
        const services = createAppServices({ ...options, dockerHost: docker.host });
        services.handlers['engines:list'] = async () => {
          throw new Error(`unexpected: OPENAI_API_KEY=${canary}`);
        };
        return services;
      },
      mainDir: '/opt/app/out/main',
      openShellStore: tempShellStore(),
      env: {},
      platform: 'linux',
      logger,
    });
    const answer = await call('engines:list');
    expect(answer).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(JSON.stringify(answer)).not.toContain('canary');
    const text = await readFile(join(userData, 'app.log'), 'utf8');
    expect(text).toContain('request failed with an unexpected error');
    expect(text).toMatch(/boot-settings\.spec\.ts:\d+/);
    expect(text).not.toContain(canary);
    // The console gets no full errors (it is not redacted file storage).
    expect(JSON.stringify(logger.warn.mock.calls)).not.toContain('canary');
  });
});
