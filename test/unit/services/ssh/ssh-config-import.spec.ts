import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SshConfigImport } from '../../../../electron/services/ssh/ssh-config-import';

describe('SshConfigImport (real temp files)', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'agentswarm-sshcfg-'));
    await mkdir(join(home, '.ssh', 'conf.d'), { recursive: true });
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });
  const load = async (text: string): Promise<SshConfigImport> => {
    await writeFile(join(home, '.ssh', 'config'), text);
    return new SshConfigImport({ homeDir: home, localUser: 'me' });
  };

  it('lists aliases without wildcard patterns and resolves fields with defaults and tokens', async () => {
    const cfg = await load(`Host gpu gpu-alt
  HostName 10.0.0.5
  Port 2200
  IdentityFile ~/.ssh/%h_%r
  IdentityFile %d/keys/%u
Host *.corp !x.corp
  User corpuser
Host plain
Host *
  User alice
  IdentitiesOnly yes
`);
    expect(cfg.aliases()).toEqual(['gpu', 'gpu-alt', 'plain']);
    expect(cfg.resolve('gpu')).toEqual({
      alias: 'gpu', hostName: '10.0.0.5', port: 2200, user: 'alice', identitiesOnly: true,
      identityFiles: [`${home}/.ssh/10.0.0.5_alice`, `${home}/keys/me`], jumps: [], proxyCommand: null,
    });
    expect(cfg.resolve('plain')).toMatchObject({ hostName: 'plain', port: 22, user: 'alice', identityFiles: [] });
  });

  it('keeps a ProxyCommand as written (tokens filled in at connect time), and takes whichever of ProxyJump and ProxyCommand comes first', async () => {
    const cfg = await load(`Host ssm
  HostName i-0abc
  ProxyCommand aws ssm start-session --target %h --document-name AWS-StartSSHSession --parameters "portNumber=%p"
Host cmd-first
  ProxyCommand cloudflared access ssh --hostname %h
  ProxyJump bastion
Host jump-first
  ProxyJump bastion
Host jump-first cmd-first
  ProxyCommand ssh -W %h:%p other
Host direct
  ProxyCommand none
Host bastion
  HostName 10.0.0.1
  ProxyJump none
Host *
  ProxyJump bastion
`);
    expect(cfg.resolve('ssm')).toMatchObject({
      hostName: 'i-0abc', jumps: [], proxyCommand: 'aws ssm start-session --target %h --document-name AWS-StartSSHSession --parameters "portNumber=%p"',
    });
    expect(cfg.resolve('cmd-first')).toMatchObject({ jumps: [], proxyCommand: 'cloudflared access ssh --hostname %h' });
    expect(cfg.resolve('jump-first')).toMatchObject({ proxyCommand: null });
    expect(cfg.resolve('jump-first').jumps.map((j) => j.hostName)).toEqual(['10.0.0.1']);
    // ProxyCommand none first: direct, and the ProxyJump of Host * after it is ignored too.
    expect(cfg.resolve('direct')).toMatchObject({ jumps: [], proxyCommand: null });
  });

  it('resolves ProxyJump hops through the config, chains a,b and user@host:port', async () => {
    const cfg = await load(`Host target
  HostName 192.168.1.9
  ProxyJump bastion,ops@inner:2022
Host bastion
  HostName bastion.example.com
  User jumper
  ProxyJump edge
Host edge
  HostName 203.0.113.1
  Port 443
Host inner
  HostName 10.1.1.1
  User ignored
`);
    const r = cfg.resolve('target');
    expect(r.jumps.map((h) => `${h.user}@${h.hostName}:${h.port}`)).toEqual([
      'me@203.0.113.1:443', 'jumper@bastion.example.com:22', 'ops@10.1.1.1:2022',
    ]);
  });

  it('follows Include (relative to ~/.ssh, globs) and reports loops and bad values', async () => {
    await writeFile(join(home, '.ssh', 'conf.d', 'b.conf'), 'Host fromb\n  HostName b.example\n');
    await writeFile(join(home, '.ssh', 'conf.d', 'a.conf'), 'Host froma\n  Port 2201\n');
    const cfg = await load('Include conf.d/*.conf\nHost main\n  HostName m\n');
    expect(cfg.aliases()).toEqual(['froma', 'fromb', 'main']);
    expect(cfg.resolve('froma').port).toBe(2201);
    const bad = await load('Host loop\n  ProxyJump loop2\nHost loop2\n  ProxyJump loop\nHost badport\n  Port 99999\n');
    expect(() => bad.resolve('loop')).toThrow(/ProxyJump loops/);
    expect(() => bad.resolve('badport')).toThrow(expect.objectContaining({ code: 'SSH_CONFIG_INVALID' }));
  });

  it('names the file when it cannot be read', () => {
    expect(() => new SshConfigImport({ path: join(home, 'nope'), homeDir: home })).toThrow(/Cannot read .*nope/);
  });
});
