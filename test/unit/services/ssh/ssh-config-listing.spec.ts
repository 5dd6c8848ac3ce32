import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSshConfigHosts } from '../../../../electron/services/ssh/ssh-config-listing';
import { AppError } from '../../../../electron/shared/errors';
import { SshConfigListing } from '../../../../electron/shared/schemas-servers';

describe('listSshConfigHosts (real temp files)', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'agentswarm-sshlist-'));
    await mkdir(join(home, '.ssh'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });
  const list = async (text: string) => {
    await writeFile(join(home, '.ssh', 'config'), text);
    const listing = listSshConfigHosts({ homeDir: home, localUser: 'me' });
    return SshConfigListing.parse(listing); // what the renderer receives must satisfy the contract
  };

  it('reports a missing file as exists:false, not as an error', () => {
    expect(listSshConfigHosts({ homeDir: home, localUser: 'me' })).toEqual({ path: join(home, '.ssh', 'config'), exists: false, hosts: [] });
    expect(listSshConfigHosts({ path: join(home, 'nope'), homeDir: home }).exists).toBe(false);
  });

  it('turns each alias into a profile ready to add, wildcard blocks applied, key paths under home as ~/', async () => {
    const listing = await list(`Host gpu
  HostName 10.0.0.5
  Port 2200
  IdentityFile ~/.ssh/id_gpu
  IdentitiesOnly yes
  ProxyJump jb@bastion:2201,inner
Host bastion
  IdentityFile /keys/bastion
Host inner
  User innerme
Host *
  User alice
`);
    expect(listing.exists).toBe(true);
    expect(listing.hosts.map((h) => h.alias)).toEqual(['gpu', 'bastion', 'inner']);
    const gpu = listing.hosts[0]!;
    expect(gpu.problem).toBeNull();
    expect(gpu.profile).toEqual({
      label: 'gpu',
      host: '10.0.0.5',
      port: 2200,
      username: 'alice',
      authMethods: ['agent', 'key', 'password', 'keyboard-interactive'],
      identityFiles: ['~/.ssh/id_gpu'],
      identitiesOnly: true,
      jumps: [
        { host: 'bastion', port: 2201, username: 'jb', identityFiles: ['/keys/bastion'] },
        { host: 'inner', port: 22, username: 'innerme', identityFiles: [] },
      ],
      docker: { engine: 'docker', transport: 'socket', socketPath: '/var/run/docker.sock' },
      tunnelLocalPort: 10086,
      importedFrom: 'gpu',
    });
    expect(listing.hosts[2]!.profile).toMatchObject({ label: 'inner', host: 'inner', username: 'innerme', jumps: [], importedFrom: 'inner' });
  });

  it('lists an alias it cannot use with the reason, and still lists the others', async () => {
    const listing = await list(`Host badport
  Port 99999
Host loop
  ProxyJump loop2
Host loop2
  ProxyJump loop
Host shell
  HostName "a;rm -rf"
Host relkey
  IdentityFile keys/relative
Host fine
  HostName fine.example.org
`);
    const byAlias = Object.fromEntries(listing.hosts.map((h) => [h.alias, h]));
    expect(byAlias.badport!.profile).toBeNull();
    expect(byAlias.badport!.problem).toBe('Host badport: Port "99999" is not a port number (1-65535).');
    expect(byAlias.loop!.problem).toMatch(/ProxyJump loops back/);
    expect(byAlias.shell!.problem).toMatch(/^Host shell: host: host must be a host name or an IP address/);
    expect(byAlias.relkey!.problem).toMatch(/^Host relkey: identityFiles\.0: key file must be an absolute path or start with ~\//);
    expect(byAlias.fine).toMatchObject({ problem: null, profile: { host: 'fine.example.org', username: 'me' } });
  });

  it('raises SSH_CONFIG_INVALID when the file exists but cannot be read', async () => {
    if (process.getuid?.() === 0) {
      // root reads a mode-000 file anyway; a directory in its place is unreadable for everyone.
      await mkdir(join(home, 'as-dir'));
      expect(() => listSshConfigHosts({ path: join(home, 'as-dir'), homeDir: home })).toThrow(AppError);
      return;
    }
    await writeFile(join(home, '.ssh', 'config'), 'Host a\n');
    await chmod(join(home, '.ssh', 'config'), 0o000);
    expect(() => listSshConfigHosts({ homeDir: home })).toThrow(AppError);
  });
});
