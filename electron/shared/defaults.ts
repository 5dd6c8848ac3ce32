/**
 * The swarm server's defaults and limits, in one place. The request schemas (`schemas.ts`), the
 * settings defaults, the renderer's form checks (`renderer/src/lib/validation.ts`) and the start
 * form all read them here, so the form cannot start with a value the backend would not choose, nor
 * accept one the backend would refuse.
 */

/** The AgentJet image the docs use (`ghcr.io/modelscope/agentjet:main`). */
export const SWARM_DEFAULT_IMAGE = 'ghcr.io/modelscope/agentjet:main';

/** The swarm server's HTTP port in AgentJet's docs and examples. */
export const SWARM_DEFAULT_PORT = 10086;

/**
 * On: the swarm server cannot train without GPUs, so it should fail fast (with "no GPU runtime")
 * where none exist rather than boot and fail later.
 */
export const SWARM_DEFAULT_GPUS = true;

/** Shared memory in GiB; the AgentJet docs use 32 (vLLM and NCCL need a large /dev/shm). */
export const SWARM_DEFAULT_SHM_GB = 32;

/** Loopback only: the swarm API has no authentication. */
export const SWARM_DEFAULT_NETWORK_MODE = 'publish' as const;

/** Ports below 1024 need root on the Docker host; 65535 is the last TCP port. */
export const PORT_MIN = 1024;
export const PORT_MAX = 65535;

/** Bytes in a GiB (shared memory, disk space). */
export const GIB = 1024 ** 3;

/** Shared memory range in whole GiB. */
export const SHM_GB_MIN = 1;
export const SHM_GB_MAX = 1024;

/** The URL the user's training code uses for a swarm server published on this machine's loopback. */
export function swarmUrlForPort(port: number): string {
  return `http://127.0.0.1:${port}`;
}
