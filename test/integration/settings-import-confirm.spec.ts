// Issue 29, item 4, through the app's real handlers: an imported file that moves server `prod`
// from port 2222 to 2291 changes nothing until the user confirms that item, and the confirmed
// server no longer carries its vault password (the user attaches it again after checking the new
// host). The servers domain is the real one (SSH sessions to 127.0.0.1 ports where nothing
// answers, so no login is ever attempted with the password).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerProfileInput } from '../../electron/shared/schemas-servers';
import { SETTINGS_EXPORT_FORMAT } from '../../electron/services/settings/settings-transfer';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';

describe('settings import: a re-pointed server waits for confirmation and loses its vault password', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.dispose();
  });

  it('holds the port change back, applies it once confirmed, and detaches the password', async () => {
    await app.handlers['vault:setup']({ backend: 'session' });
    const secret = await app.handlers['secrets:save']({ name: 'prod password', kind: 'ssh-password', value: `pw-${Date.now().toString(36)}-import`, llm: null });
    const [oldPort, newPort] = [await freePort(), await freePort()];
    const added = await app.handlers['servers:add'](ServerProfileInput.parse({ label: 'prod', host: '127.0.0.1', port: oldPort, username: 'deploy', passwordSecretId: secret.id }));
    const id = added.profile.id;
    const file = JSON.stringify({ format: SETTINGS_EXPORT_FORMAT, formatVersion: 1, servers: [{ ...added.profile, port: newPort }] });

    const first = await app.handlers['settings:import']({ text: file });
    expect(first.pending).toEqual([{ key: `server:${id}`, kind: 'server', label: 'prod', changes: [{ field: 'port', from: String(oldPort), to: String(newPort) }] }]);
    const unchanged = (await app.handlers['servers:list']({})).find((view) => view.profile.id === id)!.profile;
    expect(unchanged).toMatchObject({ port: oldPort, passwordSecretId: secret.id });

    const second = await app.handlers['settings:import']({ text: file, confirm: [`server:${id}`] });
    expect(second).toMatchObject({ imported: ['server prod'], pending: [], detached: [{ kind: 'server', label: 'prod', field: 'passwordSecretId', secretId: secret.id }] });
    const moved = (await app.handlers['servers:list']({})).find((view) => view.profile.id === id)!.profile;
    expect(moved).toMatchObject({ port: newPort, passwordSecretId: null });
    // "Used by" follows: the password is no longer attached to anything.
    expect((await app.handlers['secrets:list']({})).find((s) => s.id === secret.id)?.usedBy).toEqual([]);
  });
});
