import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { AppError } from '../../shared/errors';
import type { ContainerExecResult } from './container-engine';

/** Each stream keeps at most this much; the rest is read and dropped, so the command still ends. */
export const EXEC_MAX_OUTPUT_BYTES = 64 * 1024;

/** After the stream ended, the exit code may lag a moment in `exec inspect`: ask again this often. */
const EXIT_CODE_RETRY_MS = 20;

/**
 * Collects a non-TTY exec stream: frames with an 8-byte header (stream type, 3 zeros, big-endian
 * length) that may split anywhere across chunks. Each stream keeps its first `maxBytes`.
 */
export class BoundedExecDemux {
  private pending: Buffer = Buffer.alloc(0);
  private readonly kept = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  private readonly size = { stdout: 0, stderr: 0 };
  /** Bytes past the cap, per stream: said in the result so a cut is never mistaken for the whole. */
  readonly dropped = { stdout: 0, stderr: 0 };

  constructor(private readonly maxBytes = EXEC_MAX_OUTPUT_BYTES) {}

  push(chunk: Buffer): void {
    let buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    let offset = 0;
    while (buffer.length - offset >= 8) {
      const length = buffer.readUInt32BE(offset + 4);
      if (buffer.length - offset - 8 < length) break;
      // 0 is stdin (never attached here), 1 stdout, 2 stderr.
      this.keep(buffer[offset] === 2 ? 'stderr' : 'stdout', buffer.subarray(offset + 8, offset + 8 + length));
      offset += 8 + length;
    }
    buffer = buffer.subarray(offset);
    // Copy the rest: holding a subarray would keep the whole chunk alive.
    this.pending = Buffer.from(buffer);
  }

  text(stream: 'stdout' | 'stderr'): string {
    const text = Buffer.concat(this.kept[stream]).toString('utf8');
    return this.dropped[stream] > 0 ? `${text}\n[… ${this.dropped[stream]} more bytes not kept]` : text;
  }

  private keep(stream: 'stdout' | 'stderr', bytes: Buffer): void {
    const room = Math.max(0, this.maxBytes - this.size[stream]);
    const taken = bytes.subarray(0, room);
    if (taken.length > 0) {
      // Copied: the chunk's buffer is reused by the socket.
      this.kept[stream].push(Buffer.from(taken));
      this.size[stream] += taken.length;
    }
    this.dropped[stream] += bytes.length - taken.length;
  }
}

/**
 * `docker exec` without a TTY or stdin over the Engine API (Docker and Podman's compat API alike):
 * create the exec, start it hijacked, demultiplex stdout and stderr, then read its exit code.
 * Past `timeoutMs` nothing is killed (the API cannot kill an exec); the app stops waiting and gets
 * `code: null` with the output so far. An engine that refuses (container gone or stopped, exec
 * not allowed) rejects through `fail`, the engine's own error mapping.
 */
export async function execInDockerContainer(
  docker: Docker,
  id: string,
  cmd: string[],
  options: { timeoutMs: number; maxOutputBytes?: number },
  fail: (error: unknown) => AppError,
): Promise<ContainerExecResult> {
  const demux = new BoundedExecDemux(options.maxOutputBytes);
  const abort = new AbortController();
  let timedOut = false;
  let stream: Duplex | null = null;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
    // A hijacked stream is the raw socket: closing it is how we stop waiting.
    stream?.destroy();
  }, options.timeoutMs);
  const result = (code: number | null): ContainerExecResult => ({ code, stdout: demux.text('stdout'), stderr: demux.text('stderr') });
  try {
    const exec = await docker
      .getContainer(id)
      .exec({ Cmd: cmd, AttachStdin: false, AttachStdout: true, AttachStderr: true, Tty: false, abortSignal: abort.signal });
    stream = (await exec.start({ hijack: true, stdin: false, Detach: false, Tty: false, abortSignal: abort.signal })) as Duplex;
    if (timedOut) stream.destroy();
    await new Promise<void>((resolve, reject) => {
      stream!.on('data', (chunk: Buffer) => demux.push(chunk));
      stream!.once('end', resolve);
      stream!.once('close', resolve);
      stream!.once('error', (error) => (timedOut ? resolve() : reject(error)));
    });
    if (timedOut) return result(null);
    for (;;) {
      const info = await exec.inspect({ abortSignal: abort.signal });
      if (!info.Running && typeof info.ExitCode === 'number') return result(info.ExitCode);
      await new Promise((resolve) => setTimeout(resolve, EXIT_CODE_RETRY_MS));
    }
  } catch (error) {
    // Past the deadline every error is our own abort (or the socket we closed).
    if (timedOut) return result(null);
    throw fail(error);
  } finally {
    clearTimeout(timer);
  }
}
