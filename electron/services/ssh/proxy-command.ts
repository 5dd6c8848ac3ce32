import { spawn, type ChildProcess } from 'node:child_process';
import { homedir, userInfo } from 'node:os';
import { Duplex, PassThrough, type Readable, type Writable } from 'node:stream';
import { AppError } from '../../shared/errors';
import { redactText } from '../util/redact';

/**
 * The command's stdin and stdout as one stream for ssh2. Unlike Duplex.from, a stdin that closes when the
 * command dies is no stream error ("Premature close" would hide the exit code): the stream just ends, once
 * the output does, and the connection's close asks ProxyCommandProcess.failure() why.
 */
class CommandStream extends Duplex {
  constructor(
    private readonly stdin: Writable,
    private readonly output: Readable,
  ) {
    // Not half-open: when the command's output ends, the SSH side is done too (ssh2 then sees 'close').
    super({ allowHalfOpen: false });
    output.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) output.pause();
    });
    output.once('end', () => this.push(null));
  }

  override _read(): void {
    this.output.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.stdin.destroyed || !this.stdin.writable) return done();
    this.stdin.write(chunk, () => done());
  }

  override _final(done: () => void): void {
    this.stdin.end();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.stdin.destroy();
    this.output.destroy();
    done(error);
  }
}

/** What the percent tokens of a ProxyCommand stand for (OpenSSH's names). */
export interface ProxyCommandTokens {
  /** %h: the host name to connect to (HostName after the config). */
  host: string;
  /** %p */
  port: number;
  /** %r: the remote user. */
  user: string;
  /** %n: the name as the user gave it (the ~/.ssh/config alias), else the host. */
  alias: string;
  /** %d: the local home directory; %u: the local user. */
  homeDir?: string;
  localUser?: string;
}

/**
 * Expands `%h %p %r %n %d %u %%` as OpenSSH does, without quoting (like OpenSSH: the host and user fields
 * only hold characters the shell takes literally, see SshHostName and SshUserName). The schema refuses
 * other tokens before a command is stored, so an unknown one here is a bug of ours.
 */
export function expandProxyCommand(command: string, tokens: ProxyCommandTokens): string {
  const values: Record<string, string> = {
    '%': '%',
    h: tokens.host,
    p: String(tokens.port),
    r: tokens.user,
    n: tokens.alias,
    d: tokens.homeDir ?? homedir(),
    u: tokens.localUser ?? userInfo().username,
  };
  return command.replace(/%(.)/g, (token: string, ch: string) => {
    const value = values[ch];
    if (value === undefined) throw new AppError('SSH_CONFIG_INVALID', `ProxyCommand: the token ${token} is not supported. Use %h, %p, %r, %n, %d, %u or %%.`);
    return value;
  });
}

/** The end of the command's stderr kept for the error (a chatty command must not grow memory). */
const STDERR_KEEP = 2048;

export interface ProxyExit {
  code: number | null;
  signal: string | null;
  stderr: string;
}

/**
 * A running ProxyCommand: its stdin and stdout are the SSH transport (ssh2's `sock`), as with OpenSSH.
 * It runs through the user's shell (`$SHELL -c "exec <command>"`, as OpenSSH does, so `a; b` runs only
 * `a` there too; cmd.exe on
 * Windows), with the app's environment. `stop()` ends it with the connection.
 */
export class ProxyCommandProcess {
  readonly stream: Duplex;
  private readonly child: ChildProcess;
  private stderr = '';
  private exit: ProxyExit | null = null;
  private stopped = false;
  private readonly exited: Promise<ProxyExit>;

  constructor(command: string, platform: NodeJS.Platform = process.platform) {
    this.child =
      platform === 'win32'
        ? spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true })
        : spawn(process.env.SHELL || '/bin/sh', ['-c', `exec ${command}`], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: string | null): void => {
        this.exit ??= { code, signal, stderr: this.stderr.trim() };
        resolve(this.exit);
      };
      // 'close' comes once stderr is read to its end; a grandchild that keeps stderr open must not hold the report back.
      this.child.once('close', (code, signal) => done(code, signal));
      this.child.once('exit', (code, signal) => setTimeout(() => done(code, signal), 500).unref());
      // A shell that cannot start at all (ENOENT): there is no exit code, 127 is the shell's own for "not found".
      this.child.once('error', (error) => {
        this.stderr += error.message;
        done(127, null);
      });
    });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    // Writing to a command that already died raises EPIPE on its stdin: the exit says more, so it is not thrown.
    this.child.stdin!.on('error', () => undefined);
    // The SSH side sees the end of the command's output only once the command has exited, so whoever
    // reports the closed connection can already name the exit code and stderr (failure()).
    const output = new PassThrough();
    this.child.stdout!.pipe(output, { end: false });
    void this.exited.then(() => output.end());
    this.stream = new CommandStream(this.child.stdin!, output);
  }

  /** The error to report when the command ended by itself (before or during the connection); null while it runs or after stop(). */
  failure(target: string): AppError | null {
    return this.exit && !this.stopped ? proxyCommandError(this.exit, target) : null;
  }

  /** The exit, if the command ended by itself within `waitMs` (null when it still runs or we stopped it). */
  async exitedWithin(waitMs: number): Promise<ProxyExit | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
    const exit = await Promise.race([this.exited, timeout]).finally(() => clearTimeout(timer));
    // Once we stopped it, however it ended was our doing, not a failure to report.
    return this.stopped ? null : exit;
  }

  /** Ends the command (SIGTERM), e.g. when its SSH connection closed. */
  stop(): void {
    this.stopped = true;
    this.stream.destroy();
    if (this.exit === null && this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

/** "ProxyCommand exited 255: ssh: connect to host … Connection refused" for `target`, with the fix. */
export function proxyCommandError(exit: ProxyExit, target: string): AppError {
  const how = exit.code !== null ? `exited ${exit.code}` : `was killed by ${exit.signal ?? 'a signal'}`;
  const said = exit.stderr ? `: ${redactText(exit.stderr.split('\n').slice(-5).join(' ').trim())}` : ' without a message on stderr';
  const fix =
    exit.code === 127
      ? 'The shell could not find the command: check its spelling and that it is installed and on PATH for this app.'
      : 'Run the command in a terminal with %h and %p filled in to see why, and fix the ProxyCommand in the server settings.';
  return new AppError('SSH_PROXY_COMMAND_FAILED', `The ProxyCommand of ${target} ${how}${said}. ${fix}`);
}
