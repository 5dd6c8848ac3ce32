import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../../electron/shared/errors';
import { fingerprintSha256 } from '../../../../electron/services/ssh/known-hosts-format';
import { hostKeyError, KnownHostsFile } from '../../../../electron/services/ssh/known-hosts';

/** A fresh key pair made by the real ssh-keygen; returns the public key line's type, base64 and blob. */
function makeKey(dir: string, name: string, type = 'ed25519'): { line: string; blob: Buffer; type: string; fp: string } {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-f', file]);
  const line = execFileSync('cat', [`${file}.pub`]).toString().trim();
  const [keyType = '', b64 = ''] = line.split(/\s+/);
  const fp = execFileSync('ssh-keygen', ['-lf', `${file}.pub`]).toString().split(/\s+/)[1] ?? '';
  return { line, blob: Buffer.from(b64, 'base64'), type: keyType, fp };
}

describe('KnownHostsFile (real files, keys from ssh-keygen)', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-known-hosts-'));
    file = join(dir, 'known_hosts');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints fingerprints exactly like ssh-keygen -l', () => {
    for (const type of ['ed25519', 'ecdsa', 'rsa']) {
      const key = makeKey(dir, `fp_${type}`, type);
      expect(fingerprintSha256(key.blob)).toBe(key.fp);
    }
  });

  it('reads plain, [host]:port, comma lists and ssh-keygen -H hashed entries', async () => {
    const a = makeKey(dir, 'a');
    const b = makeKey(dir, 'b');
    const [, ab64] = a.line.split(' ');
    const [, bb64] = b.line.split(' ');
    await writeFile(file, `alpha,10.0.0.1 ssh-ed25519 ${ab64}\n[beta]:2200 ssh-ed25519 ${bb64}\n`);
    const kh = new KnownHostsFile(file);
    expect(await kh.lookup('alpha', 22, 'ssh-ed25519', a.blob)).toEqual({ status: 'trusted' });
    expect(await kh.lookup('10.0.0.1', 22, 'ssh-ed25519', a.blob)).toEqual({ status: 'trusted' });
    expect(await kh.lookup('beta', 2200, 'ssh-ed25519', b.blob)).toEqual({ status: 'trusted' });
    // Port matters: beta on 22 is another host name for OpenSSH.
    expect(await kh.lookup('beta', 22, 'ssh-ed25519', b.blob)).toEqual({ status: 'unknown' });
    // The real ssh-keygen -H hashes the file in place; lookups must still work.
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    const hashedText = await readFile(file, 'utf8');
    expect(hashedText).not.toContain('alpha');
    expect(hashedText).toMatch(/^\|1\|/);
    expect(await kh.lookup('alpha', 22, 'ssh-ed25519', a.blob)).toEqual({ status: 'trusted' });
    expect(await kh.lookup('beta', 2200, 'ssh-ed25519', b.blob)).toEqual({ status: 'trusted' });
    expect(await kh.lookup('gamma', 22, 'ssh-ed25519', a.blob)).toEqual({ status: 'unknown' });
  });

  it('reports a changed key with the old fingerprints, and revoked keys even when also trusted', async () => {
    const old = makeKey(dir, 'old');
    const fresh = makeKey(dir, 'fresh');
    const [, ob64] = old.line.split(' ');
    const [, fb64] = fresh.line.split(' ');
    await writeFile(file, `host1 ssh-ed25519 ${ob64}\nhost2 ssh-ed25519 ${fb64}\n@revoked host2 ssh-ed25519 ${fb64}\n`);
    const kh = new KnownHostsFile(file);
    const verdict = await kh.lookup('host1', 22, 'ssh-ed25519', fresh.blob);
    expect(verdict).toEqual({ status: 'changed', oldFingerprints: [old.fp], newFingerprint: fresh.fp });
    expect(await kh.lookup('host2', 22, 'ssh-ed25519', fresh.blob)).toEqual({ status: 'revoked' });
    if (verdict.status !== 'changed') throw new Error('expected changed');
    const err = hostKeyError(verdict, 'host1', 22, fresh.blob);
    expect(isAppError(err) && err.code).toBe('SSH_HOST_KEY_CHANGED');
    expect(err.message).toContain(old.fp);
    expect(err.message).toContain(fresh.fp);
  });

  it('a key of another type than the trusted ones is "other-type" (not a routine unknown), listing the trusted keys', async () => {
    const ed = makeKey(dir, 'ed');
    const ec = makeKey(dir, 'ec', 'ecdsa');
    const [, eb64] = ed.line.split(' ');
    await writeFile(file, `[h]:2200 ssh-ed25519 ${eb64}\n@revoked [h]:2200 ${ec.line}\nother ${ec.line}\n`);
    const kh = new KnownHostsFile(file);
    expect(await kh.knownKeyTypes('h', 2200)).toEqual(['ssh-ed25519']);
    expect(await kh.knownKeyTypes('other', 22)).toEqual(['ecdsa-sha2-nistp256']);
    expect(await kh.knownKeyTypes('nobody', 22)).toEqual([]);
    const fresh = makeKey(dir, 'ec2', 'ecdsa');
    const verdict = await kh.lookup('h', 2200, 'ecdsa-sha2-nistp256', fresh.blob);
    expect(verdict).toEqual({ status: 'other-type', knownKeys: [{ keyType: 'ssh-ed25519', fingerprint: ed.fp }], newFingerprint: fresh.fp });
    if (verdict.status !== 'other-type') throw new Error('expected other-type');
    const err = hostKeyError(verdict, 'h', 2200, fresh.blob);
    expect(err.code).toBe('SSH_HOST_KEY_CHANGED');
    expect(err.message).toContain(`used to present ssh-ed25519 ${ed.fp}; now it presents only ecdsa-sha2-nistp256 ${fresh.fp}`);
    // Trusting it explicitly (replace) adds the new type and keeps the old key.
    await kh.replace('h', 2200, fresh.blob);
    expect(await kh.lookup('h', 2200, 'ecdsa-sha2-nistp256', fresh.blob)).toEqual({ status: 'trusted' });
    expect(await kh.lookup('h', 2200, 'ssh-ed25519', ed.blob)).toEqual({ status: 'trusted' });
  });

  it('skips and counts @cert-authority, unknown markers and garbage without failing', async () => {
    const a = makeKey(dir, 'a');
    const [, ab64] = a.line.split(' ');
    await writeFile(file, `# comment\n\n@cert-authority *.corp ssh-ed25519 ${ab64}\n@future x ssh-ed25519 ${ab64}\ngarbage\nh ssh-ed25519 !!notbase64\nh ssh-rsa ${ab64}\nok ssh-ed25519 ${ab64}\n`);
    const parsed = await new KnownHostsFile(file).read();
    expect(parsed.skipped).toBe(5);
    expect(parsed.entries.map((e) => e.patterns)).toEqual([['ok']]);
  });

  it('adds entries (hashed when the file hashes) keeping other bytes, and replace is explicit', async () => {
    const a = makeKey(dir, 'a');
    const b = makeKey(dir, 'b');
    const [, ab64] = a.line.split(' ');
    // CRLF, a non-UTF-8 byte and no final newline must all survive.
    const original = Buffer.concat([Buffer.from(`# caf`), Buffer.from([0xe9]), Buffer.from(`\r\nzeta ssh-ed25519 ${ab64}`)]);
    await writeFile(file, original);
    const kh = new KnownHostsFile(file);
    await kh.add('new.example', 2222, b.blob);
    const afterAdd = await readFile(file);
    expect(afterAdd.subarray(0, original.length).equals(original)).toBe(true);
    expect(afterAdd.subarray(original.length).toString()).toBe(`\n[new.example]:2222 ssh-ed25519 ${b.blob.toString('base64')}\n`);
    expect(await kh.lookup('new.example', 2222, 'ssh-ed25519', b.blob)).toEqual({ status: 'trusted' });

    // Once the file hashes, new entries are hashed too.
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    await kh.add('third', 22, a.blob);
    expect((await readFile(file, 'utf8')).trimEnd().split('\n').pop()).toMatch(/^\|1\|[^ ]+ ssh-ed25519 /);
    expect(await kh.lookup('third', 22, 'ssh-ed25519', a.blob)).toEqual({ status: 'trusted' });

    // add() never removes the old key: the host stays "changed" until replace() is called.
    await kh.add('zeta', 22, b.blob);
    expect(await kh.lookup('zeta', 22, 'ssh-ed25519', b.blob)).toMatchObject({ status: 'trusted' });
    await kh.replace('third', 22, b.blob);
    expect(await kh.lookup('third', 22, 'ssh-ed25519', b.blob)).toEqual({ status: 'trusted' });
    expect(await kh.lookup('third', 22, 'ssh-ed25519', a.blob)).toEqual({ status: 'changed', oldFingerprints: [b.fp], newFingerprint: a.fp });
  });

  it('a missing file is empty, and concurrent adds both land', async () => {
    const a = makeKey(dir, 'a');
    const kh = new KnownHostsFile(join(dir, 'sub', 'known_hosts'));
    expect(await kh.lookup('x', 22, 'ssh-ed25519', a.blob)).toEqual({ status: 'unknown' });
    await Promise.all([kh.add('x', 22, a.blob), kh.add('y', 22, a.blob)]);
    expect((await kh.read()).entries).toHaveLength(2);
  });
});
