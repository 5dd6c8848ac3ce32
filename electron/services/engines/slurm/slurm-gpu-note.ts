import type { ContainerSpec } from '../container-engine';

/**
 * Why the post-start GPU check did not look at a Slurm job's GPUs, when the job asked for some in its batch
 * options but the spec's own request is empty (a native run: the native side of the spec carries no GPUs).
 * null when there is nothing to say.
 */
export function slurmGpusUnchecked(spec: Pick<ContainerSpec, 'gpus' | 'batch'>): string | null {
  const gpus = spec.batch?.gpus;
  if (!gpus || gpus.count < 1 || spec.gpus.mode !== 'none') return null;
  return `Slurm allocated ${gpus.count} GPU${gpus.count === 1 ? '' : 's'} (--${gpus.flag}); nvidia-smi is run only for a GPU request of the spec itself, and a native job's spec has none, so its GPUs were not checked`;
}
