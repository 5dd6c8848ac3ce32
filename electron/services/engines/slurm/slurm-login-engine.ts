import { engineIdOfServer, type ServerProfile } from '../../../shared/schemas-servers';
import type { SshConnection } from '../../ssh/ssh-connection';
import { SshHost } from '../engine-host';
import { SlurmEngine, type SlurmEngineOptions } from './slurm-engine';
import { slurmWording } from './slurm-wording';

/**
 * The cluster behind a login node (a server added as "Slurm (login node)"): jobs submitted over the server
 * session's current connection (`current` waits for a reconnect like the Docker engine does), their tunnels
 * through the same connection to node:port. The SlurmEngine keeps its own tunnel listeners; they re-open
 * channels on the new connection after a reconnect. `isShown`: whether a window shows this server (the queue poll's
 * pace; default: always).
 */
export function createSlurmLoginEngine(profile: ServerProfile, appVersion: string, current: () => Promise<SshConnection>, watch: Pick<SlurmEngineOptions, 'isShown' | 'eventPollMs' | 'hiddenPollMs' | 'portBase'> = {}): SlurmEngine {
  const target = `${profile.username}@${profile.host}:${profile.port}`;
  return new SlurmEngine({
    summary: { id: engineIdOfServer(profile.id), kind: 'slurm', label: profile.label, endpoint: `ssh://${target} (Slurm login node)` },
    wording: slurmWording(profile.label, profile.username),
    host: new SshHost(`${profile.label} (${target})`, current),
    openChannel: async (address, port) => (await current()).forwardOut(address, port),
    appVersion,
    ...watch,
  });
}
