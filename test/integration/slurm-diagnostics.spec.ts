// "Test connection" for a Slurm login node (engine `slurm`): after the SSH stages, one `slurm` stage that asks the
// login node's REAL Slurm 22.05 for its version, partitions and GPUs; through runDiagnostics and through the app's
// `servers:test` handler. The failures are real too, from a second sshd this spec starts (as root, on free loopback
// ports, with the test bed's host key and user) whose sessions get a different environment per port (sshd's
// `Match LocalPort` + `SetEnv`), as login nodes really differ:
//   - SLURM_CONF naming a copy of the bed's slurm.conf whose SlurmctldPort nothing listens on: slurmctld "down";
//   - PATH without Slurm's folder: a server whose Slurm is not on the PATH of non-interactive sessions (a site
//     where only `module load slurm` in an interactive shell finds it), or no Slurm at all;
//   - SLURM_CONF naming a file that does not exist (sinfo would retry it for 60 s).
// Needs `bash test/testbed/testbed.sh up`. Reads Slurm only (no jobs): no Slurm lock needed.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDiagnostics } from '../../electron/services/ssh/connection-diagnostics';
import { hostKeyError, KnownHostsFile } from '../../electron/services/ssh/known-hosts';
import type { ChainHop } from '../../electron/services/ssh/ssh-chain';
import type { HostKeyInfo } from '../../electron/services/ssh/ssh-connection';
import { DiagnosticsReport } from '../../electron/shared/schemas-servers';
import { freePort, poll } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const SLURM = { engine: 'slurm' as const, transport: 'socket' as const, socketPath: '/var/run/docker.sock' };
const hop = (port: number): ChainHop => ({ host: tb.ssh.host, port, username: tb.ssh.user, auth: [{ kind: 'key', path: tb.ssh.plainKeyPath }] });
const statuses = (report: DiagnosticsReport) => Object.fromEntries(report.stages.map((s) => [s.stage, s.status]));
const slurmStage = (report: DiagnosticsReport) => report.stages.find((s) => s.stage === 'slurm')!;

let dir = '';
let trusted: KnownHostsFile;
const ports = { ctldDown: 0, noSinfo: 0, noConf: 0 };

const verify = async (_hop: number, info: HostKeyInfo) => {
  const verdict = await trusted.lookup(info.host, info.port, info.keyType, info.keyBlob);
  if (verdict.status === 'trusted') return true;
  throw hostKeyError(verdict, info.host, info.port, info.keyBlob);
};

function diagnose(port: number) {
  return runDiagnostics({ serverId: 'slurm-login', hops: [hop(port)], docker: SLURM, askSecret: () => Promise.resolve(null), verifyHostKey: verify, readyTimeoutMs: 60_000 }).then((r) =>
    DiagnosticsReport.parse(r),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentswarm-slurm-diag-'));
  // The login user reads the copied slurm.conf.
  chmodSync(dir, 0o755);
  ports.ctldDown = await freePort();
  ports.noSinfo = await freePort();
  ports.noConf = await freePort();
  const deadCtld = await freePort();
  const conf = readFileSync(tb.slurm.conf, 'utf8').replace(/^SlurmctldPort=.*$/m, `SlurmctldPort=${deadCtld}`);
  expect(conf).toContain(`SlurmctldPort=${deadCtld}`);
  writeFileSync(join(dir, 'slurm.conf'), conf, { mode: 0o644 });
  const hostPub = readFileSync(tb.ssh.hostPublicKeyPath, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  writeFileSync(join(dir, 'known_hosts'), Object.values(ports).map((p) => `[127.0.0.1]:${p} ${hostPub}\n`).join('') + `[127.0.0.1]:${tb.ssh.port} ${hostPub}\n`);
  trusted = new KnownHostsFile(join(dir, 'known_hosts'));
  const hostKey = tb.ssh.hostPublicKeyPath.replace(/\.pub$/, '');
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      ...Object.values(ports).map((p) => `Port ${p}`),
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AllowUsers ${tb.ssh.user}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin no',
      'StrictModes yes',
      'X11Forwarding no',
      `Match LocalPort ${ports.ctldDown}`,
      `  SetEnv SLURM_CONF=${join(dir, 'slurm.conf')}`,
      `Match LocalPort ${ports.noSinfo}`,
      // Slurm's commands are in /usr/bin (and /bin, its link on Debian 12): neither is on this PATH.
      '  SetEnv PATH=/usr/local/sbin:/usr/local/bin',
      `Match LocalPort ${ports.noConf}`,
      `  SetEnv SLURM_CONF=${join(dir, 'no-such-folder', 'slurm.conf')}`,
      '',
    ].join('\n'),
  );
  execFileSync('/usr/sbin/sshd', ['-t', '-f', join(dir, 'sshd_config')]);
  // sshd forks into the background and writes its PID file; stopped by that PID in afterAll.
  execFileSync('/usr/sbin/sshd', ['-f', join(dir, 'sshd_config'), '-E', join(dir, 'sshd.log')]);
  await poll('the second sshd to write its PID file', 10_000, async () => (existsSync(join(dir, 'sshd.pid')) ? true : undefined));
});

afterAll(() => {
  const pidFile = join(dir, 'sshd.pid');
  if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('Test connection for a Slurm login node', () => {
  it("passes the SSH stages and names Slurm's version, the partitions and their GPUs", async () => {
    const report = await diagnose(tb.ssh.port);
    expect(report.stages.map((s) => s.stage)).toEqual(['tcp', 'handshake', 'host-key', 'auth', 'slurm']);
    expect(statuses(report)).toEqual({ tcp: 'pass', handshake: 'pass', 'host-key': 'pass', auth: 'pass', slurm: 'pass' });
    // Both of the test bed's partitions: the default one and the second node's (test/testbed/slurm.sh).
    const partition = (name: string) => `${name} \\(1 node [a-z]+; GPUs gpu:fake:${tb.slurm.gpusPerNode}\\)`;
    expect(slurmStage(report).detail).toMatch(
      new RegExp(`^Slurm ${tb.slurm.version.replace(/\./g, '\\.')}; partitions: ${partition(`${tb.slurm.partition}\\*`)}, ${partition(tb.slurm.second!.partition)}$`),
    );
  });

  it('slurmctld does not answer: the slurm stage fails, names the installed version and `scontrol ping`', { timeout: 60_000 }, async () => {
    const report = await diagnose(ports.ctldDown);
    expect(statuses(report)).toMatchObject({ auth: 'pass', slurm: 'fail' });
    const stage = slurmStage(report);
    expect(stage.error).toMatchObject({ code: 'ENGINE_UNREACHABLE', message: expect.stringMatching(/controller does not answer.*Unable to contact slurm controller/) });
    expect(stage.fix).toMatch(new RegExp(`^Slurm ${tb.slurm.version.replace(/\./g, '\\.')} is installed, but slurmctld does not answer: \`scontrol ping\``));
  });

  it('sinfo not on the PATH: "not a Slurm login node", with how to check and what to change', async () => {
    const report = await diagnose(ports.noSinfo);
    expect(statuses(report)).toMatchObject({ auth: 'pass', slurm: 'fail' });
    const stage = slurmStage(report);
    expect(stage.error).toMatchObject({ code: 'ENGINE_UNREACHABLE', message: expect.stringMatching(/^Not a Slurm login node: sinfo is not found on /) });
    expect(stage.fix).toMatch(/sinfo --version.*module load slurm.*Docker or Podman engine/);
  });

  it('SLURM_CONF naming a missing file: said at once (sinfo itself would retry for a minute)', async () => {
    const started = Date.now();
    const report = await diagnose(ports.noConf);
    expect(Date.now() - started).toBeLessThan(15_000);
    const stage = slurmStage(report);
    expect(stage).toMatchObject({ status: 'fail', error: { code: 'ENGINE_UNREACHABLE', message: expect.stringContaining(`names ${join(dir, 'no-such-folder', 'slurm.conf')}`) } });
    expect(stage.fix).toMatch(/unset SLURM_CONF/);
  });

  describe('through the app (servers:test)', () => {
    let app: TestApp;
    afterAll(async () => app?.dispose());

    it('a server added as "Slurm (login node)" is tested with the slurm stage', async () => {
      app = await startTestApp();
      const engineId = await connectTestbedServer(app, 'slurm-diag', tb, { docker: SLURM });
      const serverId = engineId.replace(/^ssh-/, '');
      const report = await app.handlers['servers:test']({ serverId });
      expect(report.serverId).toBe(serverId);
      expect(statuses(report)).toEqual({ tcp: 'pass', handshake: 'pass', 'host-key': 'pass', auth: 'pass', slurm: 'pass' });
      expect(slurmStage(report).detail).toContain(`GPUs gpu:fake:${tb.slurm.gpusPerNode}`);
    });
  });
});
