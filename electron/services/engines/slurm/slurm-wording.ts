import type { EngineWording } from '../engine-wording';

/**
 * The fixes for a Slurm cluster reached through its login node `server` as `user`: every command
 * runs there (sbatch, squeue, scancel), and nothing is pulled or installed by the app.
 */
export function slurmWording(server: string, user: string): EngineWording {
  return {
    product: 'Slurm',
    // A native job needs no image; a Podman job pulls its image on the compute node it lands on.
    pullImage: (image) => `A Podman job pulls ${image} on its compute node when it starts: check that the nodes behind ${server} can reach its registry (on ${server}: srun podman pull ${image}).`,
    unreachable: () => `Is Slurm installed on ${server}, with sbatch and squeue on ${user}'s PATH? Check with "sinfo" on ${server} (a "module load slurm" in ~/.bashrc may be needed).`,
    permissionDenied: () => `Slurm on ${server} refuses ${user}: ask the cluster's admins for an account and an association (sacctmgr show assoc user=${user}).`,
    noGpuRuntime: () => `No partition on ${server} offers GPUs to ${user}'s jobs (sinfo -o "%P %G" lists them): choose a partition with GPUs, or turn GPUs off.`,
  };
}
