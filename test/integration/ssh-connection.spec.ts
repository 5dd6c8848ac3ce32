// SshConnection against the test bed's real OpenSSH sshd (127.0.0.1:2222) and a real ssh-agent.
// Needs `bash test/testbed/testbed.sh up`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../electron/shared/errors';
import type { SecretRequest, SshAuthAttempt } from '../../electron/services/ssh/ssh-auth';
import { SshConnection, type HostKeyInfo, type SshConnectionOptions } from '../../electron/services/ssh/ssh-connection';
import { loadTestbed } from '../testbed/testbed';

const tb = loadTestbed();
const hostPub = readFileSync(tb.ssh.hostPublicKeyPath, 'utf8').trim().split(/\s+/);

/** Trusts exactly the test bed's host key, compared as the blob and as the fingerprint. */
const trustTestbed = (info: HostKeyInfo): Promise<boolean> =>
  Promise.resolve(info.fingerprint === tb.ssh.hostKeyFingerprint && info.keyBlob.toString('base64') === hostPub[1]);

/** Records every secret request in order and answers from a script (null = the user cancelled). */
function scriptedSecrets(answers: Partial<Record<SecretRequest['kind'], string | null>>) {
  const asked: SecretRequest[] = [];
  return {
    asked,
    askSecret: (request: SecretRequest) => {
      asked.push(request);
      return Promise.resolve(answers[request.kind] ?? null);
    },
  };
}

function connect(auth: SshAuthAttempt[], extra: Partial<SshConnectionOptions> = {}) {
  return SshConnection.connect({
    host: tb.ssh.host,
    port: tb.ssh.port,
    username: tb.ssh.user,
    auth,
    askSecret: () => Promise.resolve(null),
    verifyHostKey: trustTestbed,
    // An honest login's deadline, not a test of it (the SSH_TIMEOUT test sets its own): decrypting the encrypted key
    // (bcrypt-pbkdf in JavaScript) took over 10 s on a two-core machine at load 20, and failed CI.
    readyTimeoutMs: 60_000,
    ...extra,
  });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as AppError).code;
  }
  return 'resolved';
}

let agentDir = '';
let agentSock = '';
let agentPid = 0;

beforeAll(() => {
  // A real ssh-agent of our own, holding the plain test key; SSH_AUTH_SOCK of the user is never used.
  agentDir = mkdtempSync(join(tmpdir(), 'agentswarm-agent-'));
  agentSock = join(agentDir, 'agent.sock');
  const out = execFileSync('ssh-agent', ['-a', agentSock, '-s'], { encoding: 'utf8' });
  agentPid = Number(/SSH_AGENT_PID=(\d+)/.exec(out)?.[1]);
  execFileSync('ssh-add', [tb.ssh.plainKeyPath], { env: { ...process.env, SSH_AUTH_SOCK: agentSock }, stdio: 'pipe' });
});

afterAll(() => {
  if (agentPid) process.kill(agentPid);
  rmSync(agentDir, { recursive: true, force: true });
});

describe('SshConnection against the test bed sshd', () => {
  it('logs in through a real ssh-agent and runs commands with their exit codes', async () => {
    const conn = await connect([{ kind: 'agent', socket: agentSock }]);
    try {
      expect(conn.hostKey.fingerprint).toBe(tb.ssh.hostKeyFingerprint);
      expect(conn.hostKey.keyType).toBe(hostPub[0]);
      expect(conn.authOutcomes).toEqual([{ attempt: 'agent', result: 'tried', detail: `ssh-agent at ${agentSock}`, where: agentSock }]);
      expect(await conn.exec('whoami')).toEqual({ stdout: `${tb.ssh.user}\n`, stderr: '', code: 0, signal: null });
      expect(await conn.exec('echo out; echo err >&2; exit 3')).toEqual({ stdout: 'out\n', stderr: 'err\n', code: 3, signal: null });
      // Several channels at once on the one connection.
      const many = await Promise.all([1, 2, 3, 4, 5].map((n) => conn.exec(`echo ${n}`)));
      expect(many.map((r) => r.stdout)).toEqual(['1\n', '2\n', '3\n', '4\n', '5\n']);
    } finally {
      await conn.close();
    }
  });

  it('logs in with a plain key file without asking anything', async () => {
    const secrets = scriptedSecrets({});
    const conn = await connect([{ kind: 'key', path: tb.ssh.plainKeyPath }], { askSecret: secrets.askSecret });
    expect((await conn.exec('true')).code).toBe(0);
    expect(secrets.asked).toEqual([]);
    await conn.close();
  });

  it('asks for the passphrase of an encrypted key on demand, once, and logs in with the right one', async () => {
    const secrets = scriptedSecrets({ passphrase: tb.ssh.encryptedKeyPassphrase });
    const conn = await connect([{ kind: 'key', path: tb.ssh.encryptedKeyPath }], { askSecret: secrets.askSecret });
    expect((await conn.exec('true')).code).toBe(0);
    expect(secrets.asked).toEqual([{ kind: 'passphrase', prompt: `Passphrase for ${tb.ssh.encryptedKeyPath}`, echo: false }]);
    await conn.close();
  });

  it('turns a missing and a wrong passphrase into SSH_PASSPHRASE_NEEDED and SSH_PASSPHRASE_WRONG', async () => {
    const key: SshAuthAttempt[] = [{ kind: 'key', path: tb.ssh.encryptedKeyPath }];
    expect(await codeOf(connect(key, { askSecret: scriptedSecrets({ passphrase: null }).askSecret }))).toBe('SSH_PASSPHRASE_NEEDED');
    expect(await codeOf(connect(key, { askSecret: scriptedSecrets({ passphrase: 'not-it' }).askSecret }))).toBe('SSH_PASSPHRASE_WRONG');
  });

  it('logs in with a password asked on demand; a wrong one is SSH_AUTH_FAILED', async () => {
    const right = scriptedSecrets({ password: tb.ssh.password });
    const conn = await connect([{ kind: 'password' }], { askSecret: right.askSecret });
    expect((await conn.exec('true')).code).toBe(0);
    expect(right.asked).toEqual([{ kind: 'password', prompt: `Password for ${conn.target}`, echo: false }]);
    await conn.close();

    const wrong = scriptedSecrets({ password: 'wrong-password' });
    const failure = await connect([{ kind: 'password' }], { askSecret: wrong.askSecret }).catch((e: unknown) => e as AppError);
    expect((failure as AppError).code).toBe('SSH_AUTH_FAILED');
    expect((failure as AppError).message).not.toContain('wrong-password');
  });

  it('walks the attempts in order: a refused agent key falls through to the password', async () => {
    const emptyAgent = join(agentDir, 'empty.sock');
    const empty = spawn('ssh-agent', ['-D', '-a', emptyAgent], { stdio: 'ignore' });
    try {
      await waitForFile(emptyAgent);
      const secrets = scriptedSecrets({ password: tb.ssh.password });
      const conn = await connect([{ kind: 'agent', socket: emptyAgent }, { kind: 'password' }], { askSecret: secrets.askSecret });
      expect(conn.authOutcomes.map((o) => `${o.attempt}:${o.result}`)).toEqual(['agent:tried', 'password:tried']);
      await conn.close();
    } finally {
      empty.kill();
    }
  });

  it('refuses a host key the verifier rejects with SSH_HOST_KEY_REJECTED, before any secret is asked', async () => {
    const order: string[] = [];
    const failure = await connect([{ kind: 'key', path: tb.ssh.encryptedKeyPath }, { kind: 'password' }], {
      verifyHostKey: (info) => {
        order.push(`verify ${info.fingerprint}`);
        return Promise.resolve(false);
      },
      askSecret: (request) => {
        order.push(`ask ${request.kind}`);
        return Promise.resolve('anything');
      },
      onAuthAttempt: (outcome) => order.push(`auth ${outcome.attempt}`),
    }).catch((e: unknown) => e as AppError);
    expect((failure as AppError).code).toBe('SSH_HOST_KEY_REJECTED');
    expect((failure as AppError).message).toContain(tb.ssh.hostKeyFingerprint);
    expect(order).toEqual([`verify ${tb.ssh.hostKeyFingerprint}`]);
  });

  it("leaves no authentication attempt in sshd's own log when the host key is rejected", async () => {
    const net = await import('node:net');
    const { statSync, readFileSync: read } = await import('node:fs');
    const log = tb.ssh.logPath;
    const offset = statSync(log).size;
    // Our own TCP socket (the hook ProxyJump uses), so we know the client port sshd logs.
    const sock = net.connect(tb.ssh.port, tb.ssh.host);
    await new Promise((ok) => sock.once('connect', ok));
    const clientPort = sock.localPort!;
    const failure = await connect([{ kind: 'password' }], {
      sock,
      verifyHostKey: () => Promise.resolve(false),
      askSecret: () => Promise.resolve(tb.ssh.password),
    }).catch((e: unknown) => e as AppError);
    expect((failure as AppError).code).toBe('SSH_HOST_KEY_REJECTED');
    const ours = () =>
      read(log, 'utf8')
        .slice(offset)
        .split(/\r?\n/)
        .filter((line) => line.includes(`port ${clientPort}`));
    // Up to 15 s: sshd writes the line after the socket closes, later on a loaded machine (1 s was ssh-jump's too-short wait in CI-W).
    for (let i = 0; i < 750 && !ours().some((l) => l.startsWith('Disconnected')); i += 1) await new Promise((ok) => setTimeout(ok, 20));
    // "Disconnected from <ip>" without "authenticating user": sshd never saw a login attempt.
    expect(ours()).toContain(`Disconnected from ${tb.ssh.host} port ${clientPort} [preauth]`);
    expect(ours().filter((l) => /user|Failed|Accepted|password|publickey/i.test(l))).toEqual([]);
  });

  it('rethrows the typed error a verifier throws (how the known_hosts check reports a changed key)', async () => {
    const { AppError: AppErrorClass } = await import('../../electron/shared/errors');
    const failure = await connect([{ kind: 'password' }], {
      verifyHostKey: () => Promise.reject(new AppErrorClass('SSH_HOST_KEY_REJECTED', 'TEST DOUBLE: known_hosts says no')),
    }).catch((e: unknown) => e as AppError);
    expect((failure as AppError).message).toBe('TEST DOUBLE: known_hosts says no');
  });

  it('reports an unreachable port as SSH_UNREACHABLE and a silent server as SSH_TIMEOUT', async () => {
    const net = await import('node:net');
    // A port we hold open and never answer on: TCP connects, the SSH banner never comes.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    const silentPort = (silent.address() as { port: number }).port;
    // The same port once closed: nothing listens there.
    const closed = net.createServer();
    await new Promise<void>((ok) => closed.listen(0, '127.0.0.1', ok));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise((ok) => closed.close(ok));
    try {
      expect(await codeOf(connect([{ kind: 'password' }], { port: closedPort }))).toBe('SSH_UNREACHABLE');
      expect(await codeOf(connect([{ kind: 'password' }], { port: silentPort, readyTimeoutMs: 500 }))).toBe('SSH_TIMEOUT');
    } finally {
      silent.close();
    }
  });

  it('emits closed with null after close(), and with a reason when the server side goes away', async () => {
    const conn = await connect([{ kind: 'key', path: tb.ssh.plainKeyPath }]);
    const closedByUs = new Promise((ok) => conn.once('closed', ok));
    await conn.close();
    expect(await closedByUs).toBeNull();
    expect(conn.isOpen).toBe(false);

    const other = await connect([{ kind: 'key', path: tb.ssh.plainKeyPath }]);
    const reason = new Promise<AppError | null>((ok) => other.once('closed', ok));
    // Kill the sshd process that serves this connection (the parent of our login shell).
    await other.exec('kill -9 $PPID').catch(() => undefined);
    expect((await reason)?.code).toBe('SSH_DISCONNECTED');
  });
});

async function waitForFile(path: string): Promise<void> {
  const { existsSync } = await import('node:fs');
  for (let i = 0; i < 100 && !existsSync(path); i += 1) await new Promise((ok) => setTimeout(ok, 20));
}
