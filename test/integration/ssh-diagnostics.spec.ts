// "Test connection" (runDiagnostics) against the test bed's real sshd, jump sshd and dockerd: each stage's
// pass, fail and skip, with the hop named when a jump fails. Needs `bash test/testbed/testbed.sh up`.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDiagnostics, type DiagnosticsOptions } from '../../electron/services/ssh/connection-diagnostics';
import { hostKeyError, KnownHostsFile } from '../../electron/services/ssh/known-hosts';
import type { SshAuthAttempt } from '../../electron/services/ssh/ssh-auth';
import type { ChainHop } from '../../electron/services/ssh/ssh-chain';
import type { HostKeyInfo } from '../../electron/services/ssh/ssh-connection';
import { DiagnosticsReport } from '../../electron/shared/schemas-servers';
import { loadTestbedWithJump } from '../testbed/testbed';

const tb = loadTestbedWithJump();
const KEY: SshAuthAttempt[] = [{ kind: 'key', path: tb.ssh.plainKeyPath }];
const target = (auth = KEY, port = tb.ssh.port): ChainHop => ({ host: tb.ssh.host, port, username: tb.ssh.user, auth });
const jump = (auth = KEY): ChainHop => ({ host: tb.jump.host, port: tb.jump.port, username: tb.ssh.user, auth });
const TARGET = `${tb.ssh.user}@${tb.ssh.host}:${tb.ssh.port}`;
const JUMP = `${tb.ssh.user}@${tb.jump.host}:${tb.jump.port}`;

let dir = '';
let trusted: KnownHostsFile;
let empty: KnownHostsFile;
let lockedSocket: net.Server;
let lockedSocketPath = '';

/** The real known_hosts check, as the app does it: trusted, or the typed SSH_HOST_KEY_* error. */
const verifyWith = (file: KnownHostsFile) => async (_hop: number, info: HostKeyInfo) => {
  const verdict = await file.lookup(info.host, info.port, info.keyType, info.keyBlob);
  if (verdict.status === 'trusted') return true;
  throw hostKeyError(verdict, info.host, info.port, info.keyBlob);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentswarm-diag-'));
  const line = (port: number, pubPath: string) => `[127.0.0.1]:${port} ${readFileSync(pubPath, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ')}\n`;
  writeFileSync(join(dir, 'known_hosts'), line(tb.ssh.port, tb.ssh.hostPublicKeyPath) + line(tb.jump.port, tb.jump.hostPublicKeyPath));
  trusted = new KnownHostsFile(join(dir, 'known_hosts'));
  empty = new KnownHostsFile(join(dir, 'empty_known_hosts'));
  // A unix socket only root may open (mode 600, owned by root): what swarmtest sees when it is not in
  // the group of the Docker socket. The directory stays traversable so only the socket's mode refuses.
  chmodSync(dir, 0o755);
  lockedSocketPath = join(dir, 'locked.sock');
  lockedSocket = net.createServer((s) => s.end());
  await new Promise<void>((ok) => lockedSocket.listen(lockedSocketPath, ok));
  chmodSync(lockedSocketPath, 0o600);
});

afterAll(async () => {
  await new Promise((ok) => lockedSocket.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

function run(overrides: Partial<DiagnosticsOptions> & { hops: ChainHop[] }) {
  return runDiagnostics({
    serverId: 'testbed',
    docker: { transport: 'socket', socketPath: tb.dockerSocket },
    askSecret: () => Promise.resolve(null),
    verifyHostKey: verifyWith(trusted),
    readyTimeoutMs: 60_000,
    ...overrides,
  }).then((report) => DiagnosticsReport.parse(report));
}

const statuses = (report: DiagnosticsReport) => Object.fromEntries(report.stages.map((s) => [s.stage, s.status]));
const stage = (report: DiagnosticsReport, name: DiagnosticsReport['stages'][number]['stage']) => report.stages.find((s) => s.stage === name)!;

async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((ok) => server.close(ok));
  return port;
}

describe('runDiagnostics against the test bed', () => {
  it('passes every stage up to the Docker socket permission and warns that there is no GPU (no nvidia-smi here)', async () => {
    const report = await run({ hops: [target()] });
    expect(report.target).toBe(TARGET);
    expect(report.stages.map((s) => s.stage)).toEqual(['tcp', 'handshake', 'host-key', 'auth', 'docker-version', 'docker-permission', 'gpus']);
    expect(statuses(report)).toEqual({
      tcp: 'pass', handshake: 'pass', 'host-key': 'pass', auth: 'pass', 'docker-version': 'pass', 'docker-permission': 'pass', gpus: 'warn',
    });
    expect(stage(report, 'tcp').detail).toMatch(/^127\.0\.0\.1:2222 answered in \d+ ms$/);
    expect(stage(report, 'handshake').detail).toMatch(/^OpenSSH_\d/);
    expect(stage(report, 'host-key').detail).toBe(`ssh-ed25519 ${tb.ssh.hostKeyFingerprint}`);
    expect(stage(report, 'auth').detail).toBe(`key (key file ${tb.ssh.plainKeyPath})`);
    expect(stage(report, 'docker-version').detail).toMatch(/^Docker \d+\.\d+\.\d+\S* \(API 1\.\d+\) through \/var\/run\/docker\.sock$/);
    expect(stage(report, 'docker-permission').detail).toMatch(/^swarmtest may use \/var\/run\/docker\.sock \(root:docker 660; groups: .*\bdocker\b/);
    const gpus = stage(report, 'gpus');
    expect(gpus.error?.message).toBe(`nvidia-smi is not installed on ${TARGET}: no NVIDIA driver was found, so containers there get no GPU.`);
    expect(gpus.fix).toMatch(/NVIDIA Container Toolkit/);
    for (const s of report.stages.filter((s) => s.status === 'pass')) expect([s.error, s.fix]).toEqual([null, null]);
    // Issue 32: the same facts as data, for the renderer's words in the user's language.
    expect(report.stages.filter((s) => s.status !== 'skipped').map((s) => s.say?.key)).toEqual(['tcpAnswered', 'banner', 'hostKey', 'authKey', 'versionSocket', 'socketOk', 'noNvidiaSmi']);
    expect(stage(report, 'auth').say?.params).toEqual({ path: tb.ssh.plainKeyPath });
    expect(stage(report, 'docker-version').say?.params).toMatchObject({ product: 'Docker', path: '/var/run/docker.sock', configured: 'Docker' });
    expect(gpus.sayFix?.key).toBe('installNvidia');
  });

  it('uses dial-stdio when the profile says so', async () => {
    const report = await run({ hops: [target()], docker: { transport: 'dial-stdio', socketPath: '/var/run/docker.sock' } });
    expect(stage(report, 'docker-version').detail).toMatch(/through `docker system dial-stdio`$/);
    expect(stage(report, 'docker-permission')).toMatchObject({ status: 'pass', detail: expect.stringMatching(/^docker CLI on .* reaches Docker \d/) });
  });

  it('fails at tcp when sshd is down, and skips the rest', async () => {
    const port = await deadPort();
    const report = await run({ hops: [target(KEY, port)] });
    expect(report.target).toBe(`${tb.ssh.user}@127.0.0.1:${port}`);
    expect(statuses(report)).toEqual({
      tcp: 'fail', handshake: 'skipped', 'host-key': 'skipped', auth: 'skipped', 'docker-version': 'skipped', 'docker-permission': 'skipped', gpus: 'skipped',
    });
    expect(stage(report, 'tcp').error).toEqual({ code: 'SSH_UNREACHABLE', message: `Cannot open a TCP connection to 127.0.0.1:${port}: connection refused: nothing listens on that port.` });
    expect(stage(report, 'tcp').say).toEqual({ key: 'tcpRefused', params: { endpoint: `127.0.0.1:${port}`, host: '127.0.0.1' } });
    expect(stage(report, 'tcp').fix).toMatch(/that sshd runs there/);
  });

  it('fails at host-key for an unknown host with its fingerprint, sending no credential', async () => {
    const asked: string[] = [];
    const report = await run({
      hops: [target([{ kind: 'password' }])],
      verifyHostKey: verifyWith(empty),
      askSecret: (_hop, request) => {
        asked.push(request.prompt);
        return Promise.resolve(tb.ssh.password);
      },
    });
    expect(statuses(report)).toMatchObject({ handshake: 'pass', 'host-key': 'fail', auth: 'skipped', gpus: 'skipped' });
    expect(stage(report, 'host-key').error?.code).toBe('SSH_HOST_KEY_UNKNOWN');
    expect(stage(report, 'host-key').error?.message).toContain(tb.ssh.hostKeyFingerprint);
    expect(stage(report, 'host-key').fix).toMatch(/ssh-keygen -lf/);
    expect(asked).toEqual([]);
  });

  it('fails at auth for a wrong password, with the host key passed', async () => {
    const report = await run({ hops: [target([{ kind: 'password' }])], askSecret: () => Promise.resolve('not-the-password') });
    expect(statuses(report)).toMatchObject({ 'host-key': 'pass', auth: 'fail', 'docker-version': 'skipped' });
    expect(stage(report, 'auth').error?.code).toBe('SSH_AUTH_FAILED');
    expect(stage(report, 'auth').error?.message).toMatch(/refused the login\. Tried: password\./);
    expect(stage(report, 'auth').fix).toMatch(/authorized_keys/);
  });

  it('fails at auth with SSH_PASSPHRASE_NEEDED when the passphrase of an encrypted key is not given', async () => {
    const report = await run({ hops: [target([{ kind: 'key', path: tb.ssh.encryptedKeyPath }])], askSecret: () => Promise.resolve(null) });
    expect(statuses(report)).toMatchObject({ 'host-key': 'pass', auth: 'fail', 'docker-version': 'skipped' });
    expect(stage(report, 'auth').error?.code).toBe('SSH_PASSPHRASE_NEEDED');
    expect(stage(report, 'auth').fix).toMatch(/ssh-add/);
  });

  it('tells a missing Docker socket from one the user may not open', async () => {
    const missing = await run({ hops: [target()], docker: { transport: 'socket', socketPath: '/run/no-such-docker.sock' } });
    expect(statuses(missing)).toMatchObject({ auth: 'pass', 'docker-version': 'fail', 'docker-permission': 'fail', gpus: 'skipped' });
    expect(stage(missing, 'docker-permission').error).toEqual({
      code: 'ENGINE_UNREACHABLE',
      message: `There is no Docker socket at /run/no-such-docker.sock on ${TARGET}.`,
    });
    expect(stage(missing, 'docker-version').fix).toBe(stage(missing, 'docker-permission').fix);
    expect(stage(missing, 'docker-permission').fix).toMatch(/systemctl start docker.*dial-stdio/);

    const denied = await run({ hops: [target()], docker: { transport: 'socket', socketPath: lockedSocketPath } });
    expect(statuses(denied)).toMatchObject({ 'docker-version': 'fail', 'docker-permission': 'fail', gpus: 'skipped' });
    expect(stage(denied, 'docker-permission').error?.code).toBe('ENGINE_PERMISSION_DENIED');
    expect(stage(denied, 'docker-permission').detail).toMatch(/is root:root 600; swarmtest is in: .*docker/);
    // swarmtest is in group docker, but this socket is not the docker group's: the fix says so.
    expect(stage(denied, 'docker-permission').fix).toMatch(/does not belong to it \(root:root 600\).*new SSH logins/);
  });

  it('runs through the jump host, and reports a failing jump against that hop', async () => {
    const through = await run({ hops: [jump(), target()] });
    expect(through.target).toBe(TARGET);
    expect(statuses(through)).toMatchObject({ tcp: 'pass', auth: 'pass', 'docker-version': 'pass', 'docker-permission': 'pass' });
    expect(stage(through, 'tcp').detail).toMatch(new RegExp(`^127\\.0\\.0\\.1:2222 answered in \\d+ ms via ${JUMP}$`));
    expect(stage(through, 'host-key').detail).toBe(`ssh-ed25519 ${tb.ssh.hostKeyFingerprint}`);

    const unknownJump = await run({
      hops: [jump(), target()],
      verifyHostKey: (hop, info) => (hop === 0 ? verifyWith(empty)(hop, info) : verifyWith(trusted)(hop, info)),
    });
    expect(unknownJump.target).toBe(JUMP);
    expect(statuses(unknownJump)).toMatchObject({ tcp: 'pass', 'host-key': 'fail', auth: 'skipped', 'docker-version': 'skipped' });
    expect(stage(unknownJump, 'host-key').error?.code).toBe('SSH_HOST_KEY_UNKNOWN');
    expect(stage(unknownJump, 'host-key').error?.message).toMatch(new RegExp(`^via jump host ${JUMP} \\(hop 1 of 2\\): .*${tb.jump.hostKeyFingerprint.replace(/[+/]/g, '\\$&')}`));

    const port = await deadPort();
    const unreachable = await run({ hops: [jump(), target(KEY, port)] });
    expect(unreachable.target).toBe(`${tb.ssh.user}@127.0.0.1:${port}`);
    expect(statuses(unreachable)).toMatchObject({ tcp: 'fail', handshake: 'skipped' });
    expect(stage(unreachable, 'tcp').error?.code).toBe('SSH_UNREACHABLE');
    expect(stage(unreachable, 'tcp').fix).toMatch(new RegExp(`as seen from ${JUMP}`));
  });
});
