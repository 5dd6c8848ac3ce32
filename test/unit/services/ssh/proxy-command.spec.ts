// The ProxyCommand pieces that need no server: token expansion, the profile field's checks, how a
// profile becomes the first hop, and the process wrapper against real shell commands.
import { describe, expect, it } from 'vitest';
import { hopsOfProfile } from '../../../../electron/services/ssh/profile-hops';
import { expandProxyCommand, ProxyCommandProcess, proxyCommandError } from '../../../../electron/services/ssh/proxy-command';
import { proxyConflict, ServerProfile, ServerProfileInput } from '../../../../electron/shared/schemas-servers';

const tokens = { host: 'gpu.example.org', port: 2200, user: 'alice', alias: 'gpu', homeDir: '/home/me', localUser: 'me' };

describe('ProxyCommand', () => {
  it('expands %h %p %r %n %d %u %% as OpenSSH does', () => {
    expect(expandProxyCommand('ssh -W %h:%p -l %r jump # %n %d %u 100%%', tokens)).toBe('ssh -W gpu.example.org:2200 -l alice jump # gpu /home/me me 100%');
  });

  it('is one line with known tokens only, and excludes jump hosts', () => {
    const base = { label: 'x', host: 'h', username: 'u' };
    expect(ServerProfileInput.safeParse({ ...base, proxyCommand: 'nc %h %p' }).success).toBe(true);
    expect(ServerProfileInput.safeParse({ ...base, proxyCommand: null }).success).toBe(true);
    expect(ServerProfileInput.safeParse({ ...base }).success).toBe(true);
    for (const bad of ['nc %C', 'nc %h %', 'nc %h\nrm -rf /', '   ']) {
      expect(ServerProfileInput.safeParse({ ...base, proxyCommand: bad }).success, bad).toBe(false);
    }
    const both = ServerProfileInput.parse({ ...base, proxyCommand: 'nc %h %p', jumps: [{ host: 'j', username: 'u' }] });
    expect(proxyConflict(both)).toMatch(/jump hosts or through a ProxyCommand, not both/);
  });

  it('becomes the first hop\'s transport with the tokens filled in from the profile (%n: the imported alias)', () => {
    const profile = ServerProfile.parse({ id: 's', label: 'x', host: 'i-0abc', port: 22, username: 'ubuntu', authMethods: ['password'], proxyCommand: 'ssm %h %p %r %n', importedFrom: 'gpu-ssm' });
    const hops = hopsOfProfile(profile, {}, '/home/me');
    expect(hops).toHaveLength(1);
    expect(hops[0]!.proxyCommand).toBe('ssm i-0abc 22 ubuntu gpu-ssm');
    expect(hopsOfProfile({ ...profile, proxyCommand: null }, {}, '/home/me')[0]!.proxyCommand).toBeUndefined();
  });

  it('carries bytes both ways through a real shell command, and stops with the connection', async () => {
    const proxy = new ProxyCommandProcess('cat');
    const echoed = new Promise<string>((resolve) => proxy.stream.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    proxy.stream.write('SSH-2.0-test\r\n');
    expect(await echoed).toBe('SSH-2.0-test\r\n');
    proxy.stop();
    // Stopped by us: not a failure to report.
    expect(await proxy.exitedWithin(2000)).toBeNull();
  });

  it('reports the exit code and the end of stderr of a command that fails, and names a missing command', async () => {
    const proxy = new ProxyCommandProcess(`sh -c 'echo "bastion: Connection refused" >&2; exit 255'`);
    const exit = await proxy.exitedWithin(30_000);
    expect(exit).toMatchObject({ code: 255, stderr: 'bastion: Connection refused' });
    const error = proxyCommandError(exit!, 'alice@gpu:22');
    expect(error.code).toBe('SSH_PROXY_COMMAND_FAILED');
    expect(error.message).toMatch(/^The ProxyCommand of alice@gpu:22 exited 255: bastion: Connection refused\. Run the command/);

    const missing = new ProxyCommandProcess('agentswarm-no-such-command-29 %h');
    const gone = await missing.exitedWithin(30_000);
    expect(gone?.code).toBe(127);
    expect(proxyCommandError(gone!, 't').message).toMatch(/could not find the command/);
  });
});
