import type Docker from 'dockerode';
import type { ContainerSpec, EngineInfo, GpuRequest } from './container-engine';

/** Docker's DeviceRequests for a GPU request: `--gpus all` is Count -1, `--gpus '"device=0,1"'` names DeviceIDs. */
export function deviceRequestsOf(gpus: GpuRequest): Docker.DeviceRequest[] {
  if (gpus.mode === 'all') return [{ Driver: '', Count: -1, Capabilities: [['gpu']] }];
  if (gpus.mode === 'ids') return [{ Driver: '', DeviceIDs: gpus.ids, Capabilities: [['gpu']] }];
  return [];
}

/** `docker create` through the Docker API (also Podman's compat API, which takes the same body). */
export async function createCompatContainer(docker: Docker, spec: ContainerSpec): Promise<string> {
  const exposed: Record<string, object> = {};
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  if (spec.network.mode === 'publish') {
    for (const p of spec.network.ports) {
      exposed[`${p.containerPort}/tcp`] = {};
      bindings[`${p.containerPort}/tcp`] = [{ HostIp: p.hostIp, HostPort: String(p.hostPort) }];
    }
  }
  const container = await docker.createContainer({
    name: spec.name,
    Image: spec.image,
    Cmd: spec.cmd,
    Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
    Labels: spec.labels,
    ExposedPorts: exposed,
    HostConfig: hostConfigOf(spec, bindings),
  });
  return container.id;
}

/** The HostConfig of `docker run` for an engine-neutral spec. */
export function hostConfigOf(spec: ContainerSpec, bindings: Record<string, { HostIp: string; HostPort: string }[]>): Docker.HostConfig {
  return {
    Init: spec.init,
    NetworkMode: spec.network.mode === 'host' ? 'host' : 'bridge',
    PortBindings: bindings,
    ...(spec.shm.mode === 'size' ? { ShmSize: spec.shm.bytes } : { IpcMode: 'host' }),
    Binds: spec.binds.map((b) => `${b.hostPath}:${b.containerPath}${b.readOnly ? ':ro' : ''}`),
    DeviceRequests: deviceRequestsOf(spec.gpus),
    // No automatic restart: a crashed server comes back OFFLINE with its training state
    // gone, and a restart loop would hide the crash. An exited container (with its exit
    // code and logs) is the honest signal.
    RestartPolicy: { Name: 'no' },
  };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** `docker info` (GET /info) → what the doctor needs; tolerant of fields older engines or Podman leave out. */
export function engineInfoOf(info: Record<string, unknown>): EngineInfo {
  const runtimes = info.Runtimes && typeof info.Runtimes === 'object' ? Object.keys(info.Runtimes as object) : [];
  const cdi = Array.isArray(info.DiscoveredDevices)
    ? (info.DiscoveredDevices as { Source?: string; ID?: string }[]).filter((d) => d.Source === 'cdi' && typeof d.ID === 'string').map((d) => d.ID!)
    : [];
  return {
    operatingSystem: typeof info.OperatingSystem === 'string' ? info.OperatingSystem : '',
    osType: typeof info.OSType === 'string' ? info.OSType : '',
    serverVersion: typeof info.ServerVersion === 'string' ? info.ServerVersion : '',
    rootDir: typeof info.DockerRootDir === 'string' ? info.DockerRootDir : '',
    runtimes,
    defaultRuntime: typeof info.DefaultRuntime === 'string' ? info.DefaultRuntime : '',
    cdiDevices: cdi,
    rootless: strings(info.SecurityOptions).some((o) => o.includes('rootless')),
  };
}

/**
 * GPUs for containers as `docker info` shows them (issue 32): an NVIDIA runtime or NVIDIA CDI
 * devices; the count is the CDI GPUs (`nvidia.com/gpu=0`, not the `=all` alias), null without CDI.
 */
export function engineGpusOf(info: EngineInfo): { runtime: boolean; devices: number | null } {
  const cdi = info.cdiDevices.filter((d) => d.startsWith('nvidia.com/gpu=') && d !== 'nvidia.com/gpu=all');
  return { runtime: info.runtimes.includes('nvidia') || cdi.length > 0, devices: cdi.length > 0 ? cdi.length : null };
}
