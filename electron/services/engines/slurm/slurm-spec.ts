import { AppError } from '../../../shared/errors';
import { SlurmJobOptions } from '../../../shared/schemas-slurm';
import { LABEL_PROFILE, type ContainerSpec } from '../container-engine';

// A container spec as a Slurm job: the job folder's key and the job options (split from slurm-engine.ts, which
// submits them).

export const PROFILE_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The job folder's key for a spec: its profile when it names one, else its name made Slurm- and folder-safe. */
export function jobKeyOf(spec: Pick<ContainerSpec, 'name' | 'labels'>): string {
  const profile = spec.labels[LABEL_PROFILE];
  if (profile && PROFILE_ID.test(profile)) return profile;
  const key = spec.name
    .toLowerCase()
    .replace(/^agentswarm-/, '')
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  if (!PROFILE_ID.test(key)) throw new AppError('VALIDATION_FAILED', `"${spec.name}" cannot name a Slurm job: use letters, digits and "-".`);
  return key;
}

/** The job options of a spec: its own, else defaults for its runtime (native: its activate line; container: Podman with its image). */
export function jobOptionsOf(spec: ContainerSpec): SlurmJobOptions {
  // The job script runs `ajet-swarm start --swarm-port <the port it chose on the node>` itself: any other command would be silently replaced.
  if (spec.cmd.length > 0 && (spec.cmd[0] !== 'ajet-swarm' || spec.cmd[1] !== 'start')) {
    throw new AppError('VALIDATION_FAILED', `A Slurm job runs the swarm server only (ajet-swarm start), not "${spec.cmd.join(' ')}".`);
  }
  if (spec.batch) return spec.batch;
  // No batch options: GPU ids count as that many GPUs of any type; "all" as one (a job cannot ask for a node's every GPU).
  const gpus = spec.gpus.mode === 'ids' ? { flag: 'gres' as const, count: spec.gpus.ids.length } : spec.gpus.mode === 'all' ? { flag: 'gres' as const, count: 1 } : null;
  const run = spec.runtime === 'native' ? { mode: 'native' as const, activate: spec.nativeActivate ?? null } : { mode: 'podman' as const, image: spec.image };
  const parsed = SlurmJobOptions.safeParse({ run, gpus });
  if (!parsed.success) throw new AppError('VALIDATION_FAILED', `The Slurm job cannot be built from this spec: ${parsed.error.issues[0]?.message ?? 'invalid options'}.`);
  return parsed.data;
}
