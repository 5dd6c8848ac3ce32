import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserWindow, Notification, app, resetElectronStub } from '../../stubs/electron';
import { boot, type BootDeps } from '../../../electron/main/boot';
import { tempShellStore } from './temp-shell-store';
import { electronNotifier } from '../../../electron/main/notifier';
import type { AppServices, AppServicesOptions } from '../../../electron/services/app-services';
import type { Handlers } from '../../../electron/services/ipc/handlers';
import type { AppNotification } from '../../../electron/shared/schemas-profiles';

const rolling: AppNotification = {
  kind: 'engine-rolling',
  title: 'Training is rolling: "Qwen 7B" on Local Docker',
  body: 'The engine reached ENGINE.ROLLING (global step 1); clients can claim episodes now.',
  engineId: 'local',
  containerId: 'c1',
};

beforeEach(() => resetElectronStub());

describe('electronNotifier (against the electron stand-in)', () => {
  it("shows the backend's title and body with Electron's Notification, and reports a click", () => {
    const onClick = vi.fn();
    electronNotifier({ onClick }).notify(rolling);
    expect(Notification.instances).toHaveLength(1);
    const shown = Notification.instances[0]!;
    expect(shown.options).toEqual({ title: rolling.title, body: rolling.body });
    expect(shown.shown).toBe(true);
    shown.emit('click');
    expect(onClick).toHaveBeenCalledWith(rolling);
  });

  it('shows nothing where notifications are not supported, and says so once in the log', () => {
    Notification.supported = false;
    const logger = { warn: vi.fn(), info: vi.fn() };
    const notifier = electronNotifier({ logger });
    notifier.notify(rolling);
    notifier.notify({ ...rolling, kind: 'engine-offline' });
    expect(Notification.instances).toHaveLength(0);
    expect(logger.info).toHaveBeenCalledTimes(1);
  });

  it('is what boot gives the services; a click brings the window forward', async () => {
    const created: AppServicesOptions[] = [];
    const services = {
      handlers: {} as Handlers,
      settings: {} as AppServices['settings'],
      logger: { warn: vi.fn(), info: vi.fn(), error: vi.fn() },
      start: vi.fn(async () => undefined),
      systemResumed: vi.fn(),
      dispose: vi.fn(async () => undefined),
    } satisfies AppServices;
    app.paths['userData'] = '/home/u/.config/AgentSwarm Desktop';
    const deps: BootDeps = {
      createAppServices: (options) => {
        created.push(options);
        return services;
      },
      mainDir: '/opt/app/out/main',
      openShellStore: tempShellStore(),
      env: {},
      platform: 'linux',
      logger: services.logger,
    };
    await boot(deps);
    const notifier = created[0]?.notifier;
    expect(notifier).toBeDefined();
    const window = BrowserWindow.instances[0]!;
    window.focused = false;
    notifier!.notify(rolling);
    Notification.instances[0]!.emit('click');
    expect(window.focused).toBe(true);
  });
});
