import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hopsOfProfile, shellQuote, sshCommandOf, WINDOWS_OPENSSH_AGENT_PIPE } from '../../../../electron/services/ssh/profile-hops';
import { ServerProfile, type ServerProfileDraft } from '../../../../electron/shared/schemas-servers';

const profile = (draft: Partial<ServerProfileDraft> = {}) =>
  ServerProfile.parse({ id: 'gpu', label: 'gpu', host: 'gpu.example.org', username: 'alice', ...draft });

describe('hopsOfProfile', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'agentswarm-hops-'));
    await mkdir(join(home, '.ssh'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('follows the profile order and uses the OpenSSH default key files that exist', async () => {
    await writeFile(join(home, '.ssh', 'id_rsa'), 'x');
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'x');
    const [hop, ...rest] = hopsOfProfile(profile({ port: 2200 }), { SSH_AUTH_SOCK: '/tmp/agent.sock' }, home, { platform: 'linux' });
    expect(rest).toEqual([]);
    expect(hop).toEqual({
      host: 'gpu.example.org',
      port: 2200,
      username: 'alice',
      auth: [
        { kind: 'agent', socket: '/tmp/agent.sock' },
        { kind: 'key', path: join(home, '.ssh', 'id_ed25519') },
        { kind: 'key', path: join(home, '.ssh', 'id_rsa') },
        { kind: 'password' },
        { kind: 'keyboard-interactive' },
      ],
      skippedAuth: [],
    });
  });

  it('keeps a custom order, expands ~ in listed key files, and says why the agent and default keys are skipped', () => {
    const [hop] = hopsOfProfile(profile({ authMethods: ['password', 'agent', 'key'] }), {}, home, { platform: 'linux' });
    expect(hop!.auth).toEqual([{ kind: 'password' }]);
    expect(hop!.skippedAuth).toEqual([
      'ssh-agent: skipped, SSH_AUTH_SOCK is not set (no agent running for this app)',
      'key file: skipped, none listed and none of ~/.ssh/id_ed25519, ~/.ssh/id_ecdsa, ~/.ssh/id_rsa exists',
    ]);
    const [listed] = hopsOfProfile(profile({ authMethods: ['key'], identityFiles: ['~/.ssh/work', '/keys/other'] }), {}, home);
    // Listed files are kept even when missing: trying one gives the typed "Cannot read the key file" error.
    expect(listed!.auth).toEqual([{ kind: 'key', path: join(home, '.ssh', 'work') }, { kind: 'key', path: '/keys/other' }]);
  });

  it('IdentitiesOnly with listed key files leaves the agent out', () => {
    const [hop] = hopsOfProfile(profile({ identitiesOnly: true, identityFiles: ['~/.ssh/work'], authMethods: ['agent', 'key'] }), { SSH_AUTH_SOCK: '/a' }, home);
    expect(hop!.auth).toEqual([{ kind: 'key', path: join(home, '.ssh', 'work') }]);
    expect(hop!.skippedAuth).toEqual(['ssh-agent: skipped, IdentitiesOnly is set, so only the listed key files are offered']);
    // Without listed files IdentitiesOnly changes nothing (OpenSSH then offers its default files and the agent).
    const [open] = hopsOfProfile(profile({ identitiesOnly: true, authMethods: ['agent'] }), { SSH_AUTH_SOCK: '/a' }, home);
    expect(open!.auth).toEqual([{ kind: 'agent', socket: '/a' }]);
  });

  it('on Windows uses the OpenSSH agent pipe when it exists, else Pageant', () => {
    const p = profile({ authMethods: ['agent'] });
    const withPipe = hopsOfProfile(p, {}, home, { platform: 'win32', exists: (path) => path === WINDOWS_OPENSSH_AGENT_PIPE });
    expect(withPipe[0]!.auth).toEqual([{ kind: 'agent', socket: '\\\\.\\pipe\\openssh-ssh-agent' }]);
    const pageant = hopsOfProfile(p, {}, home, { platform: 'win32', exists: () => false });
    expect(pageant[0]!.auth).toEqual([{ kind: 'agent', socket: 'pageant' }]);
    const sock = hopsOfProfile(p, { SSH_AUTH_SOCK: '\\\\.\\pipe\\mine' }, home, { platform: 'win32', exists: () => true });
    expect(sock[0]!.auth).toEqual([{ kind: 'agent', socket: '\\\\.\\pipe\\mine' }]);
  });

  it('puts the jump hosts first, each with its own key files and the profile order', () => {
    const hops = hopsOfProfile(
      profile({
        authMethods: ['key', 'password'],
        identityFiles: ['/k/target'],
        jumps: [
          { host: 'bastion', port: 2201, username: 'jb', identityFiles: ['/k/bastion'] },
          { host: 'inner', username: 'ji' },
        ],
      }),
      {},
      home,
    );
    expect(hops.map((h) => [h.username, h.host, h.port, h.auth])).toEqual([
      ['jb', 'bastion', 2201, [{ kind: 'key', path: '/k/bastion' }, { kind: 'password' }]],
      ['ji', 'inner', 22, [{ kind: 'password' }]],
      ['alice', 'gpu.example.org', 22, [{ kind: 'key', path: '/k/target' }, { kind: 'password' }]],
    ]);
  });
});

describe('sshCommandOf', () => {
  it('builds the plain command', () => {
    expect(sshCommandOf(profile(), 10086, 10086)).toBe('ssh -N -L 127.0.0.1:10086:127.0.0.1:10086 -p 22 alice@gpu.example.org');
  });

  it('passes a ProxyCommand as -o, quoted once for the shell, tokens left for ssh', () => {
    const p = profile({ proxyCommand: "ssh -W %h:%p 'bastion host'" });
    expect(sshCommandOf(p, 10086, 10086)).toBe(`ssh -N -L 127.0.0.1:10086:127.0.0.1:10086 -o 'ProxyCommand=ssh -W %h:%p '\\''bastion host'\\''' -p 22 alice@gpu.example.org`);
  });

  it('adds -J for the jumps (port only when not 22, IPv6 in brackets), IdentitiesOnly and -i', () => {
    const p = profile({
      port: 2222,
      identitiesOnly: true,
      identityFiles: ['~/.ssh/id_work', '/keys/my key'],
      jumps: [
        { host: 'bastion', port: 2201, username: 'jb' },
        { host: 'fd00::1', username: 'ji' },
      ],
    });
    expect(sshCommandOf(p, 10087, 10086)).toBe(
      "ssh -N -L 127.0.0.1:10087:127.0.0.1:10086 -J 'jb@bastion:2201,ji@[fd00::1]' -o IdentitiesOnly=yes -i ~/.ssh/id_work -i '/keys/my key' -p 2222 alice@gpu.example.org",
    );
  });

  it('quotes words the way a POSIX shell reads them back', () => {
    for (const word of ['plain', "it's", 'a b', '$(rm -rf /)', '[v6]', '']) {
      expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8' })).toBe(word);
    }
  });
});
