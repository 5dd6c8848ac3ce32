import type { Profile } from '../../shared/schemas-profiles';
import type { ServerState } from '../../shared/server-state';

/**
 * The folders whose disk the fleet watches for one server (issue 33's disk alert): where its checkpoints and
 * experiments are written on the host that runs it. A container profile mounts them from its checkpoint and
 * experiment folders; a Slurm job writes saved_experiments/ in its working folder (the home folder unless set);
 * a native server elsewhere writes in a folder the app does not know, so none is watched.
 */
export function diskFolders(profile: Pick<Profile, 'mode' | 'checkpointsDir' | 'experimentsDir' | 'slurm'> | undefined, engineKind: string): string[] {
  if (!profile) return [];
  if (engineKind === 'slurm') return [profile.slurm?.workDir ?? '~'];
  if (profile.mode === 'native') return [];
  return [...new Set([profile.checkpointsDir, profile.experimentsDir].filter((d): d is string => d !== null))];
}

/** The watched folders of a server, from its profile as the profile store has it now. */
export function serverDiskFolders(profiles: () => readonly Profile[], state: Pick<ServerState, 'engineKind' | 'container'>): string[] {
  const profileId = state.container.profileId;
  return diskFolders(profileId ? profiles().find((p) => p.id === profileId) : undefined, state.engineKind);
}
