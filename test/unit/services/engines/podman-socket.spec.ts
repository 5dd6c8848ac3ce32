import { describe, expect, it } from 'vitest';
import { missingUserSocketDetail, parseUserSocketAnswer, USER_SOCKET_SCRIPT } from '../../../../electron/services/engines/podman-socket';
import { transportOfAccess, transportPlace } from '../../../../electron/services/engines/ssh-docker';

describe('the rootless Podman socket lookup', () => {
  it('exports XDG_RUNTIME_DIR only when the runtime folder exists, then asks podman info and checks for a socket', () => {
    expect(USER_SOCKET_SCRIPT).toContain('rt="${XDG_RUNTIME_DIR:-/run/user/$(id -u)}"');
    expect(USER_SOCKET_SCRIPT).toContain('if [ -d "$rt" ]; then XDG_RUNTIME_DIR="$rt"; export XDG_RUNTIME_DIR');
    expect(USER_SOCKET_SCRIPT).toContain("podman info --format '{{.Host.RemoteSocket.Path}}'");
    expect(USER_SOCKET_SCRIPT).toContain('[ -S "$p" ]');
    expect(USER_SOCKET_SCRIPT).toContain('f="$rt/podman/podman.sock"');
  });

  it('reads what the script printed', () => {
    expect(parseUserSocketAnswer('socket /run/user/1001/podman/podman.sock\n')).toEqual({ found: true, path: '/run/user/1001/podman/podman.sock' });
    expect(parseUserSocketAnswer('motd line\nnone /run/user/1001/podman/podman.sock runtime-dir=yes podman=yes\n')).toEqual({
      found: false,
      expected: '/run/user/1001/podman/podman.sock',
      runtimeDir: true,
      podman: true,
    });
    expect(parseUserSocketAnswer('sh: syntax error')).toBeNull();
  });

  it('says why there was no socket', () => {
    expect(missingUserSocketDetail({ found: false, expected: '/run/user/7/podman/podman.sock', runtimeDir: true, podman: true })).toBe('no socket at /run/user/7/podman/podman.sock');
    expect(missingUserSocketDetail({ found: false, expected: '/run/user/7/podman/podman.sock', runtimeDir: false, podman: true })).toMatch(/no runtime folder/);
    expect(missingUserSocketDetail({ found: false, expected: '/x', runtimeDir: true, podman: false })).toMatch(/no podman command/);
  });

  it('maps every stored transport, where it used to map anything but "socket" to dial-stdio', () => {
    expect(transportOfAccess({ transport: 'socket', socketPath: '/run/podman/podman.sock' })).toEqual({ kind: 'socket', path: '/run/podman/podman.sock' });
    expect(transportOfAccess({ transport: 'user-socket', socketPath: '/var/run/docker.sock' })).toEqual({ kind: 'user-socket' });
    expect(transportOfAccess({ transport: 'dial-stdio', socketPath: '/var/run/docker.sock' })).toEqual({ kind: 'dial-stdio' });
    expect(transportPlace({ kind: 'user-socket' }, 'alice')).toBe("alice's rootless Podman socket");
  });
});
