import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers';

export type HostKeyKind = 'ed25519' | 'ecdsa' | 'rsa';

export interface OwnHostKey {
  path: string;
  /** `ssh-ed25519 AAAA…` as a known_hosts line wants it after the host name. */
  publicKey: string;
  fingerprint: string;
}

/** Whether sshd on 127.0.0.1:`port` answers with its banner: it is ready for connections. */
function bannerSeen(port: number): Promise<boolean> {
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

/** What a test's sshd lets in besides the defaults (each replaces the default line of the same keyword). */
export interface OwnSshdOptions {
  /** An AuthorizedKeysFile of the test's own (default: the user's ~/.ssh/authorized_keys). */
  authorizedKeysFile?: string;
  /** SFTP (internal-sftp), for copying files to the host. */
  sftp?: boolean;
  /** Skip the ownership checks on key files' folders (a key file under /tmp). */
  strictModes?: boolean;
  /** For a host whose only user is root (the user running the tests). */
  permitRootLogin?: 'no' | 'prohibit-password';
  logLevel?: 'INFO' | 'DEBUG1';
}

/**
 * An sshd of the test's own, on a free loopback port with its own config, host keys and log in a temp dir,
 * for tests that change what the server presents (its HostKey lines) between connections. It lets in the
 * test bed's user with the test bed's keys (their authorized_keys). Runs in the foreground (-D) as our
 * child, so `stop()` ends exactly it. Never ports 2222/2223. Needs root (as the test bed does).
 */
export class OwnSshd {
  readonly dir = mkdtempSync(join(tmpdir(), 'agentswarm-own-sshd-'));
  readonly keys: Record<HostKeyKind, OwnHostKey>;
  port = 0;
  /** The log of the current run: each start writes a new one, so a test reads only its own connections. */
  logPath = '';
  private child: ChildProcess | null = null;
  private runs = 0;

  constructor(
    private readonly user: string,
    private readonly options: OwnSshdOptions = {},
  ) {
    this.keys = {
      ed25519: this.makeKey('ed25519'),
      ecdsa: this.makeKey('ecdsa'),
      rsa: this.makeKey('rsa'),
    };
  }

  private makeKey(kind: HostKeyKind): OwnHostKey {
    const path = join(this.dir, `host_${kind}`);
    execFileSync('ssh-keygen', ['-q', '-t', kind, '-N', '', '-f', path]);
    chmodSync(path, 0o600); // sshd ignores a group- or world-readable host key
    const [type, b64] = readFileSync(`${path}.pub`, 'utf8').trim().split(/\s+/);
    const fingerprint = execFileSync('ssh-keygen', ['-lf', `${path}.pub`], { encoding: 'utf8' }).split(/\s+/)[1] ?? '';
    return { path, publicKey: `${type} ${b64}`, fingerprint };
  }

  /** (Re)starts sshd on the same port presenting exactly `hostKeys`, and waits until it answers. */
  async start(hostKeys: HostKeyKind[]): Promise<void> {
    await this.stop();
    if (this.port === 0) this.port = await freePort();
    this.runs += 1;
    this.logPath = join(this.dir, `sshd-${this.runs}.log`);
    const config = join(this.dir, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${this.port}`,
        'ListenAddress 127.0.0.1',
        ...hostKeys.map((k) => `HostKey ${this.keys[k].path}`),
        `PidFile ${join(this.dir, 'sshd.pid')}`,
        `AllowUsers ${this.user}`,
        ...(this.options.authorizedKeysFile ? [`AuthorizedKeysFile ${this.options.authorizedKeysFile}`] : []),
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        `PermitRootLogin ${this.options.permitRootLogin ?? 'no'}`,
        `StrictModes ${this.options.strictModes === false ? 'no' : 'yes'}`,
        'AllowTcpForwarding yes',
        'X11Forwarding no',
        ...(this.options.sftp ? ['Subsystem sftp internal-sftp'] : []),
        // DEBUG1 logs every "userauth-request": what the tests count to prove no credential was offered.
        `LogLevel ${this.options.logLevel ?? 'DEBUG1'}`,
        '',
      ].join('\n'),
    );
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 }); // sshd exits 255 without its privilege separation dir
    const child = spawn('/usr/sbin/sshd', ['-D', '-f', config, '-E', this.logPath], { stdio: 'ignore' });
    this.child = child;
    const deadline = Date.now() + 15_000;
    while (!(await bannerSeen(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`own sshd did not start on 127.0.0.1:${this.port}: ${this.log()}`);
      }
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }

  log(): string {
    try {
      return readFileSync(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }

  /** The login requests sshd saw in this run (any method, "none" included). */
  authRequests(): string[] {
    return this.log().split('\n').filter((line) => /userauth-request|Accepted |Failed |Postponed /.test(line));
  }

  /**
   * Waits (bounded) until sshd logged the end of `count` SSH connections that got past the banner in
   * this run ("… [preauth]" lines; start()'s banner checks end without one), so the log holds all they did.
   */
  async waitForPreauthEnds(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const ended = () => this.log().split('\n').filter((l) => /(Disconnected from|Connection (closed|reset) by) .*\[preauth\]/.test(l)).length;
    while (ended() < count) {
      if (Date.now() > deadline) throw new Error(`sshd logged ${ended()} ended connections, expected ${count}:\n${this.log()}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((ok) => {
      child.once('exit', () => ok());
      child.kill('SIGTERM');
    });
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
