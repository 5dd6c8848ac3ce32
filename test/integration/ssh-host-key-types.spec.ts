// Host keys of another type (issue 29, item 2) against a real sshd of the test's own whose HostKey lines
// change between connections: the app asks for the key types known_hosts trusts first, and a server that
// presents only another type is refused before any credential (sshd's own log shows no login request),
// shown like a changed key, and trusted only through the explicit replace action. Also for ProxyJump hops.
// Needs the test bed (its user, keys and jump sshd) and root (to run sshd).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { ServerProfileInput } from '../../electron/shared/schemas-servers';
import { OwnSshd } from '../support/own-sshd';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbedWithJump } from '../testbed/testbed';

const tb = loadTestbedWithJump();
const tuning = { readyTimeoutMs: 60_000, backoff: { initialMs: 60_000, maxMs: 60_000 } };

describe('a host key of another type than the trusted one', () => {
  let app: TestApp;
  let sshd: OwnSshd;
  let knownHosts = '';
  const name = () => `[127.0.0.1]:${sshd.port}`;
  const trust = (...lines: string[]) => writeFileSync(knownHosts, lines.map((l) => `${l}\n`).join(''));
  const testbedLine = () => `[${tb.ssh.host}]:${tb.ssh.port} ${readHostKey(tb.ssh.hostPublicKeyPath)}`;
  const jumpLine = () => `[${tb.jump.host}]:${tb.jump.port} ${readHostKey(tb.jump.hostPublicKeyPath)}`;

  const add = (label: string, extra: Partial<ServerProfileInput> = {}) =>
    app.handlers['servers:add'](
      ServerProfileInput.parse({ label, host: '127.0.0.1', port: sshd.port, username: tb.ssh.user, authMethods: ['key'], identityFiles: [tb.ssh.plainKeyPath], ...extra }),
    );

  beforeAll(async () => {
    sshd = new OwnSshd(tb.ssh.user);
    app = await startTestApp({ ssh: { tuning } });
    knownHosts = join(app.dataDir, 'known_hosts');
  });

  afterAll(async () => {
    await app?.dispose();
    await sshd?.dispose();
  });

  it('asks a server that has both keys for the known ECDSA one, where ssh2 alone would take ed25519', async () => {
    await sshd.start(['ed25519', 'ecdsa']);
    // Without our order ssh2 picks ed25519: the case the order exists for.
    const plain = await SshConnection.connect({
      host: '127.0.0.1', port: sshd.port, username: tb.ssh.user, auth: [{ kind: 'key', path: tb.ssh.plainKeyPath }],
      askSecret: () => Promise.resolve(null), verifyHostKey: () => Promise.resolve(true),
    });
    expect(plain.hostKey.keyType).toBe('ssh-ed25519');
    await plain.close();

    trust(`${name()} ${sshd.keys.ecdsa.publicKey}`);
    const server = await add('both-keys');
    const view = await app.handlers['servers:connect']({ serverId: server.profile.id });
    expect(view).toMatchObject({ state: 'up', hostKey: null, reason: null });
    expect(sshd.log().match(/kex: host key algorithm: (\S+)/g)?.pop()).toBe('kex: host key algorithm: ecdsa-sha2-nistp256');
    await app.handlers['servers:remove']({ serverId: server.profile.id });
    expect(sshd.log()).toMatch(/Accepted publickey for swarmtest/);
  });

  it('refuses a server that now presents only ECDSA before any login, says what it used to present, and needs the explicit action', async () => {
    await sshd.start(['ecdsa']);
    trust(`${name()} ${sshd.keys.ed25519.publicKey}`);
    const server = await add('type-changed');
    const view = await app.handlers['servers:connect']({ serverId: server.profile.id });
    expect(view.state).toBe('down');
    expect(view.reason?.code).toBe('SSH_HOST_KEY_CHANGED');
    expect(view.reason?.message).toContain(`used to present ssh-ed25519 ${sshd.keys.ed25519.fingerprint}; now it presents only ecdsa-sha2-nistp256 ${sshd.keys.ecdsa.fingerprint}`);
    expect(view.hostKey).toMatchObject({
      status: 'other-type',
      hop: 0,
      keyType: 'ecdsa-sha2-nistp256',
      fingerprint: sshd.keys.ecdsa.fingerprint,
      knownKeys: [{ keyType: 'ssh-ed25519', fingerprint: sshd.keys.ed25519.fingerprint }],
    });
    await sshd.waitForPreauthEnds(1);
    expect(sshd.authRequests()).toEqual([]);

    // A plain Trust is not the way: it would have sent the key as for a new server.
    await expect(app.handlers['servers:trust-host-key']({ serverId: server.profile.id, fingerprint: sshd.keys.ecdsa.fingerprint })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(sshd.authRequests()).toEqual([]);

    const up = await app.handlers['servers:replace-host-key']({ serverId: server.profile.id, fingerprint: sshd.keys.ecdsa.fingerprint });
    expect(up).toMatchObject({ state: 'up', hostKey: null });
    // The control: the same log does show a login once the key is trusted.
    expect(sshd.authRequests().length).toBeGreaterThan(0);
    expect(sshd.log()).toMatch(/Accepted publickey for swarmtest/);
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it('refuses a jump host that presents only another type: nothing sent to it, the target never reached', async () => {
    await sshd.start(['rsa']);
    trust(`${name()} ${sshd.keys.ed25519.publicKey}`, testbedLine());
    const server = await add('jump-type-changed', {
      host: tb.ssh.host,
      port: tb.ssh.port,
      jumps: [{ host: '127.0.0.1', port: sshd.port, username: tb.ssh.user, identityFiles: [tb.ssh.plainKeyPath] }],
    });
    const view = await app.handlers['servers:connect']({ serverId: server.profile.id });
    expect(view.state).toBe('down');
    expect(view.reason?.code).toBe('SSH_HOST_KEY_CHANGED');
    expect(view.reason?.message).toMatch(/^via jump host /);
    expect(view.hostKey).toMatchObject({ status: 'other-type', hop: 0, port: sshd.port, fingerprint: sshd.keys.rsa.fingerprint });
    await sshd.waitForPreauthEnds(1);
    expect(sshd.authRequests()).toEqual([]);
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it('refuses a target behind a jump host that presents only another type, after the jump host logged in', async () => {
    await sshd.start(['ecdsa']);
    trust(`${name()} ${sshd.keys.ed25519.publicKey}`, jumpLine());
    const server = await add('target-type-changed', {
      jumps: [{ host: tb.jump.host, port: tb.jump.port, username: tb.ssh.user, identityFiles: [tb.ssh.plainKeyPath] }],
    });
    const view = await app.handlers['servers:connect']({ serverId: server.profile.id });
    expect(view.state).toBe('down');
    expect(view.reason?.code).toBe('SSH_HOST_KEY_CHANGED');
    expect(view.hostKey).toMatchObject({ status: 'other-type', hop: 1, fingerprint: sshd.keys.ecdsa.fingerprint });
    await sshd.waitForPreauthEnds(1);
    expect(sshd.authRequests()).toEqual([]);
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });
});

function readHostKey(publicKeyPath: string): string {
  return readFileSync(publicKeyPath, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
}
