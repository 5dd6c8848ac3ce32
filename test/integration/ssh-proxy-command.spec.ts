// ProxyCommand (issue 29, item 6) through the app's handlers against the test bed: `ssh -W %h:%p` through
// its jump sshd, `nc 127.0.0.1 %p` (when netcat is installed) and a relay script of ours, a command that
// fails, and the command stopped with the connection. The host key is checked as for any server.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerProfileInput, type ServerView } from '../../electron/shared/schemas-servers';
import { freePort, waitForEvent } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbedWithJump } from '../testbed/testbed';

const tb = loadTestbedWithJump();
const tuning = { readyTimeoutMs: 60_000, backoff: { initialMs: 60_000, maxMs: 60_000 } };
const hasNc = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v nc'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Processes whose command line contains `marker` (our scratch dir is unique to this run). */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return true;
}

describe('ProxyCommand against the test bed', () => {
  let app: TestApp;
  let scratch = '';
  /** The OpenSSH client as a ProxyCommand through the jump sshd, strict about the jump host's key. */
  let viaJump = '';

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'agentswarm-proxycmd-'));
    const jumpKnownHosts = join(scratch, 'jump_known_hosts');
    writeFileSync(jumpKnownHosts, `[${tb.jump.host}]:${tb.jump.port} ${readFileSync(tb.jump.hostPublicKeyPath, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ')}\n`);
    viaJump = [
      'ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes',
      `-o UserKnownHostsFile=${jumpKnownHosts} -o GlobalKnownHostsFile=/dev/null -o IdentitiesOnly=yes -i ${tb.ssh.plainKeyPath}`,
      `-p ${tb.jump.port} ${tb.ssh.user}@${tb.jump.host} -W %h:%p`,
    ].join(' ');
    writeFileSync(
      join(scratch, 'relay.cjs'),
      // TEST DOUBLE of `nc host port` for machines without netcat: stdin/stdout to a TCP port.
      "const s = require('net').connect(Number(process.argv[3]), process.argv[2]);\n" +
        'process.stdin.pipe(s).pipe(process.stdout);\n' +
        "s.on('error', (e) => { console.error(e.message); process.exit(1); });\n" +
        // The test's way of making the command die mid-connection, with something on stderr.
        "process.on('SIGUSR2', () => { console.error('relay: told to stop'); process.exit(3); });\n",
    );
    app = await startTestApp({ ssh: { tuning } });
  });

  afterAll(async () => {
    await app?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  const add = (label: string, proxyCommand: string) =>
    app.handlers['servers:add'](
      ServerProfileInput.parse({ label, host: tb.ssh.host, port: tb.ssh.port, username: tb.ssh.user, authMethods: ['key'], identityFiles: [tb.ssh.plainKeyPath], proxyCommand }),
    );

  /** Connects; trusts the test bed's host key when asked (the key is checked through the command like any other). */
  async function connectTrusting(serverId: string): Promise<ServerView> {
    const first = await app.handlers['servers:connect']({ serverId });
    if (first.state === 'up') return first;
    expect(first.hostKey).toMatchObject({ status: 'unknown', fingerprint: tb.ssh.hostKeyFingerprint });
    return app.handlers['servers:trust-host-key']({ serverId, fingerprint: tb.ssh.hostKeyFingerprint });
  }

  it('connects with `ssh -W %h:%p` through the jump sshd, checks the host key, and stops the command with the connection', async () => {
    const server = await add('via-ssh-w', viaJump);
    const first = await app.handlers['servers:connect']({ serverId: server.profile.id });
    // A fresh known_hosts: the key arrives through the command and is asked about like any server's.
    expect(first.hostKey).toMatchObject({ status: 'unknown', hop: 0, fingerprint: tb.ssh.hostKeyFingerprint });
    const up = await app.handlers['servers:trust-host-key']({ serverId: server.profile.id, fingerprint: tb.ssh.hostKeyFingerprint });
    expect(up).toMatchObject({ state: 'up', reason: null });
    expect(processesWith(scratch).length).toBeGreaterThan(0);

    const report = await app.handlers['servers:test']({ serverId: server.profile.id });
    expect(report.stages.find((s) => s.stage === 'tcp')).toMatchObject({ status: 'pass', detail: `${tb.ssh.host}:${tb.ssh.port} through its ProxyCommand` });
    expect(report.stages.find((s) => s.stage === 'auth')?.status).toBe('pass');

    await app.handlers['servers:disconnect']({ serverId: server.profile.id });
    expect(await until(() => processesWith(scratch).length === 0)).toBe(true);
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it('connects through a relay command of ours given `127.0.0.1 %p`, and names its exit when it dies mid-connection', async () => {
    const relay = join(scratch, 'relay.cjs');
    const server = await add('via-relay', `${process.execPath} ${relay} 127.0.0.1 %p`);
    expect(await connectTrusting(server.profile.id)).toMatchObject({ state: 'up' });
    const [pid] = processesWith(relay);
    expect(pid).toBeDefined();
    const lost = waitForEvent(app.hub, 'servers:changed', (views) => views.some((v) => v.profile.id === server.profile.id && v.reason !== null));
    process.kill(pid!, 'SIGUSR2');
    const view = (await lost).find((v) => v.profile.id === server.profile.id)!;
    expect(view.state).toBe('reconnecting');
    expect(view.reason).toMatchObject({ code: 'SSH_PROXY_COMMAND_FAILED', message: expect.stringContaining('exited 3: relay: told to stop') });
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it.skipIf(!hasNc)('connects with `nc 127.0.0.1 %p` (netcat-openbsd)', async () => {
    const server = await add('via-nc', 'nc 127.0.0.1 %p');
    expect(await connectTrusting(server.profile.id)).toMatchObject({ state: 'up' });
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it('reports a command that fails with its exit code and stderr, and Test connection says the same', async () => {
    const dead = await freePort();
    const server = await add('failing', `ssh -F /dev/null -o BatchMode=yes -p ${dead} 127.0.0.1 -W %h:%p`);
    const view = await app.handlers['servers:connect']({ serverId: server.profile.id });
    expect(view.state).not.toBe('up');
    expect(view.reason?.code).toBe('SSH_PROXY_COMMAND_FAILED');
    expect(view.reason?.message).toMatch(new RegExp(`^The ProxyCommand of ${tb.ssh.user}@${tb.ssh.host}:${tb.ssh.port} exited 255: .*port ${dead}: Connection refused`));
    const report = await app.handlers['servers:test']({ serverId: server.profile.id });
    expect(report.stages.find((s) => s.stage === 'handshake')).toMatchObject({ status: 'fail', error: { code: 'SSH_PROXY_COMMAND_FAILED' } });
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it('refuses a profile with both jump hosts and a ProxyCommand, naming the fix', async () => {
    await expect(
      app.handlers['servers:add'](
        ServerProfileInput.parse({ label: 'both', host: tb.ssh.host, username: tb.ssh.user, proxyCommand: 'nc %h %p', jumps: [{ host: tb.jump.host, port: tb.jump.port, username: tb.ssh.user }] }),
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/clear one of the two fields/) });
  });
});
