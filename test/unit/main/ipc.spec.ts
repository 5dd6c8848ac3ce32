import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeIpcEvent, ipcMain, resetElectronStub } from '../../stubs/electron';
import { handle, registerIpc, trustedSender } from '../../../electron/main/ipc';
import type { RendererTarget } from '../../../electron/main/security';
import { invokeChannels } from '../../../electron/shared/contract';
import { AppError } from '../../../electron/shared/errors';
import type { Handlers } from '../../../electron/services/ipc/handlers';
import { z } from 'zod';

const target: RendererTarget = { kind: 'bundle', dir: '/opt/app/out/renderer' };
const APP_URL = 'agentswarm://app/index.html';
const fromApp = () => fakeIpcEvent(`${APP_URL}#/`);

const SWARM = {
  id: 'a1b2c3d4e5f6',
  name: 'agentswarm-10086',
  engineId: 'local',
  image: 'ghcr.io/modelscope/agentjet:main',
  state: 'running',
  statusText: 'Up 1 second',
  port: 10086,
  networkMode: 'publish',
  createdAt: '2026-12-02T10:00:00.000Z',
};

function fakeHandlers(overrides: Partial<Record<keyof Handlers, (req: never) => Promise<unknown>>> = {}) {
  const handlers: Record<string, ReturnType<typeof vi.fn>> = {};
  for (const channel of invokeChannels) {
    handlers[channel] = vi.fn(overrides[channel] ?? (async () => ({ channel })));
  }
  return handlers as unknown as Handlers & Record<string, ReturnType<typeof vi.fn>>;
}

const options = () => ({ isTrustedSender: trustedSender(target), logger: { warn: vi.fn() } });

beforeEach(() => resetElectronStub());

describe('registerIpc', () => {
  it('registers every contract channel and can unregister them', () => {
    const dispose = registerIpc(fakeHandlers(), options());
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...invokeChannels].sort());
    dispose();
    expect(ipcMain.handlers.size).toBe(0);
  });

  it('passes a valid payload through, with schema defaults filled in, and wraps the value', async () => {
    const handlers = fakeHandlers({ 'swarm:start': async () => SWARM });
    registerIpc(handlers, options());
    const result = await ipcMain.invoke('swarm:start', fromApp(), { engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main' });
    expect(result).toEqual({ ok: true, value: SWARM });
    expect(handlers['swarm:start']).toHaveBeenCalledWith({
      engineId: 'local',
      image: 'ghcr.io/modelscope/agentjet:main',
      port: 10086,
      networkMode: 'publish',
      gpus: true,
      shmSizeGb: 32,
    });
  });

  it('treats a missing payload as {} so channels without arguments work', async () => {
    const handlers = fakeHandlers();
    registerIpc(handlers, options());
    expect(await ipcMain.invoke('engines:list', fromApp())).toEqual({ ok: true, value: { channel: 'engines:list' } });
  });

  it('refuses an invalid payload with VALIDATION_FAILED naming the field, without calling the service', async () => {
    const handlers = fakeHandlers();
    registerIpc(handlers, options());
    const result = await ipcMain.invoke('swarm:start', fromApp(), { engineId: 'local', image: 'ghcr.io/x:1', port: 80 });
    expect(result).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect((result as { error: { message: string } }).error.message).toMatch(/^port: /);
    expect(handlers['swarm:start']).not.toHaveBeenCalled();
  });

  it('returns the code and message of an AppError thrown by the service', async () => {
    registerIpc(
      fakeHandlers({
        'swarm:stop': async () => {
          throw new AppError('CONTAINER_NOT_FOUND', 'No such container.');
        },
      }),
      options(),
    );
    const result = await ipcMain.invoke('swarm:stop', fromApp(), { engineId: 'local', containerId: 'a1b2c3d4e5f6' });
    expect(result).toEqual({ ok: false, error: { code: 'CONTAINER_NOT_FOUND', message: 'No such container.' } });
  });

  it('turns an unknown error into INTERNAL without leaking its message', async () => {
    const opts = options();
    registerIpc(
      fakeHandlers({
        'settings:get': async () => {
          throw new Error('EACCES /home/alice/.config/secret-token=abc123');
        },
      }),
      opts,
    );
    const result = (await ipcMain.invoke('settings:get', fromApp())) as { ok: boolean; error: { code: string; message: string } };
    expect(result.ok).toBe(false);
    expect(result.error.code).toBe('INTERNAL');
    expect(result.error.message).not.toContain('secret');
    expect(result.error.message).not.toContain('/home/alice');
    expect(opts.logger.warn).toHaveBeenCalled();
    expect(JSON.stringify(opts.logger.warn.mock.calls)).not.toContain('secret');
  });

  it.each([
    ['a foreign page', fakeIpcEvent('https://evil.example/')],
    ['another local file', fakeIpcEvent('file:///tmp/evil.html')],
    ['our own index.html opened over file://', fakeIpcEvent('file:///opt/app/out/renderer/index.html')],
    ['another host on our scheme', fakeIpcEvent('agentswarm://evil/index.html')],
    ['a sub-frame of our page', fakeIpcEvent(APP_URL, { isSubFrame: true })],
    ['a frame that is gone', fakeIpcEvent(null)],
  ])('answers FORBIDDEN to %s and never runs the service', async (_label, event) => {
    const handlers = fakeHandlers();
    registerIpc(handlers, options());
    const result = await ipcMain.invoke('swarm:remove', event, { engineId: 'local', containerId: 'a1b2c3d4e5f6' });
    expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(handlers['swarm:remove']).not.toHaveBeenCalled();
  });
});

describe('handle', () => {
  it('never rejects: the envelope is the only way errors cross IPC', async () => {
    handle(
      'test:thing',
      z.object({ n: z.number() }),
      async () => {
        throw 'a string, not an Error';
      },
      options(),
    );
    await expect(ipcMain.invoke('test:thing', fromApp(), { n: 1 })).resolves.toMatchObject({
      ok: false,
      error: { code: 'INTERNAL' },
    });
  });

  it('trusts the dev server origin in dev', async () => {
    handle('test:dev', z.object({}), async () => 'hi', {
      isTrustedSender: trustedSender({ kind: 'dev', url: 'http://localhost:5173/' }),
    });
    await expect(ipcMain.invoke('test:dev', fakeIpcEvent('http://localhost:5173/'), {})).resolves.toEqual({
      ok: true,
      value: 'hi',
    });
    await expect(ipcMain.invoke('test:dev', fakeIpcEvent(APP_URL), {})).resolves.toMatchObject({
      error: { code: 'FORBIDDEN' },
    });
  });
});
