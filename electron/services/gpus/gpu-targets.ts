import type { ServerPhase, ServerState } from '../../shared/server-state';
import type { EngineHost, HostExecResult } from '../engines/container-engine';

/** Phases in which a server holds its host's GPUs (a queued or ended one holds none). */
const HOLDING: readonly ServerPhase[] = ['starting', 'booting', 'ready', 'training', 'unreachable', 'stopping'];

export function holdsGpus(state: Pick<ServerState, 'phase'>): boolean {
  return HOLDING.includes(state.phase);
}

/** One thing whose GPUs are sampled: an engine's host, or a Slurm job's allocation (asked through its login node). */
export interface GpuTarget {
  /** `engineId` of the first engine on the host; `engineId:jobId` for a Slurm job. */
  key: string;
  engineId: string;
  engineIds: string[];
  /** The Slurm job id, else null. */
  containerId: string | null;
  hostLabel: string;
  hostKind: EngineHost['kind'];
  exec: EngineHost['exec'];
  /** The checkpoint and experiment folders of its servers, whose disks are read in the same visit. */
  folders: string[];
}

export type HostExec = (script: string, options?: { timeoutMs?: number }) => Promise<HostExecResult>;

/**
 * What to sample now: every host that runs a server holding GPUs, once however many engines and servers
 * it has (local Docker and local Podman share this computer), and every running Slurm job (its GPUs are
 * on a compute node, reached only inside the job). Pure: the states and hosts are given.
 */
export function gpuTargets(states: readonly ServerState[], hostOf: (engineId: string) => EngineHost | null, foldersOf: (state: ServerState) => string[] = () => []): GpuTarget[] {
  const byHost = new Map<string, GpuTarget>();
  const jobs: GpuTarget[] = [];
  for (const state of states) {
    // The dry run is a simulation on this computer: it holds no GPU.
    if (!holdsGpus(state) || state.engineKind === 'dry-run') continue;
    const host = hostOf(state.engineId);
    if (!host) continue;
    if (state.engineKind === 'slurm') {
      jobs.push({ key: state.key, engineId: state.engineId, engineIds: [state.engineId], containerId: state.containerId, hostLabel: host.label, hostKind: host.kind, exec: host.exec.bind(host), folders: foldersOf(state) });
      continue;
    }
    const hostId = `${host.kind}:${host.label}`;
    const existing = byHost.get(hostId);
    if (existing) {
      if (!existing.engineIds.includes(state.engineId)) existing.engineIds.push(state.engineId);
      for (const folder of foldersOf(state)) if (!existing.folders.includes(folder)) existing.folders.push(folder);
      continue;
    }
    byHost.set(hostId, { key: state.engineId, engineId: state.engineId, engineIds: [state.engineId], containerId: null, hostLabel: host.label, hostKind: host.kind, exec: host.exec.bind(host), folders: foldersOf(state) });
  }
  return [...byHost.values(), ...jobs];
}
