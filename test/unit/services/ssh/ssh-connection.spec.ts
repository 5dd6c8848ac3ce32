// Pieces of the SSH connection that need no test bed. The real OpenSSH runs in
// test/integration/ssh-connection.spec.ts; here ssh2's own Server is a TEST DOUBLE for what the
// test bed's sshd cannot do (keyboard-interactive needs PAM there) and to watch every auth request.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import ssh2 from 'ssh2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../../electron/shared/errors';
import { createStreamLocalAgent, portListedByShow } from '../../../../electron/services/engines/ssh-docker';
import { defaultAuthAttempts, loadPrivateKey, SecretMemory, type SecretRequest } from '../../../../electron/services/ssh/ssh-auth';
import { keyTypeOf, SshConnection, sshFingerprint } from '../../../../electron/services/ssh/ssh-connection';
import { mapSshError } from '../../../../electron/services/ssh/ssh-errors';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentswarm-ssh-unit-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'plain')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'right-phrase', '-f', join(dir, 'enc')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host')]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('host key facts', () => {
  it('prints the fingerprint exactly like ssh-keygen -l and reads the key type from the blob', () => {
    const pub = execFileSync('cat', [join(dir, 'host.pub')], { encoding: 'utf8' }).trim().split(/\s+/);
    const blob = Buffer.from(pub[1]!, 'base64');
    const keygen = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'host.pub')], { encoding: 'utf8' }).split(/\s+/)[1];
    expect(sshFingerprint(blob)).toBe(keygen);
    expect(keyTypeOf(blob)).toBe('ssh-ed25519');
    expect(keyTypeOf(Buffer.from([0, 0]))).toBe('unknown');
  });
});

describe('key files', () => {
  const ask = (answer: string | null) => {
    const asked: SecretRequest[] = [];
    return { asked, fn: (r: SecretRequest) => (asked.push(r), Promise.resolve(answer)) };
  };

  it('reads a plain key without asking, and an encrypted one with its passphrase, remembered in memory', async () => {
    const plain = ask('unused');
    expect((await loadPrivateKey(join(dir, 'plain'), plain.fn, new SecretMemory())).passphrase).toBeUndefined();
    expect(plain.asked).toEqual([]);
    const memory = new SecretMemory();
    const right = ask('right-phrase');
    await loadPrivateKey(join(dir, 'enc'), right.fn, memory);
    await loadPrivateKey(join(dir, 'enc'), right.fn, memory);
    expect(right.asked).toHaveLength(1);
  });

  it('types a cancelled, a wrong passphrase and an unreadable file, and never puts the secret in the message', async () => {
    const codeOf = (p: Promise<unknown>) => p.then(() => 'resolved', (e: AppError) => `${e.code}|${e.message}`);
    expect(await codeOf(loadPrivateKey(join(dir, 'enc'), ask(null).fn, new SecretMemory()))).toMatch(/^SSH_PASSPHRASE_NEEDED\|/);
    const wrong = await codeOf(loadPrivateKey(join(dir, 'enc'), ask('guess-123').fn, new SecretMemory()));
    expect(wrong).toMatch(/^SSH_PASSPHRASE_WRONG\|/);
    expect(wrong).not.toContain('guess-123');
    writeFileSync(join(dir, 'junk'), 'not a key');
    expect(await codeOf(loadPrivateKey(join(dir, 'junk'), ask(null).fn, new SecretMemory()))).toMatch(/^SSH_AUTH_FAILED\|.*not a private key/);
    expect(await codeOf(loadPrivateKey(join(dir, 'missing'), ask(null).fn, new SecretMemory()))).toMatch(/^SSH_AUTH_FAILED\|.*ENOENT/);
  });

  it('orders attempts like OpenSSH: agent, key file, password, keyboard-interactive', () => {
    expect(defaultAuthAttempts({ keyPath: '/k', env: { SSH_AUTH_SOCK: '/a.sock' } }).map((a) => a.kind)).toEqual([
      'agent',
      'key',
      'password',
      'keyboard-interactive',
    ]);
    expect(defaultAuthAttempts({ env: {} }).map((a) => a.kind)).toEqual(['password', 'keyboard-interactive']);
  });
});

describe('error mapping and remote port parsing', () => {
  it('maps ssh2 and socket errors to typed codes', () => {
    const t = 'u@h:22';
    expect(mapSshError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), t, 1000).code).toBe('SSH_UNREACHABLE');
    expect(mapSshError(new Error('Timed out while waiting for handshake'), t, 1000).code).toBe('SSH_TIMEOUT');
    expect(mapSshError(new Error('Host denied (verification failed)'), t, 1000).code).toBe('SSH_HOST_KEY_REJECTED');
    expect(mapSshError(Object.assign(new Error('All configured authentication methods failed'), { level: 'client-authentication' }), t, 1).code).toBe(
      'SSH_AUTH_FAILED',
    );
  });

  it('finds a listening port in `ss -ltnH` output on any address, and not a prefix of it', () => {
    const ss = [
      'LISTEN 0      4096       127.0.0.1:5000       0.0.0.0:*',
      'LISTEN 0      128          0.0.0.0:10086      0.0.0.0:*',
      'LISTEN 0      128             [::]:2222          [::]:*',
    ].join('\n');
    expect(portListedByShow(ss, 10086)).toBe(true);
    expect(portListedByShow(ss, 2222)).toBe(true);
    expect(portListedByShow(ss, 1008)).toBe(false);
    expect(portListedByShow(ss, 500)).toBe(false);
    expect(portListedByShow('', 5000)).toBe(false);
  });

  it('keeps the SSH connection out of util.inspect (docker-modem inspects request options on every call)', () => {
    const agent = createStreamLocalAgent({} as SshConnection, '/var/run/docker.sock', (m) => new AppError('INTERNAL', m));
    expect(inspect({ agent }, { showHidden: true, depth: null })).toBe("{ agent: StreamLocalAgent(/var/run/docker.sock) }");
    agent.destroy();
  });
});

describe('against ssh2 Server (TEST DOUBLE of an sshd with keyboard-interactive)', () => {
  const authRequests: string[] = [];
  let server: ssh2.Server;
  let port = 0;
  let hostFingerprint = '';

  beforeAll(async () => {
    const hostKey = execFileSync('cat', [join(dir, 'host')]);
    hostFingerprint = sshFingerprint(Buffer.from(execFileSync('cat', [join(dir, 'host.pub')], { encoding: 'utf8' }).split(/\s+/)[1]!, 'base64'));
    server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
      client.on('error', () => undefined);
      client.on('authentication', (ctx) => {
        authRequests.push(ctx.method);
        if (ctx.method !== 'keyboard-interactive') return ctx.reject(['keyboard-interactive']);
        ctx.prompt(
          [
            { prompt: 'Verification code: ', echo: true },
            { prompt: 'Password: ', echo: false },
          ],
          'Two factor',
          'Answer both',
          (answers) => (answers[0] === '123456' && answers[1] === 'pw' ? ctx.accept() : ctx.reject()),
        );
      });
      client.on('ready', () => undefined); // stays up until the client leaves
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => {
    authRequests.length = 0;
  });
  afterAll(() => server.close());

  const connect = (askSecret: (r: SecretRequest) => Promise<string | null>, verify = true) =>
    SshConnection.connect({
      host: '127.0.0.1',
      port,
      username: 'someone',
      auth: [{ kind: 'password' }, { kind: 'keyboard-interactive' }],
      askSecret,
      verifyHostKey: (info) => Promise.resolve(verify && info.fingerprint === hostFingerprint),
      readyTimeoutMs: 60_000,
    });

  it('relays each keyboard-interactive prompt with its echo flag, skipping a refused password', async () => {
    const asked: SecretRequest[] = [];
    const answers: Record<string, string> = { password: 'not-offered', 'Verification code: ': '123456', 'Password: ': 'pw' };
    const conn = await connect((r) => {
      asked.push(r);
      return Promise.resolve(r.kind === 'password' ? answers.password! : answers[r.prompt.split('\n').pop()!]!);
    });
    expect(asked.filter((r) => r.kind === 'keyboard-interactive')).toEqual([
      { kind: 'keyboard-interactive', prompt: 'Two factor\nAnswer both\nVerification code: ', echo: true },
      { kind: 'keyboard-interactive', prompt: 'Two factor\nAnswer both\nPassword: ', echo: false },
    ]);
    expect(conn.authOutcomes.map((o) => `${o.attempt}:${o.result}`)).toContain('keyboard-interactive:tried');
    await conn.close();
  });

  it('goes on past a key with a wrong passphrase; when all fail, says so and names the key problem', async () => {
    const attempts = (last: 'password' | 'keyboard-interactive') =>
      SshConnection.connect({
        host: '127.0.0.1',
        port,
        username: 'someone',
        auth: [{ kind: 'key', path: join(dir, 'enc') }, { kind: last }],
        askSecret: (r) =>
          Promise.resolve(r.kind === 'passphrase' ? 'wrong-phrase' : r.prompt.endsWith('code: ') ? '123456' : 'pw'),
        verifyHostKey: () => Promise.resolve(true),
      });
    const conn = await attempts('keyboard-interactive');
    expect(conn.authOutcomes.map((o) => `${o.attempt}:${o.result}`)).toEqual(['key:skipped', 'keyboard-interactive:tried']);
    await conn.close();
    // The double refuses passwords: the login failed as a whole, and the message keeps the key's reason.
    const failure = await attempts('password').catch((e: unknown) => e as AppError);
    expect((failure as AppError).code).toBe('SSH_AUTH_FAILED');
    expect((failure as AppError).message).toMatch(/Tried: password\. Skipped: The passphrase does not unlock/);
    expect((failure as AppError).message).not.toContain('wrong-phrase');
  });

  it('sends no authentication request at all when the host key is rejected', async () => {
    const failure = await connect(() => Promise.resolve('x'), false).catch((e: unknown) => e as AppError);
    expect((failure as AppError).code).toBe('SSH_HOST_KEY_REJECTED');
    await new Promise((ok) => setTimeout(ok, 100));
    expect(authRequests).toEqual([]);
  });

  it('closes with SSH_DISCONNECTED naming the missed keepalives when the server goes silent', async () => {
    // A TCP relay we can freeze: the connection stays open but nothing comes back, as on a dead Wi-Fi.
    let frozen = false;
    const relay = net.createServer((inbound) => {
      const outbound = net.connect(port, '127.0.0.1');
      inbound.on('data', (d) => frozen || outbound.write(d));
      outbound.on('data', (d) => frozen || inbound.write(d));
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((ok) => relay.listen(0, '127.0.0.1', ok));
    try {
      const conn = await SshConnection.connect({
        host: '127.0.0.1',
        port: (relay.address() as AddressInfo).port,
        username: 'someone',
        auth: [{ kind: 'keyboard-interactive' }],
        askSecret: (r) => Promise.resolve(r.prompt.endsWith('code: ') ? '123456' : 'pw'),
        verifyHostKey: () => Promise.resolve(true),
        keepaliveIntervalMs: 100,
        keepaliveCountMax: 2,
      });
      const reason = new Promise<AppError | null>((ok) => conn.once('closed', ok));
      frozen = true;
      const closed = await reason;
      expect(closed?.code).toBe('SSH_DISCONNECTED');
      expect(closed?.message).toContain('stopped answering keepalives');
    } finally {
      relay.close();
    }
  });
});
