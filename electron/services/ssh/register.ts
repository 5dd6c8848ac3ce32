import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DomainModule, ServiceContext } from '../domain';
import type { SwarmReading } from '../swarm/watch-types';
import { ServerManager, type SessionTuning } from './server-manager';
import type { SshConnection } from './ssh-connection';

export interface ServersOptions {
  dataDir: string;
  /** The app's known_hosts (default ~/.ssh/known_hosts, like the `ssh` command). */
  knownHostsPath?: string;
  /** The ssh config listed for import (default ~/.ssh/config). */
  configPath?: string;
  /** Where SSH_AUTH_SOCK is read (default process.env). */
  env?: NodeJS.ProcessEnv;
  tuning?: SessionTuning;
  /** The swarm monitor's last poll of a tunnel URL (bound late: the swarm domain is built after this one). */
  latestReading?: (url: string) => SwarmReading | null;
}

export interface ServersModule extends DomainModule<'servers'> {
  /** The main process reports resume from sleep or a network change. */
  systemResumed(): void;
  /** A server's connection once it is up, and its label (rollout workers on SSH hosts, issue 34). */
  connectionOf(serverId: string, timeoutMs?: number): Promise<SshConnection>;
  labelOf(serverId: string): string;
}

/**
 * `servers:*`: remote servers over SSH, each a live session with its Docker engine in the registry
 * and a self-healing swarm tunnel. At start, connects every saved server in the background.
 */
export function registerServers(context: ServiceContext, options: ServersOptions): ServersModule {
  const manager = new ServerManager({
    dataDir: options.dataDir,
    engines: context.engines,
    events: context.events,
    logger: context.logger,
    knownHostsPath: options.knownHostsPath ?? join(homedir(), '.ssh', 'known_hosts'),
    sshConfigPath: options.configPath ?? join(homedir(), '.ssh', 'config'),
    env: options.env ?? process.env,
    ...(options.tuning ? { tuning: options.tuning } : {}),
    vault: context.vault,
    appVersion: context.version,
    ...(options.latestReading ? { latestReading: options.latestReading } : {}),
    // A Slurm login node's queue poll slows down while no page is shown (issue 31).
    isShown: () => context.visibility.shown(),
  });
  // "Used by" in Settings → Secrets.
  context.vault.addUsageSource(() =>
    manager.list().flatMap(({ profile }) => [
      ...(profile.passwordSecretId ? [{ secretId: profile.passwordSecretId, label: `server ${profile.label} (password)` }] : []),
      ...(profile.passphraseSecretId ? [{ secretId: profile.passphraseSecretId, label: `server ${profile.label} (key passphrase)` }] : []),
    ]),
  );
  return {
    handlers: {
      'servers:list': async () => manager.list(),
      'servers:add': async (input) => manager.add(input),
      'servers:update': async ({ serverId, profile }) => manager.update(serverId, profile),
      'servers:remove': async ({ serverId }) => {
        await manager.remove(serverId);
        return { removed: true as const };
      },
      'servers:connect': async ({ serverId }) => manager.connect(serverId),
      'servers:disconnect': async ({ serverId }) => manager.disconnect(serverId),
      'servers:test': async ({ serverId }) => manager.test(serverId),
      'servers:trust-host-key': async ({ serverId, fingerprint }) => manager.trustHostKey(serverId, fingerprint),
      'servers:replace-host-key': async ({ serverId, fingerprint }) => manager.replaceHostKey(serverId, fingerprint),
      'servers:answer-prompt': async ({ promptId, value }) => {
        manager.answerPrompt(promptId, value);
        return { accepted: true as const };
      },
      'servers:ssh-config': async () => manager.sshConfig(),
    },
    start: () => manager.start(),
    dispose: () => manager.dispose(),
    systemResumed: () => manager.systemResumed(),
    connectionOf: (serverId, timeoutMs) => manager.connectionOf(serverId, timeoutMs),
    labelOf: (serverId) => manager.labelOf(serverId),
  };
}
