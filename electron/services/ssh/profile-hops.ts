import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ServerProfile, SshAuthMethod } from '../../shared/schemas-servers';
import type { SshAuthAttempt } from './ssh-auth';
import { expandProxyCommand } from './proxy-command';
import type { ChainHop } from './ssh-chain';

/** The Windows OpenSSH agent's named pipe (the Windows "OpenSSH Authentication Agent" service). */
export const WINDOWS_OPENSSH_AGENT_PIPE = '\\\\.\\pipe\\openssh-ssh-agent';

/** The key files OpenSSH tries when none is configured, in its order (ones that do not exist are left out). */
export const DEFAULT_IDENTITY_FILES = ['~/.ssh/id_ed25519', '~/.ssh/id_ecdsa', '~/.ssh/id_rsa'];

export interface HopsEnvironment {
  platform?: NodeJS.Platform;
  /** Whether a file (or, on Windows, the agent's named pipe) exists; tests pass their own. */
  exists?: (path: string) => boolean;
}

export function expandHome(path: string, homeDir: string): string {
  return path === '~' ? homeDir : path.startsWith('~/') ? join(homeDir, path.slice(2)) : path;
}

/**
 * Where ssh-agent is: SSH_AUTH_SOCK; on Windows without it, the OpenSSH agent's pipe when it exists,
 * else Pageant (ssh2 talks to both). Null with a reason when there is none.
 */
/** Why an auth method was not offered, as data (the connection test's fix says it in the user's language). */
export const SKIPPED_AGENT_NO_SOCKET = 'ssh-agent: skipped, SSH_AUTH_SOCK is not set (no agent running for this app)';
export const SKIPPED_AGENT_IDENTITIES_ONLY = 'ssh-agent: skipped, IdentitiesOnly is set, so only the listed key files are offered';
export const SKIPPED_KEY_FILE_PREFIX = 'key file: skipped';

function agentSocket(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, exists: (path: string) => boolean): { socket: string } | { reason: string } {
  if (env.SSH_AUTH_SOCK) return { socket: env.SSH_AUTH_SOCK };
  if (platform === 'win32') return { socket: exists(WINDOWS_OPENSSH_AGENT_PIPE) ? WINDOWS_OPENSSH_AGENT_PIPE : 'pageant' };
  return { reason: SKIPPED_AGENT_NO_SOCKET };
}

interface HopKeys {
  identityFiles: string[];
  identitiesOnly: boolean;
}

/**
 * The auth attempts of one hop, in the profile's order. IdentitiesOnly (chosen simplification): the
 * agent is not used at all when the profile lists key files, so only those files are offered (OpenSSH
 * would still use an agent key whose public half matches a listed file; we read the file instead and
 * ask for its passphrase when it is encrypted). Without listed files IdentitiesOnly changes nothing.
 */
function attemptsFor(
  methods: readonly SshAuthMethod[],
  keys: HopKeys,
  env: NodeJS.ProcessEnv,
  homeDir: string,
  platform: NodeJS.Platform,
  exists: (path: string) => boolean,
): { auth: SshAuthAttempt[]; skippedAuth: string[] } {
  const auth: SshAuthAttempt[] = [];
  const skippedAuth: string[] = [];
  for (const method of methods) {
    switch (method) {
      case 'agent': {
        if (keys.identitiesOnly && keys.identityFiles.length > 0) {
          skippedAuth.push(SKIPPED_AGENT_IDENTITIES_ONLY);
          break;
        }
        const agent = agentSocket(env, platform, exists);
        if ('socket' in agent) auth.push({ kind: 'agent', socket: agent.socket });
        else skippedAuth.push(agent.reason);
        break;
      }
      case 'key': {
        const listed = keys.identityFiles.map((f) => expandHome(f, homeDir));
        const files = listed.length > 0 ? listed : DEFAULT_IDENTITY_FILES.map((f) => expandHome(f, homeDir)).filter((f) => exists(f));
        if (files.length === 0) skippedAuth.push(`${SKIPPED_KEY_FILE_PREFIX}, none listed and none of ${DEFAULT_IDENTITY_FILES.join(', ')} exists`);
        // A listed file that is missing stays in: trying it gives the typed "Cannot read the key file" error.
        for (const path of files) auth.push({ kind: 'key', path });
        break;
      }
      case 'password':
        auth.push({ kind: 'password' });
        break;
      case 'keyboard-interactive':
        auth.push({ kind: 'keyboard-interactive' });
        break;
    }
  }
  return { auth, skippedAuth };
}

/**
 * The chain to connect for a server profile: its ProxyJump hosts first, the server last. Each hop
 * logs in with the profile's `authMethods` order; a jump host uses its own key files and the
 * profile's IdentitiesOnly.
 */
export function hopsOfProfile(
  profile: ServerProfile,
  env: NodeJS.ProcessEnv = process.env,
  homeDir: string = homedir(),
  options: HopsEnvironment = {},
): ChainHop[] {
  const platform = options.platform ?? process.platform;
  const exists = options.exists ?? existsSync;
  const hop = (host: string, port: number, username: string, identityFiles: string[]): ChainHop => ({
    host,
    port,
    username,
    ...attemptsFor(profile.authMethods, { identityFiles, identitiesOnly: profile.identitiesOnly }, env, homeDir, platform, exists),
  });
  const target = hop(profile.host, profile.port, profile.username, profile.identityFiles);
  if (profile.proxyCommand && profile.jumps.length === 0) {
    target.proxyCommand = expandProxyCommand(profile.proxyCommand, {
      host: profile.host,
      port: profile.port,
      user: profile.username,
      alias: profile.importedFrom ?? profile.host,
      homeDir,
    });
  }
  return [...profile.jumps.map((j) => hop(j.host, j.port, j.username, j.identityFiles)), target];
}

const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** POSIX shell quoting: safe words stay as they are, anything else in single quotes. */
export function shellQuote(word: string): string {
  return SHELL_SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A path for the command line: `~/…` stays unquoted up to the slash so the user's shell expands it. */
function quotePath(path: string): string {
  return path.startsWith('~/') ? `~/${shellQuote(path.slice(2))}` : shellQuote(path);
}

function hostPort(host: string, port: number): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return port === 22 ? h : `${h}:${port}`;
}

/**
 * The OpenSSH command that does what the app's tunnel does, for the user to copy:
 * `ssh -N -L 127.0.0.1:<local>:127.0.0.1:<remote> [-J u@h:p,… | -o 'ProxyCommand=…'] [-o IdentitiesOnly=yes] [-i key] -p <port> user@host`.
 * Jump hosts' own key files cannot be given to -J; OpenSSH then uses the agent and its defaults for them.
 */
export function sshCommandOf(profile: ServerProfile, localPort: number, remotePort: number): string {
  const words = ['ssh', '-N', '-L', `127.0.0.1:${localPort}:127.0.0.1:${remotePort}`];
  if (profile.jumps.length > 0) {
    words.push('-J', shellQuote(profile.jumps.map((j) => `${j.username}@${hostPort(j.host, j.port)}`).join(',')));
  } else if (profile.proxyCommand) {
    // The command as the profile keeps it, tokens and all: ssh fills them in the same way the app does.
    words.push('-o', shellQuote(`ProxyCommand=${profile.proxyCommand}`));
  }
  if (profile.identitiesOnly) words.push('-o', 'IdentitiesOnly=yes');
  for (const file of profile.identityFiles) words.push('-i', quotePath(file));
  words.push('-p', String(profile.port), shellQuote(`${profile.username}@${profile.host}`));
  return words.join(' ');
}
