import { PORT_MAX, SWARM_DEFAULT_PORT } from '../../../electron/shared/defaults';
import {
  LocalFilePath,
  RemoteDockerAccess,
  ServerProfileInput,
  SshHostName,
  SshPort,
  SshUserName,
  type SshAuthMethod,
  type SshJumpHost,
} from '../../../electron/shared/schemas-servers';
import type { MessageKey } from './i18n';

/**
 * The "Add server" form as text fields, and its checks. Each check reuses the shared zod schema of
 * its field, so the form refuses exactly what `servers:add` would refuse, but answers with a
 * translatable message that names the field.
 */
export interface ServerDraft {
  label: string;
  host: string;
  port: string;
  username: string;
  /** All four ways of logging in, in the order they are tried; one switched off is not tried. */
  auth: { method: SshAuthMethod; enabled: boolean }[];
  /** One path a line. */
  identityFiles: string;
  identitiesOnly: boolean;
  /** One hop a line, `user@host:port` (user and port optional), first hop first. */
  jumps: string;
  dockerTransport: 'socket' | 'dial-stdio' | 'user-socket';
  socketPath: string;
  tunnelLocalPort: string;
  importedFrom: string | null;
  /** Vault secrets used before asking (null: asked when needed). */
  passwordSecretId: string | null;
  passphraseSecretId: string | null;
}

export type ServerField = 'label' | 'host' | 'port' | 'username' | 'authMethods' | 'identityFiles' | 'jumps' | 'socketPath' | 'tunnelLocalPort';

export type FieldErrors = Partial<Record<ServerField, MessageKey>>;

export const ALL_AUTH_METHODS: readonly SshAuthMethod[] = ['agent', 'key', 'password', 'keyboard-interactive'];

export function emptyDraft(): ServerDraft {
  return {
    label: '',
    host: '',
    port: '22',
    username: '',
    auth: ALL_AUTH_METHODS.map((method) => ({ method, enabled: true })),
    identityFiles: '',
    identitiesOnly: false,
    jumps: '',
    dockerTransport: 'socket',
    socketPath: '/var/run/docker.sock',
    tunnelLocalPort: String(SWARM_DEFAULT_PORT),
    importedFrom: null,
    passwordSecretId: null,
    passphraseSecretId: null,
  };
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function formatJump(jump: Pick<SshJumpHost, 'host' | 'port' | 'username'>): string {
  return `${jump.username}@${formatHost(jump.host)}${jump.port === 22 ? '' : `:${jump.port}`}`;
}

/** A profile (saved, or read from ~/.ssh/config) as the form shows it, e.g. to edit it. */
export function draftFromProfile(profile: ServerProfileInput): ServerDraft {
  return {
    label: profile.label,
    host: profile.host,
    port: String(profile.port),
    username: profile.username,
    auth: [
      ...profile.authMethods.map((method) => ({ method, enabled: true })),
      ...ALL_AUTH_METHODS.filter((method) => !profile.authMethods.includes(method)).map((method) => ({ method, enabled: false })),
    ],
    identityFiles: profile.identityFiles.join('\n'),
    identitiesOnly: profile.identitiesOnly,
    jumps: profile.jumps.map(formatJump).join('\n'),
    dockerTransport: profile.docker.transport,
    socketPath: profile.docker.socketPath,
    tunnelLocalPort: String(profile.tunnelLocalPort),
    importedFrom: profile.importedFrom,
    passwordSecretId: profile.passwordSecretId ?? null,
    passphraseSecretId: profile.passphraseSecretId ?? null,
  };
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

function parseWhole(text: string): number | null {
  const trimmed = text.trim();
  return /^\d{1,6}$/.test(trimmed) ? Number(trimmed) : null;
}

/** `user@host:port`, `host`, `[::1]:2222`; the user defaults to the server's own user. */
const JUMP = /^(?:([^@\s]+)@)?(\[[^\]\s]+\]|[^:@\s]+)(?::(\d{1,5}))?$/;

export function parseJumps(text: string, defaultUser: string, keep: readonly SshJumpHost[] = []): SshJumpHost[] | null {
  const hops: SshJumpHost[] = [];
  for (const line of lines(text)) {
    const match = JUMP.exec(line);
    if (!match) return null;
    const host = (match[2] ?? '').replace(/^\[|\]$/g, '');
    const port = match[3] === undefined ? 22 : Number(match[3]);
    const username = match[1] ?? defaultUser.trim();
    if (!SshHostName.safeParse(host).success || !SshPort.safeParse(port).success || !SshUserName.safeParse(username).success) {
      return null;
    }
    // Key files of a hop come from ~/.ssh/config and have no field here: an edit keeps them.
    const earlier = keep.find((hop) => hop.host === host && hop.port === port && hop.username === username);
    hops.push({ host, port, username, identityFiles: earlier ? [...earlier.identityFiles] : [] });
  }
  return hops;
}

/**
 * Checks every field; `profile` is set only when all pass. `keepJumps` are the hops of the profile
 * being edited, whose key files the form does not show.
 */
export function checkDraft(draft: ServerDraft, keepJumps: readonly SshJumpHost[] = []): { errors: FieldErrors; profile: ServerProfileInput | null } {
  const errors: FieldErrors = {};
  if (draft.label.trim() === '') errors.label = 'serverForm.error.label';
  else if (draft.label.trim().length > 64) errors.label = 'serverForm.error.labelLong';
  if (draft.host.trim() === '') errors.host = 'serverForm.error.hostRequired';
  else if (!SshHostName.safeParse(draft.host).success) errors.host = 'serverForm.error.host';
  const port = parseWhole(draft.port);
  if (port === null || !SshPort.safeParse(port).success) errors.port = 'serverForm.error.port';
  if (draft.username.trim() === '') errors.username = 'serverForm.error.userRequired';
  else if (!SshUserName.safeParse(draft.username).success) errors.username = 'serverForm.error.user';
  const authMethods = draft.auth.filter((entry) => entry.enabled).map((entry) => entry.method);
  if (authMethods.length === 0) errors.authMethods = 'serverForm.error.authMethods';
  const identityFiles = lines(draft.identityFiles);
  if (identityFiles.length > 8 || identityFiles.some((path) => !LocalFilePath.safeParse(path).success)) {
    errors.identityFiles = 'serverForm.error.identityFiles';
  }
  const jumps = parseJumps(draft.jumps, draft.username, keepJumps);
  if (jumps === null || jumps.length > 8) errors.jumps = 'serverForm.error.jumps';
  const docker = RemoteDockerAccess.safeParse({ transport: draft.dockerTransport, socketPath: draft.socketPath.trim() });
  if (!docker.success) errors.socketPath = 'serverForm.error.socketPath';
  const tunnelLocalPort = parseWhole(draft.tunnelLocalPort);
  if (tunnelLocalPort === null || tunnelLocalPort < 1024 || tunnelLocalPort > PORT_MAX) errors.tunnelLocalPort = 'serverForm.error.tunnelPort';
  if (Object.keys(errors).length > 0 || !docker.success) return { errors, profile: null };
  // The whole profile through the shared schema once more: the form and the backend cannot drift.
  const parsed = ServerProfileInput.safeParse({
    label: draft.label.trim(),
    host: draft.host.trim(),
    port,
    username: draft.username.trim(),
    authMethods,
    identityFiles,
    identitiesOnly: draft.identitiesOnly,
    jumps: jumps ?? [],
    docker: docker.data,
    tunnelLocalPort,
    importedFrom: draft.importedFrom,
    // Absent when not chosen (an edit that clears one saves the profile without it).
    ...(draft.passwordSecretId ? { passwordSecretId: draft.passwordSecretId } : {}),
    ...(draft.passphraseSecretId ? { passphraseSecretId: draft.passphraseSecretId } : {}),
  });
  return parsed.success ? { errors, profile: parsed.data } : { errors: { label: 'serverForm.error.other' }, profile: null };
}

/** The fields in the order the form shows them: the first with an error takes focus on submit. */
export const FIELD_ORDER: readonly ServerField[] = [
  'label',
  'host',
  'port',
  'username',
  'authMethods',
  'identityFiles',
  'jumps',
  'socketPath',
  'tunnelLocalPort',
];
