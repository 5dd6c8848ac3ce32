import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { ServerProfileInput, type SshConfigHost, type SshConfigListing } from '../../shared/schemas-servers';
import { SshConfigImport, type SshConfigOptions, type SshHostConfig } from './ssh-config-import';

/** A path under the home directory written as `~/…`, as a profile keeps it (portable, and readable). */
function homeRelative(path: string, homeDir: string): string {
  const home = homeDir.replace(/\/+$/, '');
  return path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path;
}

function profileDraft(alias: string, config: SshHostConfig, homeDir: string) {
  return {
    label: alias,
    host: config.hostName,
    port: config.port,
    username: config.user,
    identityFiles: config.identityFiles.map((f) => homeRelative(f, homeDir)),
    identitiesOnly: config.identitiesOnly,
    jumps: config.jumps.map((j) => ({
      host: j.hostName,
      port: j.port,
      username: j.user,
      identityFiles: j.identityFiles.map((f) => homeRelative(f, homeDir)),
    })),
    ...(config.proxyCommand ? { proxyCommand: config.proxyCommand } : {}),
    importedFrom: alias,
  };
}

/** "jumps.0.host: host must be …" → readable text for the problem column. */
function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

function hostOf(config: SshConfigImport, alias: string, homeDir: string): SshConfigHost {
  let resolved: SshHostConfig;
  try {
    resolved = config.resolve(alias);
  } catch (error) {
    return { alias, profile: null, problem: error instanceof AppError ? error.message : String(error) };
  }
  const parsed = ServerProfileInput.safeParse(profileDraft(alias, resolved, homeDir));
  if (!parsed.success) return { alias, profile: null, problem: `Host ${alias}: ${describeIssues(parsed.error.issues)}` };
  return { alias, profile: parsed.data, problem: null };
}

/**
 * The Host aliases of ~/.ssh/config (Includes and wildcard blocks applied), each as a server
 * profile ready to add, or with the reason it cannot be used as is. A missing file is no error
 * (`exists: false`); an unreadable one, or an Include loop, raises SSH_CONFIG_INVALID.
 */
export function listSshConfigHosts(options: SshConfigOptions = {}): SshConfigListing {
  const homeDir = options.homeDir ?? homedir();
  const path = resolve(options.path ?? join(homeDir, '.ssh', 'config'));
  if (!existsSync(path)) return { path, exists: false, hosts: [] };
  const config = new SshConfigImport({ ...options, path, homeDir });
  return { path, exists: true, hosts: config.aliases().map((alias) => hostOf(config, alias, homeDir)) };
}
