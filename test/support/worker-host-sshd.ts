import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { OwnSshd } from './own-sshd';

/**
 * A real sshd of the test's own (OwnSshd: never 2222/2223) for rollout workers on an SSH host: a client
 * key of its own in an AuthorizedKeysFile of its own, SFTP and TCP forwarding in both directions,
 * letting in only the user running the tests. For when the shared test bed's sshd is not this
 * checkout's (the workers' files then stay in this user's ~/.agentswarm, removed by the test).
 */
export class WorkerHostSshd {
  readonly user = userInfo().username;
  /** The client key and its authorized_keys (the sshd's own folder is OwnSshd's). */
  private readonly keyDir = mkdtempSync('/tmp/agentswarm-worker-keys-');
  private readonly clientKey = join(this.keyDir, 'client_ed25519');
  private readonly sshd: OwnSshd;

  constructor() {
    chmodSync(this.keyDir, 0o755);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', this.clientKey]);
    const authorizedKeysFile = join(this.keyDir, 'authorized_keys');
    writeFileSync(authorizedKeysFile, readFileSync(`${this.clientKey}.pub`), { mode: 0o644 });
    // The key files sit under /tmp (world-writable): the ownership check on their folders would refuse them.
    this.sshd = new OwnSshd(this.user, { authorizedKeysFile, sftp: true, strictModes: false, permitRootLogin: 'prohibit-password', logLevel: 'INFO' });
  }

  get port(): number {
    return this.sshd.port;
  }

  start(): Promise<void> {
    return this.sshd.start(['ed25519']);
  }

  connect(): Promise<SshConnection> {
    return SshConnection.connect({
      host: '127.0.0.1',
      port: this.sshd.port,
      username: this.user,
      auth: [{ kind: 'key', path: this.clientKey }],
      askSecret: () => Promise.resolve(null),
      verifyHostKey: (info) => Promise.resolve(info.fingerprint === this.sshd.keys.ed25519.fingerprint),
      readyTimeoutMs: 10_000,
    });
  }

  log(): string {
    return this.sshd.log();
  }

  async dispose(): Promise<void> {
    await this.sshd.dispose();
    rmSync(this.keyDir, { recursive: true, force: true });
  }
}
