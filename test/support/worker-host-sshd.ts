import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { freePort } from './helpers';

/**
 * A real sshd of the test's own (never 2222/2223) for rollout workers on an SSH host: its own host key,
 * a client key of its own in an AuthorizedKeysFile of its own, SFTP (internal-sftp) and TCP forwarding in
 * both directions, letting in only the user running the tests. For when the shared test bed's sshd is
 * not this checkout's (the workers' files then stay in this user's ~/.agentswarm, removed by the test).
 * Runs in the foreground as our child, so `stop()` ends exactly it. Needs root (as the test bed does).
 */
export class WorkerHostSshd {
  readonly dir = mkdtempSync('/tmp/agentswarm-worker-sshd-');
  readonly user = userInfo().username;
  port = 0;
  private child: ChildProcess | null = null;
  private hostFingerprint = '';

  async start(): Promise<void> {
    chmodSync(this.dir, 0o755);
    const hostKey = join(this.dir, 'host_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
    this.hostFingerprint = execFileSync('ssh-keygen', ['-lf', `${hostKey}.pub`], { encoding: 'utf8' }).split(/\s+/)[1] ?? '';
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(this.dir, 'client_ed25519')]);
    writeFileSync(join(this.dir, 'authorized_keys'), readFileSync(join(this.dir, 'client_ed25519.pub')), { mode: 0o644 });
    this.port = await freePort();
    const config = join(this.dir, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${this.port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(this.dir, 'sshd.pid')}`,
        `AllowUsers ${this.user}`,
        `AuthorizedKeysFile ${join(this.dir, 'authorized_keys')}`,
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'PermitRootLogin prohibit-password',
        // The key file sits under /tmp (world-writable): the ownership check on its folders would refuse it.
        'StrictModes no',
        'AllowTcpForwarding yes',
        'Subsystem sftp internal-sftp',
        'LogLevel INFO',
        '',
      ].join('\n'),
    );
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const child = spawn('/usr/sbin/sshd', ['-D', '-f', config, '-E', join(this.dir, 'sshd.log')], { stdio: 'ignore' });
    this.child = child;
    const deadline = Date.now() + 15_000;
    while (!(await banner(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the worker host sshd did not start: ${this.log()}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }

  connect(): Promise<SshConnection> {
    return SshConnection.connect({
      host: '127.0.0.1',
      port: this.port,
      username: this.user,
      auth: [{ kind: 'key', path: join(this.dir, 'client_ed25519') }],
      askSecret: () => Promise.resolve(null),
      verifyHostKey: (info) => Promise.resolve(info.fingerprint === this.hostFingerprint),
      readyTimeoutMs: 10_000,
    });
  }

  log(): string {
    try {
      return readFileSync(join(this.dir, 'sshd.log'), 'utf8');
    } catch {
      return '';
    }
  }

  async dispose(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      await new Promise<void>((ok) => {
        child.once('exit', () => ok());
        child.kill('SIGTERM');
      });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function banner(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('data', (chunk) => done(chunk.toString('latin1').startsWith('SSH-')));
    socket.once('error', () => done(false));
  });
}
