// known_hosts written and read by the app against the real OpenSSH tools and the test bed's sshd (no Docker).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprintSha256 } from '../../electron/services/ssh/known-hosts-format';
import { KnownHostsFile } from '../../electron/services/ssh/known-hosts';
import { loadTestbed } from '../testbed/testbed';

const tb = loadTestbed();

function hostKeyBlob(): Buffer {
  const [, b64 = ''] = execFileSync('cat', [tb.ssh.hostPublicKeyPath]).toString().trim().split(/\s+/);
  return Buffer.from(b64, 'base64');
}

/** The real ssh client, strict about host keys, with only our file as its known_hosts. */
function realSsh(knownHosts: string): { status: number | null; stderr: string } {
  const r = spawnSync('ssh', [
    '-F', '/dev/null',
    '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-i', tb.ssh.plainKeyPath, '-p', String(tb.ssh.port),
    `${tb.ssh.user}@${tb.ssh.host}`, 'true',
  ], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stderr: r.stderr };
}

describe('known_hosts against real OpenSSH and the test bed sshd', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-kh-it-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('understands ssh-keyscan -H output and matches the test bed host key and ssh-keygen -lf', async () => {
    const file = join(dir, 'known_hosts');
    const scanned = execFileSync('ssh-keyscan', ['-H', '-t', 'ed25519', '-p', String(tb.ssh.port), tb.ssh.host], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    expect(scanned).toMatch(/^\|1\|/m);
    await writeFile(file, scanned);
    const blob = hostKeyBlob();
    const kh = new KnownHostsFile(file);
    expect(await kh.lookup(tb.ssh.host, tb.ssh.port, 'ssh-ed25519', blob)).toEqual({ status: 'trusted' });
    expect((await kh.read()).hashed).toBe(true);
    const keygen = execFileSync('ssh-keygen', ['-lf', tb.ssh.hostPublicKeyPath]).toString().split(/\s+/)[1];
    expect(fingerprintSha256(blob)).toBe(keygen);
    expect(fingerprintSha256(blob)).toBe(tb.ssh.hostKeyFingerprint);
  });

  it.each([false, true])('an entry the app writes (hash=%s) is accepted by ssh -o StrictHostKeyChecking=yes', async (hash) => {
    const file = join(dir, 'known_hosts');
    const kh = new KnownHostsFile(file);
    // Without an entry, strict ssh refuses: proves the file is what decides.
    expect(realSsh(file).status).toBe(255);
    await kh.add(tb.ssh.host, tb.ssh.port, hostKeyBlob(), { hash });
    const r = realSsh(file);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('a mismatching entry makes real ssh refuse and lookup say changed', async () => {
    const file = join(dir, 'known_hosts');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'other')]);
    const [, otherB64 = ''] = (await readFile(join(dir, 'other.pub'), 'utf8')).trim().split(/\s+/);
    const other = Buffer.from(otherB64, 'base64');
    const kh = new KnownHostsFile(file);
    await kh.add(tb.ssh.host, tb.ssh.port, other);
    const r = realSsh(file);
    expect(r.status).toBe(255);
    expect(r.stderr).toContain('REMOTE HOST IDENTIFICATION HAS CHANGED');
    expect(await kh.lookup(tb.ssh.host, tb.ssh.port, 'ssh-ed25519', hostKeyBlob())).toEqual({
      status: 'changed', oldFingerprints: [fingerprintSha256(other)], newFingerprint: tb.ssh.hostKeyFingerprint,
    });
    // The explicit replace makes both agree again.
    await kh.replace(tb.ssh.host, tb.ssh.port, hostKeyBlob());
    expect(realSsh(file).status).toBe(0);
  });
});
