import type Docker from 'dockerode';
import type { ContainerSpec, GpuRequest } from './container-engine';
import { dialJson, LIBPOD_API } from './engine-product';

/**
 * Containers created through Podman's own (libpod) API, for what its Docker-compatible API cannot
 * say: GPUs. The compat API silently drops `DeviceRequests` (the container would run without GPUs)
 * and treats `Devices: nvidia.com/gpu=all` as a file path; only libpod's SpecGenerator takes CDI
 * device names. Everything else is set as the compat path sets it, so a container made here lists,
 * inspects and is found again exactly like one made there (labels, init, network, shm, binds).
 */

/** The subset of Podman's SpecGenerator (pkg/specgen) the app sets. */
export interface LibpodSpec {
  name: string;
  image: string;
  command: string[];
  env: Record<string, string>;
  labels: Record<string, string>;
  init: boolean;
  netns?: { nsmode: 'host' };
  portmappings?: { host_ip: string; host_port: number; container_port: number; protocol: 'tcp' }[];
  shm_size?: number;
  ipcns?: { nsmode: 'host' };
  mounts: { destination: string; source: string; type: 'bind'; options: string[] }[];
  devices: { path: string }[];
  restart_policy: 'no';
}

/** CDI device names for a GPU request: `nvidia.com/gpu=all`, or one per index/UUID (`nvidia.com/gpu=0`). */
export function cdiDevicesOf(gpus: GpuRequest): { path: string }[] {
  if (gpus.mode === 'all') return [{ path: 'nvidia.com/gpu=all' }];
  if (gpus.mode === 'ids') return gpus.ids.map((id) => ({ path: `nvidia.com/gpu=${id}` }));
  return [];
}

/** The SpecGenerator for an engine-neutral spec, equal in effect to the compat path's `docker create`. */
export function libpodSpecOf(spec: ContainerSpec): LibpodSpec {
  return {
    name: spec.name,
    image: spec.image,
    command: spec.cmd,
    env: spec.env,
    labels: spec.labels,
    init: spec.init,
    // Host networking as the compat path's NetworkMode "host"; published ports are left to Podman's
    // default network (bridge rootful, slirp4netns rootless), which is what compat's "bridge" picks.
    ...(spec.network.mode === 'host'
      ? { netns: { nsmode: 'host' as const } }
      : { portmappings: spec.network.ports.map((p) => ({ host_ip: p.hostIp, host_port: p.hostPort, container_port: p.containerPort, protocol: 'tcp' as const })) }),
    ...(spec.shm.mode === 'size' ? { shm_size: spec.shm.bytes } : { ipcns: { nsmode: 'host' as const } }),
    mounts: spec.binds.map((b) => ({ destination: b.containerPath, source: b.hostPath, type: 'bind' as const, options: b.readOnly ? ['rbind', 'ro'] : ['rbind'] })),
    devices: cdiDevicesOf(spec.gpus),
    // As the compat path: a crash must stay visible, never be hidden by a restart loop.
    restart_policy: 'no',
  };
}

/** POST /libpod/containers/create; the new container's id. Errors keep dockerode's shape (`statusCode`, `json`). */
export async function createLibpodContainer(docker: Docker, spec: ContainerSpec): Promise<string> {
  const created = await dialJson<{ Id?: string }>(docker, {
    path: `${LIBPOD_API}/containers/create`,
    method: 'POST',
    body: libpodSpecOf(spec),
    statusCodes: { 201: true, 400: 'bad parameter', 404: 'no such image', 409: 'conflict', 500: 'server error' },
  });
  if (!created?.Id) throw new Error('Podman created the container but did not say its id');
  return created.Id;
}
