import { spawn } from 'node:child_process';
import { AppError } from '../../shared/errors';
import type { SshConnection } from '../ssh/ssh-connection';
import type { EngineHost, HostExecResult } from './container-engine';

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * This computer, through `/bin/sh`. Not on Windows (no POSIX shell to rely on): the engine's `host`
 * is null there and the doctor skips the host checks, saying so.
 */
export class LocalHost implements EngineHost {
  readonly kind = 'local' as const;
  readonly label = 'this computer';

  exec(script: string, options: { timeoutMs?: number; stdin?: string } = {}): Promise<HostExecResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', script], { stdio: ['pipe', 'pipe', 'pipe'] });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new AppError('INTERNAL', `A check on this computer did not finish within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms.`));
      }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new AppError('INTERNAL', `Could not run /bin/sh on this computer: ${error.message}`, { cause: error }));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.stdin ?? '');
    });
  }
}

export function localHostForPlatform(platform: NodeJS.Platform = process.platform): EngineHost | null {
  return platform === 'win32' ? null : new LocalHost();
}

/** A server reached over SSH: each call is an exec channel on the session's current connection. */
export class SshHost implements EngineHost {
  readonly kind = 'ssh' as const;

  constructor(
    readonly label: string,
    private readonly current: () => Promise<SshConnection>,
  ) {}

  async exec(script: string, options: { timeoutMs?: number; stdin?: string } = {}): Promise<HostExecResult> {
    const connection = await this.current();
    // The login shell of the user may be anything (fish, tcsh): run our POSIX script through sh.
    const command = `sh -c ${quoteForRemote(script)}`;
    if (options.stdin === undefined) {
      const result = await connection.exec(command, { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
      return { code: result.code, stdout: result.stdout, stderr: result.stderr };
    }
    const channel = await connection.execStream(command);
    return new Promise((resolve, reject) => {
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      const timer = setTimeout(() => {
        channel.close();
        reject(new AppError('SSH_TIMEOUT', `A command on ${this.label} did not finish within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms.`));
      }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      channel.on('data', (chunk: Buffer) => stdout.push(chunk));
      channel.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      channel.on('close', (code: number | null | undefined) => {
        clearTimeout(timer);
        resolve({ code: typeof code === 'number' ? code : null, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
      });
      channel.end(options.stdin);
    });
  }
}

function quoteForRemote(script: string): string {
  return `'${script.replace(/'/g, `'"'"'`)}'`;
}
