import { describe, expect, it } from 'vitest';
import { engineGpusOf, engineInfoOf } from '../../../../electron/services/engines/docker-spec';

describe('engineInfoOf (GET /info → what the doctor reads)', () => {
  it('the test bed dockerd 20.10 (recorded): no NVIDIA runtime, no CDI', () => {
    const recorded = {
      OperatingSystem: 'Debian GNU/Linux 12 (bookworm)',
      OSType: 'linux',
      ServerVersion: '20.10.24+dfsg1',
      DockerRootDir: '/work/testbed-shared/docker/data',
      Runtimes: { 'io.containerd.runc.v2': { path: 'runc' }, 'io.containerd.runtime.v1.linux': { path: 'runc' }, runc: { path: 'runc' } },
      DefaultRuntime: 'runc',
      SecurityOptions: ['name=seccomp,profile=default'],
      DiscoveredDevices: null,
    };
    expect(engineInfoOf(recorded)).toEqual({
      operatingSystem: 'Debian GNU/Linux 12 (bookworm)',
      osType: 'linux',
      serverVersion: '20.10.24+dfsg1',
      rootDir: '/work/testbed-shared/docker/data',
      runtimes: ['io.containerd.runc.v2', 'io.containerd.runtime.v1.linux', 'runc'],
      defaultRuntime: 'runc',
      cdiDevices: [],
      rootless: false,
    });
  });

  it('a GPU host with the NVIDIA runtime and CDI devices (Docker 28 DiscoveredDevices), rootless', () => {
    const info = engineInfoOf({
      OperatingSystem: 'Ubuntu 24.04.1 LTS',
      Runtimes: { nvidia: { path: 'nvidia-container-runtime' }, runc: { path: 'runc' } },
      DefaultRuntime: 'runc',
      SecurityOptions: ['name=seccomp,profile=builtin', 'name=rootless', 'name=cgroupns'],
      DiscoveredDevices: [
        { Source: 'cdi', ID: 'nvidia.com/gpu=0' },
        { Source: 'cdi', ID: 'nvidia.com/gpu=all' },
        { Source: 'other', ID: 'x' },
      ],
    });
    expect(info.runtimes).toEqual(['nvidia', 'runc']);
    expect(info.cdiDevices).toEqual(['nvidia.com/gpu=0', 'nvidia.com/gpu=all']);
    expect(info.rootless).toBe(true);
    expect(info.rootDir).toBe('');
  });

  it('Docker Desktop says so in OperatingSystem', () => {
    expect(engineInfoOf({ OperatingSystem: 'Docker Desktop', OSType: 'linux' }).operatingSystem).toBe('Docker Desktop');
  });
});

describe('engineGpusOf (what the start form follows: GPUs for containers, issue 32)', () => {
  const info = (runtimes: string[], cdiDevices: string[]) => ({ operatingSystem: '', osType: 'linux', serverVersion: '', rootDir: '', runtimes, defaultRuntime: 'runc', cdiDevices, rootless: false });

  it('a laptop engine with runc only: no GPU runtime, no count', () => {
    expect(engineGpusOf(info(['runc', 'io.containerd.runc.v2'], []))).toEqual({ runtime: false, devices: null });
  });

  it('the NVIDIA runtime: GPUs, count unknown', () => {
    expect(engineGpusOf(info(['runc', 'nvidia'], []))).toEqual({ runtime: true, devices: null });
  });

  it('CDI devices: counted without the "all" alias', () => {
    expect(engineGpusOf(info(['crun'], ['nvidia.com/gpu=0', 'nvidia.com/gpu=1', 'nvidia.com/gpu=all', 'vendor.com/fpga=0']))).toEqual({ runtime: true, devices: 2 });
  });
});
