import { PORT_MAX, SWARM_DEFAULT_PORT } from '../../../electron/shared/defaults';
import {
  LocalFilePath,
  PODMAN_ROOTFUL_SOCKET,
  ProxyCommand,
  proxyConflict,
  RemoteDockerAccess,
  ServerProfileInput,
  SshHostName,
  type RemoteEngineProduct,
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
  /** OpenSSH's ProxyCommand, tokens unexpanded (`ssh -W %h:%p bastion`); empty: none. Excludes `jumps`. */
  proxyCommand: string;
  /** What the user says the server runs (the engine's `/version` has the last word on the engine card); `slurm`: a login node. */
  engine: RemoteEngineProduct;
  /** How the app reaches that engine; which choices exist depends on `engine` (ACCESS_CHOICES). */
  access: EngineAccess;
  /** The path field: Docker's socket, or Podman's custom one. Kept while hidden, so switching back shows it again. */
  socketPath: string;
  tunnelLocalPort: string;
  importedFrom: string | null;
  /** Vault secrets used before asking (null: asked when needed). */
  passwordSecretId: string | null;
  passphraseSecretId: string | null;
}

/**
 * The form's ways of reaching the engine. Three map one to one onto the profile's `transport`;
 * `rootful-socket` is Podman's system socket, a `socket` whose path the user does not type.
 */
export type EngineAccess = 'socket' | 'dial-stdio' | 'user-socket' | 'rootful-socket';

/**
 * The choices per engine, recommended first: Podman on GPU servers is most often rootless. A Slurm login node
 * has none: the app submits jobs over the SSH connection itself, no engine socket is reached.
 */
export const ACCESS_CHOICES: Readonly<Record<RemoteEngineProduct, readonly EngineAccess[]>> = {
  docker: ['socket', 'dial-stdio'],
  podman: ['user-socket', 'rootful-socket', 'socket'],
  slurm: [],
};

/** The engine choices the form offers, in this order. */
export const ENGINE_CHOICES: readonly RemoteEngineProduct[] = ['docker', 'podman', 'slurm'];

/** Docker's socket as the shared schema defaults it (read from the schema, so the two cannot differ). */
export const DOCKER_DEFAULT_SOCKET: string = RemoteDockerAccess.parse({}).socketPath;

export type ServerField =
  | 'label'
  | 'host'
  | 'port'
  | 'username'
  | 'authMethods'
  | 'identityFiles'
  | 'jumps'
  | 'proxyCommand'
  | 'access'
  | 'socketPath'
  | 'tunnelLocalPort';

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
    proxyCommand: '',
    engine: 'docker',
    access: 'socket',
    socketPath: DOCKER_DEFAULT_SOCKET,
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
    proxyCommand: profile.proxyCommand ?? '',
    engine: profile.docker.engine,
    access: accessOfProfile(profile.docker),
    socketPath: shownPath(profile.docker),
    tunnelLocalPort: String(profile.tunnelLocalPort),
    importedFrom: profile.importedFrom,
    passwordSecretId: profile.passwordSecretId ?? null,
    passphraseSecretId: profile.passphraseSecretId ?? null,
  };
}

/** Podman's system socket is a choice of its own, not a typed path: the path field stays empty for it. */
function shownPath(docker: DockerAccess): string {
  return docker.engine === 'podman' && docker.socketPath === PODMAN_ROOTFUL_SOCKET ? '' : docker.socketPath;
}

/** The form's choice for a saved profile. A combination the schema refuses never gets saved; it is read as the engine's first choice. */
export function accessOfProfile(docker: DockerAccess): EngineAccess {
  if (docker.engine === 'slurm') return 'socket';
  if (docker.engine === 'podman') {
    if (docker.transport === 'socket') return docker.socketPath === PODMAN_ROOTFUL_SOCKET ? 'rootful-socket' : 'socket';
    return 'user-socket';
  }
  return docker.transport === 'dial-stdio' ? 'dial-stdio' : 'socket';
}

/** Empty or a path one of the engines offers by itself: replaced on a switch of engine, unlike a path the user typed. */
function isPresetPath(path: string): boolean {
  const trimmed = path.trim();
  return trimmed === '' || trimmed === DOCKER_DEFAULT_SOCKET || trimmed === PODMAN_ROOTFUL_SOCKET;
}

/**
 * The draft after the user picks another engine: its recommended access, except that a socket
 * path the user typed on purpose stays (and stays the chosen access when it was).
 */
export function switchEngine(draft: ServerDraft, engine: RemoteEngineProduct): ServerDraft {
  if (engine === draft.engine) return draft;
  const typed = !isPresetPath(draft.socketPath);
  // Slurm reaches no socket: the hidden path stays as it was, for a switch back.
  if (engine === 'slurm') return { ...draft, engine, access: 'socket' };
  if (engine === 'podman') {
    return { ...draft, engine, access: typed && draft.access === 'socket' ? 'socket' : 'user-socket', socketPath: typed ? draft.socketPath : '' };
  }
  return { ...draft, engine, access: 'socket', socketPath: typed ? draft.socketPath : DOCKER_DEFAULT_SOCKET };
}

/** True when the form shows the socket path field for this choice. */
export function asksForSocketPath(draft: Pick<ServerDraft, 'access' | 'engine'>): boolean {
  return draft.access === 'socket' && draft.engine !== 'slurm';
}


/**
 * The profile's `docker` block for the draft, or the field to blame. The schema's own messages
 * (English, naming transports) are never shown: each refusal becomes a translated field error.
 */
function accessOfDraft(draft: ServerDraft): { docker: DockerAccess } | { field: 'access' | 'socketPath'; error: MessageKey } {
  // The schema ignores a Slurm login node's transport: the default one is stored.
  if (draft.engine === 'slurm') return { docker: RemoteDockerAccess.parse({ engine: 'slurm' }) };
  const accessError: MessageKey = draft.engine === 'podman' ? 'serverForm.error.accessPodman' : 'serverForm.error.accessDocker';
  const pathError: MessageKey = draft.engine === 'podman' ? 'serverForm.error.socketPathPodman' : 'serverForm.error.socketPath';
  if (!ACCESS_CHOICES[draft.engine].includes(draft.access)) return { field: 'access', error: accessError };
  const typedPath = draft.socketPath.trim();
  const fallbackPath = draft.engine === 'podman' ? PODMAN_ROOTFUL_SOCKET : DOCKER_DEFAULT_SOCKET;
  const socketPath = asksForSocketPath(draft)
    ? typedPath
    : draft.access === 'rootful-socket'
      ? PODMAN_ROOTFUL_SOCKET
      : // A hidden field cannot show an error: send what it holds when valid (an edit keeps it), else the default.
        RemoteDockerAccess.shape.socketPath.safeParse(typedPath).success && typedPath !== ''
        ? typedPath
        : fallbackPath;
  const transport = draft.access === 'rootful-socket' ? 'socket' : draft.access;
  const parsed = RemoteDockerAccess.safeParse({ engine: draft.engine, transport, socketPath });
  if (parsed.success) return { docker: parsed.data };
  const onPath = parsed.error.issues.some((issue) => issue.path[0] === 'socketPath');
  return onPath ? { field: 'socketPath', error: pathError } : { field: 'access', error: accessError };
}

type DockerAccess = ServerProfileInput['docker'];

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
  const proxyCommand = draft.proxyCommand.trim();
  if (proxyCommand !== '' && !ProxyCommand.safeParse(proxyCommand).success) errors.proxyCommand = 'serverForm.error.proxyCommand';
  else if (proxyCommand !== '' && jumps !== null && proxyConflict({ jumps, proxyCommand })) errors.proxyCommand = 'serverForm.error.proxyAndJumps';
  const docker = accessOfDraft(draft);
  if ('field' in docker) errors[docker.field] = docker.error;
  const tunnelLocalPort = parseWhole(draft.tunnelLocalPort);
  if (tunnelLocalPort === null || tunnelLocalPort < 1024 || tunnelLocalPort > PORT_MAX) errors.tunnelLocalPort = 'serverForm.error.tunnelPort';
  if (Object.keys(errors).length > 0 || 'field' in docker) return { errors, profile: null };
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
    ...(proxyCommand !== '' ? { proxyCommand } : {}),
    docker: docker.docker,
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
  'proxyCommand',
  'access',
  'socketPath',
  'tunnelLocalPort',
];
