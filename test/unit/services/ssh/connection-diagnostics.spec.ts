import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBanner } from '../../../../electron/services/ssh/connection-diagnostics';
import { gpuResult, socketAccessResult } from '../../../../electron/services/ssh/remote-checks';
import type { AppError } from '../../../../electron/shared/errors';

const HOST = 'alice@gpu:22';

describe('readBanner', () => {
  it('returns the identification line, skipping the lines RFC 4253 allows before it, across chunks', async () => {
    const stream = new PassThrough();
    const banner = readBanner(stream, 1_000);
    stream.write('Welcome to gpu\r\nSSH-2.0-Open');
    stream.write('SSH_9.2p1 Debian-2+deb12u3\r\n<binary kex>');
    expect(await banner).toBe('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3');
  });

  it('is a typed error when the server hangs up first or is silent', async () => {
    const closed = new PassThrough();
    const early = readBanner(closed, 1_000);
    closed.end('HTTP/1.1 400 Bad Request\r\n');
    const closedEarly = (await early.catch((e: unknown) => e)) as AppError;
    expect(closedEarly.code).toBe('SSH_DISCONNECTED');
    expect(closedEarly.params).toEqual({ diag: 'bannerClosed' });
    const silent = readBanner(new PassThrough(), 50);
    const timedOut = (await silent.catch((e: unknown) => e)) as AppError;
    expect(timedOut.code).toBe('SSH_TIMEOUT');
    // What it was, as data for the stage's words (issue 32).
    expect(timedOut.params).toEqual({ diag: 'bannerTimeout', seconds: 0 });
  });
});

describe('gpuResult (nvidia-smi -L)', () => {
  it('lists the GPUs without their UUIDs', () => {
    const stdout = 'GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1b2c)\nGPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-3d4e)\n';
    expect(gpuResult({ stdout, stderr: '', code: 0 }, HOST)).toEqual({
      status: 'pass',
      detail: '2 GPUs: NVIDIA A100-SXM4-80GB, NVIDIA A100-SXM4-80GB',
      say: { key: 'gpus', params: { n: 2, names: 'NVIDIA A100-SXM4-80GB, NVIDIA A100-SXM4-80GB' } },
    });
  });

  it('warns (never fails) with a fix when nvidia-smi is missing or the driver does not answer', () => {
    const missing = gpuResult({ stdout: '', stderr: 'bash: line 1: nvidia-smi: command not found\n', code: 127 }, HOST);
    expect(missing).toMatchObject({ status: 'warn', error: { code: 'GPU_UNAVAILABLE' }, fix: expect.stringMatching(/NVIDIA driver/) });
    const driver = gpuResult(
      { stdout: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", stderr: '', code: 9 },
      HOST,
    );
    expect(driver.status).toBe('warn');
    expect(driver.error?.message).toBe(`nvidia-smi on ${HOST} lists no GPU: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.`);
  });
});

describe('socketAccessResult', () => {
  const check = (lines: string[]) => socketAccessResult(lines, '/var/run/docker.sock', 'alice', HOST);

  it('passes when the user may read and write the socket', () => {
    expect(check(['ok', 'alice docker', 'root:docker 660'])).toEqual({
      status: 'pass',
      detail: 'alice may use /var/run/docker.sock (root:docker 660; groups: alice docker)',
      say: { key: 'socketOk', params: { path: '/var/run/docker.sock', user: 'alice', host: HOST, owner: 'root:docker 660', groups: 'alice docker' } },
    });
  });

  it('tells a missing socket (start Docker / set the path) from a permission problem (usermod + new login)', () => {
    const missing = check(['missing', 'alice', '?']);
    expect(missing.error?.code).toBe('ENGINE_UNREACHABLE');
    expect(missing.fix).toMatch(/systemctl start docker/);
    const denied = check(['denied', 'alice users', 'root:docker 660']);
    expect(denied.error).toEqual({ code: 'ENGINE_PERMISSION_DENIED', message: `alice may not use /var/run/docker.sock on ${HOST} (permission denied).` });
    expect(denied.fix).toBe('On the server run `sudo usermod -aG docker alice`, then reconnect the server here: group changes only apply to new SSH logins.');
    expect(check(['not-a-socket', 'alice', 'root:root 644']).error?.code).toBe('ENGINE_UNREACHABLE');
  });
});
