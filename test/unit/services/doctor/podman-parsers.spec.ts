import { describe, expect, it } from 'vitest';
import {
  effectiveInitPath,
  initPathOf,
  parseCdiScan,
  parseGraphDriver,
  parseInitScan,
  parseLinger,
  parseNetworkProbe,
  parseSessionProbe,
  versionAtLeast,
} from '../../../../electron/services/doctor/podman-parsers';

// The outputs below are what the tools print (loginctl 252, podman 4.3.1, nvidia-ctk 1.14); the
// "no systemd" lines are the ones measured on our machines.

describe('loginctl show-user -p Linger', () => {
  it('reads yes and no', () => {
    expect(parseLinger('Linger=yes\n', 0)).toEqual({ state: 'yes' });
    expect(parseLinger('Linger=no\n', 0)).toEqual({ state: 'no' });
  });

  it('a user with no session and no lingering is "no", not an error', () => {
    expect(parseLinger('Failed to get user: User ID 1001 is not logged in or lingering\n', 1)).toEqual({ state: 'no' });
  });

  it('no systemd (our machines) or no loginctl: unavailable, with what it said', () => {
    const noSystemd = "System has not been booted with systemd as init system (PID 1). Can't operate.\nFailed to connect to bus: Host is down\n";
    expect(parseLinger(noSystemd, 1)).toEqual({ state: 'unavailable', reason: "System has not been booted with systemd as init system (PID 1). Can't operate." });
    expect(parseLinger('sh: 1: loginctl: not found\n', 127)).toEqual({ state: 'unavailable', reason: 'sh: 1: loginctl: not found' });
    expect(parseLinger('', 127)).toEqual({ state: 'unavailable', reason: 'loginctl is not installed' });
  });

  it('anything else is unknown, keeping the first line', () => {
    expect(parseLinger('Access denied\n', 1)).toEqual({ state: 'unknown', reason: 'Access denied' });
    expect(parseLinger('', null)).toEqual({ state: 'unknown', reason: 'loginctl ended with code ?' });
  });
});

describe("podman info --format '{{.Store.GraphDriverName}}'", () => {
  it('reads the driver, past warnings Podman prints first', () => {
    expect(parseGraphDriver('overlay\n')).toBe('overlay');
    expect(parseGraphDriver('vfs\n')).toBe('vfs');
    const warned = 'time="2026-12-04T10:00:00Z" level=warning msg="The cgroupv2 manager is set to systemd but there is no systemd user session available"\nvfs\n';
    expect(parseGraphDriver(warned)).toBe('vfs');
  });

  it('an error or no podman is null', () => {
    expect(parseGraphDriver('Error: cannot re-exec process: open /proc/self/exe: permission denied\n')).toBeNull();
    expect(parseGraphDriver('sh: 1: podman: not found\n')).toBeNull();
    expect(parseGraphDriver('')).toBeNull();
  });
});

describe('CDI scan', () => {
  it('reads nvidia-ctk cdi list and its version, and the spec files found', () => {
    const out = [
      '#ctk-version NVIDIA Container Toolkit CLI version 1.14.3',
      '#ctk-list',
      'INFO[0000] Found 3 CDI devices',
      'nvidia.com/gpu=0',
      'nvidia.com/gpu=GPU-6d6a8b9a-0b0e-1d3f-52a8-3f2b1c5e2d11',
      'nvidia.com/gpu=all',
      '#ctk-end',
      '#spec /etc/cdi/nvidia.yaml',
    ].join('\n');
    expect(parseCdiScan(out)).toEqual({
      ctkVersion: '1.14.3',
      ctkListed: true,
      ctkDevices: ['nvidia.com/gpu=0', 'nvidia.com/gpu=GPU-6d6a8b9a-0b0e-1d3f-52a8-3f2b1c5e2d11', 'nvidia.com/gpu=all'],
      specFiles: ['/etc/cdi/nvidia.yaml'],
    });
  });

  it('no toolkit and no files: nothing listed', () => {
    expect(parseCdiScan('')).toEqual({ ctkVersion: null, ctkListed: false, ctkDevices: [], specFiles: [] });
  });

  it('a toolkit that lists nothing (no spec) is listed with no devices; a spec file alone still counts', () => {
    expect(parseCdiScan('#ctk-version NVIDIA Container Toolkit CLI version 1.12.0\n#ctk-list\nINFO[0000] Found 0 CDI devices\n#ctk-end\n#spec /var/run/cdi/nvidia-gpu.json\n')).toEqual({
      ctkVersion: '1.12.0',
      ctkListed: true,
      ctkDevices: [],
      specFiles: ['/var/run/cdi/nvidia-gpu.json'],
    });
  });

  it('compares toolkit versions', () => {
    expect(versionAtLeast('1.12.0', '1.12')).toBe(true);
    expect(versionAtLeast('1.14.3', '1.12')).toBe(true);
    expect(versionAtLeast('1.11.9', '1.12')).toBe(false);
    expect(versionAtLeast('4.3.1', '4.4')).toBe(false);
    expect(versionAtLeast('5.0', '4.4')).toBe(true);
  });
});

describe('containers.conf init_path', () => {
  it('ignores the commented default Debian ships', () => {
    expect(initPathOf('[containers]\n# Path to the container-init binary\n#init_path = "/usr/libexec/podman/catatonit"\n')).toBeNull();
  });

  it('reads it from [containers] or [engine], [containers] winning; other tables do not count', () => {
    expect(initPathOf('[containers]\ninit_path = "/usr/bin/tini-static"\n')).toBe('/usr/bin/tini-static');
    expect(initPathOf("[engine]\n  init_path = '/opt/catatonit'  # our build\n")).toBe('/opt/catatonit');
    expect(initPathOf('[engine]\ninit_path = "/e"\n[containers]\ninit_path = "/c"\n')).toBe('/c');
    expect(initPathOf('[network]\ninit_path = "/nope"\n')).toBeNull();
    expect(initPathOf('[containers]\ninit_path = ""\n')).toBeNull();
  });

  it('scans the files in order: the last that sets one wins; tags inside a file do not count', () => {
    const out = [
      '#conf /usr/share/containers/containers.conf',
      '[containers]',
      '#init_path = "/usr/libexec/podman/catatonit"',
      '#libexec yes',
      '#conf-end',
      '#conf /etc/containers/containers.conf',
      '[containers]',
      'init_path = "/usr/bin/tini-static"',
      '#conf-end',
      '#conf /home/alice/.config/containers/containers.conf',
      '[engine]',
      'init_path = "/home/alice/bin/catatonit"',
      '#conf-end',
      '#libexec no',
      '#other /usr/bin/catatonit',
      '#pm dnf',
      '#user-conf',
    ].join('\n');
    const scan = parseInitScan(out);
    expect(scan).toEqual({
      confs: [
        { file: '/usr/share/containers/containers.conf', initPath: null },
        { file: '/etc/containers/containers.conf', initPath: '/usr/bin/tini-static' },
        { file: '/home/alice/.config/containers/containers.conf', initPath: '/home/alice/bin/catatonit' },
      ],
      libexecCatatonit: false,
      otherCatatonit: '/usr/bin/catatonit',
      packageManager: 'dnf',
      userConfExists: true,
      systemConfExists: false,
    });
    expect(effectiveInitPath(scan)).toEqual({ path: '/home/alice/bin/catatonit', file: '/home/alice/.config/containers/containers.conf' });
    expect(effectiveInitPath(parseInitScan('#libexec yes\n'))).toBeNull();
  });
});

describe('session and network probes', () => {
  it('reads the user, uid, XDG_RUNTIME_DIR (absent when unset) and /run/user/<uid>', () => {
    expect(parseSessionProbe('#user alice\n#uid 1001\n#xdg /run/user/1001\n#fallback owned\n')).toEqual({ user: 'alice', uid: 1001, runtimeDir: '/run/user/1001', fallback: 'owned' });
    expect(parseSessionProbe('#user alice\n#uid 1001\n#fallback missing\n')).toEqual({ user: 'alice', uid: 1001, runtimeDir: null, fallback: 'missing' });
    expect(parseSessionProbe('')).toEqual({ user: '', uid: null, runtimeDir: null, fallback: null });
  });

  it('reads the network helpers, /dev/net/tun and its mode', () => {
    expect(parseNetworkProbe('#tool slirp4netns /usr/bin/slirp4netns\n#tun-mode crw-------\n#tun denied\n#pm apt-get\n')).toEqual({
      tools: ['slirp4netns'],
      tun: 'denied',
      tunMode: 'crw-------',
      packageManager: 'apt-get',
    });
    expect(parseNetworkProbe('#tool slirp4netns /usr/bin/slirp4netns\n#tool pasta /usr/bin/pasta\n#tun-mode crw-rw-rw-\n#tun ok\n').tools).toEqual(['slirp4netns', 'pasta']);
    expect(parseNetworkProbe('#tun missing\n')).toEqual({ tools: [], tun: 'missing', tunMode: null, packageManager: null });
  });
});
