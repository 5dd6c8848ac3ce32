import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { app, resetElectronStub, safeStorage, type FakeStorageKind } from '../../stubs/electron';
import { applyPasswordStoreSwitch, createKeychain, suggestedPasswordStores } from '../../../electron/main/keychain';
import { ShellStore } from '../../../electron/main/shell-store';
import { boot, type BootDeps } from '../../../electron/main/boot';
import type { AppServices, AppServicesOptions } from '../../../electron/services/app-services';
import type { Handlers } from '../../../electron/services/ipc/handlers';

let dir: string;
beforeEach(async () => {
  resetElectronStub();
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-keychain-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The keychain after `ready`, on Linux with the stand-in reporting `kind`. */
async function keychainWith(kind: FakeStorageKind, env: Record<string, string> = {}) {
  safeStorage.setBackend(kind);
  await app.whenReady();
  const shell = ShellStore.open({ cwd: dir });
  return { shell, keychain: createKeychain({ shell, passwordStore: null, platform: 'linux', env }) };
}

describe('keychain over safeStorage (the stand-in)', () => {
  it('gnome_libsecret: strong; a data key round-trips through the async API', async () => {
    const { keychain } = await keychainWith('gnome_libsecret', { XDG_CURRENT_DESKTOP: 'GNOME' });
    expect(await keychain.info()).toEqual({
      available: true,
      backend: 'gnome_libsecret',
      weak: false,
      desktop: 'GNOME',
      passwordStore: null,
      suggestedPasswordStores: ['gnome-libsecret'],
    });
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37) & 0xff));
    const sealed = await keychain.encrypt(key);
    expect(sealed.includes(key)).toBe(false);
    expect(await keychain.decrypt(sealed)).toEqual(key);
  });

  it('basic_text: weak, and nothing is sealed until the user explicitly chooses obfuscation', async () => {
    const { keychain, shell } = await keychainWith('basic_text', { XDG_CURRENT_DESKTOP: 'Hyprland' });
    const info = await keychain.info();
    expect(info).toMatchObject({ backend: 'basic_text', weak: true, desktop: 'Hyprland', suggestedPasswordStores: ['gnome-libsecret'] });
    await expect(keychain.encrypt(Buffer.from('data key'))).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
    expect(safeStorage.encryptCalls).toBe(0);
    expect(safeStorage.plainTextCalls).toEqual([]);

    keychain.allowObfuscation();
    expect(safeStorage.plainTextCalls).toEqual([true]);
    expect(shell.get().allowObfuscation).toBe(true);
    // Still weak (it is obfuscation), but usable now that the user said so.
    expect(await keychain.info()).toMatchObject({ available: true, backend: 'basic_text', weak: true });
    const sealed = await keychain.encrypt(Buffer.from('data key'));
    expect((await keychain.decrypt(sealed)).toString()).toBe('data key');
  });

  it('basic_text even when available (plain text already on) is refused without the remembered choice', async () => {
    safeStorage.setUsePlainTextEncryption(true);
    const { keychain } = await keychainWith('basic_text');
    expect(await keychain.info()).toMatchObject({ available: true, weak: true });
    await expect(keychain.encrypt(Buffer.from('k'))).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
  });

  it('unavailable (libsecret chosen, no daemon answering): weak, encrypt refused with advice', async () => {
    const { keychain } = await keychainWith('unavailable', { XDG_CURRENT_DESKTOP: 'i3' });
    expect(await keychain.info()).toMatchObject({ available: false, backend: 'gnome_libsecret', weak: true });
    const error = await keychain.encrypt(Buffer.from('k')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
    expect((error as Error).message).toContain('on i3');
    expect((error as Error).message).toContain('gnome-libsecret');
  });

  it('a sealed key that no longer opens (keyring reset) is KEYCHAIN_UNAVAILABLE, not a crash', async () => {
    const { keychain } = await keychainWith('gnome_libsecret');
    await expect(keychain.decrypt(Buffer.from('garbage'))).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
  });

  it('refuses to be built before ready (safeStorage would answer "unknown")', () => {
    app.holdReady();
    expect(() => createKeychain({ shell: ShellStore.open({ cwd: dir }), passwordStore: null, platform: 'linux', env: {} })).toThrow(/after the app is ready/);
  });

  it('setPasswordStore persists to the shell store and refuses values that are not a store', async () => {
    const { keychain, shell } = await keychainWith('basic_text');
    await keychain.setPasswordStore('gnome-libsecret');
    expect(ShellStore.open({ cwd: dir }).get().passwordStore).toBe('gnome-libsecret');
    await expect(keychain.setPasswordStore('--no-sandbox')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await keychain.setPasswordStore(null);
    expect(shell.get().passwordStore).toBeNull();
  });

  it('macOS and Windows name their store and suggest no switch', async () => {
    await app.whenReady();
    const shell = ShellStore.open({ cwd: dir });
    const mac = await createKeychain({ shell, passwordStore: null, platform: 'darwin', env: { XDG_CURRENT_DESKTOP: 'GNOME' } }).info();
    expect(mac).toMatchObject({ backend: 'keychain', weak: false, desktop: null, suggestedPasswordStores: [] });
    expect((await createKeychain({ shell, passwordStore: null, platform: 'win32', env: {} }).info()).backend).toBe('dpapi');
  });
});

describe('suggestedPasswordStores', () => {
  it.each([
    ['KDE', { KDE_SESSION_VERSION: '6' }, ['kwallet6', 'kwallet5']],
    ['KDE', { KDE_SESSION_VERSION: '5' }, ['kwallet5', 'kwallet6']],
    ['KDE', {}, ['kwallet6', 'kwallet5', 'kwallet']],
    ['ubuntu:GNOME', {}, ['gnome-libsecret']],
    ['X-Cinnamon', {}, ['gnome-libsecret']],
    ['sway', {}, ['gnome-libsecret']],
    [null, {}, ['gnome-libsecret']],
  ])('%s %j → %j', (desktop, env, expected) => {
    expect(suggestedPasswordStores('linux', desktop, env)).toEqual(expected);
  });
});

describe('the --password-store switch', () => {
  it('appends the remembered value; the user\'s own flag wins', () => {
    expect(applyPasswordStoreSwitch({ passwordStore: 'kwallet5', allowObfuscation: false, window: null, lastPage: null }, app.commandLine)).toBe('kwallet5');
    expect(app.commandLine.appended).toEqual([{ name: 'password-store', value: 'kwallet5', afterReady: false }]);
    resetElectronStub();
    app.commandLine.switches.set('password-store', 'basic');
    expect(applyPasswordStoreSwitch({ passwordStore: 'kwallet5', allowObfuscation: false, window: null, lastPage: null }, app.commandLine)).toBe('basic');
    expect(app.commandLine.appended).toEqual([]);
  });

  function bootDeps(): BootDeps {
    const services = {
      handlers: {} as Handlers,
      settings: {} as AppServices['settings'],
      logger: { warn: vi.fn(), info: vi.fn(), error: vi.fn() },
      start: async () => undefined,
      systemResumed: () => undefined,
      dispose: async () => undefined,
    } satisfies AppServices;
    const created: AppServicesOptions[] = [];
    return Object.assign(
      {
        createAppServices: (options: AppServicesOptions) => {
          created.push(options);
          return services;
        },
        mainDir: '/opt/app/out/main',
        env: { XDG_CURRENT_DESKTOP: 'Hyprland' },
        platform: 'linux' as const,
        logger: services.logger,
        openShellStore: () => ShellStore.open({ cwd: dir }),
      },
      { created },
    );
  }

  it('basic_text → the user picks gnome-libsecret → the next launch appends it before ready and reports it', async () => {
    safeStorage.setBackend('basic_text');
    const first = bootDeps() as BootDeps & { created: AppServicesOptions[] };
    await boot(first);
    const keychain = first.created[0]?.keychain;
    expect(await keychain?.info()).toMatchObject({ weak: true, passwordStore: null });
    expect(app.commandLine.appended).toEqual([]);
    await keychain?.setPasswordStore('gnome-libsecret');

    // Next launch: a fresh process (fresh stand-in), the same userData.
    resetElectronStub();
    safeStorage.setBackend('gnome_libsecret');
    const second = bootDeps() as BootDeps & { created: AppServicesOptions[] };
    await boot(second);
    expect(app.commandLine.appended).toEqual([{ name: 'password-store', value: 'gnome-libsecret', afterReady: false }]);
    expect(await second.created[0]?.keychain?.info()).toMatchObject({ weak: false, passwordStore: 'gnome-libsecret' });
  });

  it('the obfuscation choice is re-applied at the next launch, and only then', async () => {
    safeStorage.setBackend('basic_text');
    const first = bootDeps() as BootDeps & { created: AppServicesOptions[] };
    await boot(first);
    expect(safeStorage.plainTextCalls).toEqual([]);
    first.created[0]?.keychain?.allowObfuscation();

    resetElectronStub();
    safeStorage.setBackend('basic_text');
    const second = bootDeps() as BootDeps & { created: AppServicesOptions[] };
    await boot(second);
    expect(safeStorage.plainTextCalls).toEqual([true]);
    const sealed = await second.created[0]?.keychain?.encrypt(Buffer.from('k'));
    expect(sealed).toBeInstanceOf(Buffer);
  });

  it('app:info learns how the shell store was read (a corrupt file kept as a backup)', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'shell-state.json'), 'not json');
    const deps = bootDeps() as BootDeps & { created: AppServicesOptions[] };
    await boot(deps);
    expect(deps.created[0]?.shellStoreStatus?.()).toMatchObject({ problem: 'moved-aside', file: join(dir, 'shell-state.json') });
    expect(deps.logger?.warn).toHaveBeenCalledWith('shell state: moved-aside', expect.objectContaining({ problem: 'moved-aside' }));
  });
});
