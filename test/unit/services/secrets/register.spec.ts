import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../../electron/services/domain';
import { EventHub } from '../../../../electron/services/events';
import { registerVault } from '../../../../electron/services/secrets/register';
import { SecretVault } from '../../../../electron/services/secrets/secret-vault';
import type { EventChannel } from '../../../../electron/shared/contract';
import { contractCheckedHandlers } from '../../../support/helpers';
import type { Handlers } from '../../../../electron/services/ipc/handlers';
import { FAST_SCRYPT, KeychainDouble, canary, vaultBed, type VaultBed } from './vault-fixtures';

describe('registerVault: vault:* and secrets:* handlers and their snapshots', { timeout: 120_000 }, () => {
  let bed: VaultBed;
  beforeEach(async () => {
    bed = await vaultBed();
  });
  afterEach(async () => {
    await bed.dispose();
  });

  async function register(keychain?: KeychainDouble) {
    const hub = new EventHub();
    const events: { channel: EventChannel; payload: unknown }[] = [];
    hub.subscribe((channel, payload) => events.push({ channel, payload }));
    const vault = new SecretVault({ dataDir: bed.dir, host: keychain ? 'electron' : 'browser', keychain, logger: bed.logger, scrypt: FAST_SCRYPT });
    // Only what registerVault reads: the vault and the event sink.
    const module = registerVault({ vault, events: hub } as unknown as ServiceContext);
    await module.start?.();
    const handlers = contractCheckedHandlers({ ...module.handlers, ...module.secretHandlers } as Handlers);
    return { module, handlers, events };
  }

  it('answers with state and metadata only, and publishes snapshots on every change', async () => {
    const { module, handlers, events } = await register();
    expect(events.map((e) => e.channel)).toEqual(['vault:changed', 'secrets:changed']);
    await handlers['vault:setup']({ backend: 'passphrase', passphrase: 'a long passphrase' });
    const value = canary();
    const saved = await handlers['secrets:save']({ name: 'Key', kind: 'env', value, llm: null });
    expect(await handlers['secrets:list']({})).toEqual([saved]);
    const last = events.filter((e) => e.channel === 'secrets:changed').at(-1);
    expect(last?.payload).toEqual([saved]);
    expect(await handlers['secrets:delete']({ id: saved.id })).toEqual({ removed: true });
    expect(events.filter((e) => e.channel === 'secrets:changed').at(-1)?.payload).toEqual([]);
    expect(await handlers['vault:lock']({})).toMatchObject({ status: 'locked' });
    expect(events.filter((e) => e.channel === 'vault:changed').at(-1)?.payload).toMatchObject({ status: 'locked' });
    expect(JSON.stringify(events)).not.toContain(value);
    await module.dispose?.();
    const count = events.length;
    await handlers['vault:unlock']({ passphrase: 'a long passphrase' });
    // Unsubscribed on dispose: no more events.
    expect(events.length).toBe(count);
  });

  it('vault:password-store reaches the keychain in Electron, and is KEYCHAIN_UNAVAILABLE in the browser host', async () => {
    const keychain = KeychainDouble.basicText();
    const electron = await register(keychain);
    expect(await electron.handlers['vault:password-store']({ passwordStore: 'gnome-libsecret' })).toMatchObject({ available: ['passphrase', 'session', 'obfuscated'] });
    expect(keychain.passwordStore).toBe('gnome-libsecret');
    const browser = await register();
    await expect(browser.handlers['vault:password-store']({ passwordStore: 'basic' })).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
  });
});
