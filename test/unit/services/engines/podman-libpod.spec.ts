import { describe, expect, it } from 'vitest';
import type { ContainerSpec } from '../../../../electron/services/engines/container-engine';
import { cdiDevicesOf, libpodSpecOf } from '../../../../electron/services/engines/podman-libpod';

const base: ContainerSpec = {
  name: 'agentswarm-10086',
  image: 'localhost/agentswarm-test/fake-swarm:1',
  cmd: ['ajet-swarm', 'start', '--swarm-port', '10086'],
  env: { NO_COLOR: '1' },
  labels: { 'io.agentswarm.managed': 'true', 'io.agentswarm.port': '10086' },
  network: { mode: 'host' },
  init: true,
  gpus: { mode: 'all' },
  shm: { mode: 'size', bytes: 64 * 1024 * 1024 },
  binds: [{ hostPath: '/data/models', containerPath: '/models', readOnly: true }],
};

describe('libpod SpecGenerator for a container spec', () => {
  it('asks for GPUs as CDI devices: all, or one per index', () => {
    expect(cdiDevicesOf({ mode: 'all' })).toEqual([{ path: 'nvidia.com/gpu=all' }]);
    expect(cdiDevicesOf({ mode: 'ids', ids: ['0', '2'] })).toEqual([{ path: 'nvidia.com/gpu=0' }, { path: 'nvidia.com/gpu=2' }]);
    expect(cdiDevicesOf({ mode: 'none' })).toEqual([]);
  });

  it('sets what the compat path sets: name, command, env, labels, init, host network, shm, binds, no restart', () => {
    expect(libpodSpecOf(base)).toEqual({
      name: 'agentswarm-10086',
      image: 'localhost/agentswarm-test/fake-swarm:1',
      command: ['ajet-swarm', 'start', '--swarm-port', '10086'],
      env: { NO_COLOR: '1' },
      labels: { 'io.agentswarm.managed': 'true', 'io.agentswarm.port': '10086' },
      init: true,
      netns: { nsmode: 'host' },
      shm_size: 64 * 1024 * 1024,
      mounts: [{ destination: '/models', source: '/data/models', type: 'bind', options: ['rbind', 'ro'] }],
      devices: [{ path: 'nvidia.com/gpu=all' }],
      restart_policy: 'no',
    });
  });

  it('publishes ports on their host address and shares the host IPC namespace when asked', () => {
    const spec = libpodSpecOf({
      ...base,
      network: { mode: 'publish', ports: [{ containerPort: 10086, hostIp: '127.0.0.1', hostPort: 20086 }] },
      shm: { mode: 'ipc-host' },
      binds: [{ hostPath: '/a', containerPath: '/b', readOnly: false }],
    });
    expect(spec.netns).toBeUndefined();
    expect(spec.portmappings).toEqual([{ host_ip: '127.0.0.1', host_port: 20086, container_port: 10086, protocol: 'tcp' }]);
    expect(spec.ipcns).toEqual({ nsmode: 'host' });
    expect(spec.shm_size).toBeUndefined();
    expect(spec.mounts).toEqual([{ destination: '/b', source: '/a', type: 'bind', options: ['rbind'] }]);
  });
});
