import type { EngineHealth, EngineKind, EngineProduct } from '../../shared/schemas';
import {
  DOCKER_ONLY_DOCTOR_CHECKS,
  DoctorCheckId,
  PODMAN_DOCTOR_CHECKS,
  ROOTLESS_PODMAN_DOCTOR_CHECKS,
  SLURM_DOCTOR_CHECKS,
  type Profile,
} from '../../shared/schemas-profiles';
import { needsEngine, type Check, type CheckContext } from './check-kit';
import { diskSpace, dockerDesktopVm, engineReachable, gpuRuntime, imagePresent, socketPermission } from './engine-checks';
import { gpuHost, hostDirs, modelDir, nativeAjet, portFree, shm } from './host-checks';
import { podmanCdi, podmanInit } from './podman-checks';
import { podmanLinger, podmanNetwork, podmanRuntimeDir, podmanStorage } from './podman-rootless-checks';
import { slurmGpus, slurmHome, slurmLogin, slurmPartition, slurmSubmit, slurmTime } from './slurm-checks';

/** Every check there is; a report lists those that apply to its engine, in the order of `DoctorCheckId`. */
export const DOCTOR_CHECKS: Record<DoctorCheckId, Check> = {
  'engine-reachable': engineReachable,
  'socket-permission': socketPermission,
  'docker-desktop-vm': needsEngine(dockerDesktopVm),
  'gpu-host': gpuHost,
  'gpu-runtime': needsEngine(gpuRuntime),
  'podman-cdi': podmanCdi,
  'disk-space': needsEngine(diskSpace),
  image: needsEngine(imagePresent),
  'model-dir': modelDir,
  'host-dirs': hostDirs,
  port: portFree,
  shm,
  'podman-init': podmanInit,
  'podman-linger': podmanLinger,
  'podman-runtime-dir': podmanRuntimeDir,
  'podman-storage': podmanStorage,
  'podman-network': podmanNetwork,
  'native-ajet': nativeAjet,
  'slurm-login': slurmLogin,
  'slurm-partition': slurmPartition,
  'slurm-gpus': slurmGpus,
  'slurm-time': slurmTime,
  'slurm-submit': slurmSubmit,
  'slurm-home': slurmHome,
};

/** What decides which checks a report lists. */
export interface CheckScope {
  product: EngineProduct | null;
  rootless: boolean | null;
  mode: Profile['mode'];
  /** A Slurm login node: only the Slurm checks apply. */
  slurm?: boolean;
}

/** What answers on the engine: its own word first (a "Docker" server that is really Podman), else its kind. */
export function productOf(kind: EngineKind, health: EngineHealth | null): EngineProduct | null {
  if (health?.product) return health.product;
  if (kind === 'podman') return 'podman';
  if (kind === 'local-docker' || kind === 'ssh-docker') return 'docker';
  return null;
}

const has = (list: readonly DoctorCheckId[], id: DoctorCheckId): boolean => list.includes(id);

/**
 * Whether a check belongs in the report: a row that could only ever say "does not apply" on this
 * engine is left out rather than shown as skipped (a Docker report stays as it was; a Podman one
 * never gives Docker's advice). Rootless checks stay in when rootlessness is unknown: they say so.
 */
export function appliesTo(id: DoctorCheckId, scope: CheckScope): boolean {
  if (has(SLURM_DOCTOR_CHECKS, id) || scope.slurm) return has(SLURM_DOCTOR_CHECKS, id) && scope.slurm === true;
  const podmanContainer = scope.product === 'podman' && scope.mode === 'container';
  if (has(DOCKER_ONLY_DOCTOR_CHECKS, id)) return scope.product !== 'podman';
  if (has(PODMAN_DOCTOR_CHECKS, id)) return podmanContainer;
  if (has(ROOTLESS_PODMAN_DOCTOR_CHECKS, id)) return podmanContainer && scope.rootless !== false;
  return true;
}

export function plannedChecks(scope: CheckScope): [DoctorCheckId, Check][] {
  return DoctorCheckId.options.filter((id) => appliesTo(id, scope)).map((id) => [id, DOCTOR_CHECKS[id]]);
}

/**
 * The scope of one run. Asking the engine is bounded by `timeoutMs` (a hung engine must not hold
 * up the whole report): past it, the engine's kind decides and rootlessness stays unknown.
 */
export async function scopeOf(context: CheckContext, timeoutMs: number): Promise<CheckScope> {
  const mode = context.profile.mode;
  // The engine's kind is enough: nothing needs asking.
  if (context.engine.summary.kind === 'slurm') return { product: null, rootless: null, mode, slurm: true };
  let timer: NodeJS.Timeout | undefined;
  const fallback: CheckScope = { product: productOf(context.engine.summary.kind, null), rootless: null, mode };
  const deadline = new Promise<CheckScope>((resolve) => {
    timer = setTimeout(() => resolve(fallback), timeoutMs);
  });
  const asked = (async (): Promise<CheckScope> => {
    const product = await context.product();
    // Rootlessness matters only for Podman's own checks; Docker engines are not asked (nor their hosts).
    const rootless = product === 'podman' && mode === 'container' ? await context.rootless() : null;
    return { product, rootless, mode };
  })().catch(() => fallback);
  try {
    return await Promise.race([asked, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
