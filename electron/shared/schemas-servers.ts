import { z } from 'zod';
import { PORT_MAX, SWARM_DEFAULT_PORT } from './defaults';
import { ErrorCodes } from './errors';
import { PortHolder } from './port-holder';
import { SecretId } from './schemas-vault';

/**
 * Remote servers reached over SSH (issue 12). A server profile holds no secret: passwords,
 * passphrases and keyboard-interactive answers are asked for when needed and kept in memory
 * only (the credentials vault will hold them by reference later).
 */

/** A server's id: a slug chosen by the app when the server is added; its engine id is `ssh-<id>`. */
export const ServerId = z
  .string()
  .min(1)
  .max(48)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'server id must be lowercase letters, digits or "-"');

/** The engine id of a server's Docker engine in the EngineRegistry. */
export function engineIdOfServer(serverId: string): string {
  return `ssh-${serverId}`;
}

/** A host name or an IPv4/IPv6 address: no spaces, no shell characters, no leading "-" (never an ssh option). */
export const SshHostName = z
  .string()
  .trim()
  .min(1, 'host is required, e.g. gpu.example.org or 10.0.0.5')
  .max(253)
  .regex(/^[A-Za-z0-9_.:%[\]][A-Za-z0-9_.:%[\]-]*$/, 'host must be a host name or an IP address, e.g. gpu.example.org');

export const SshUserName = z
  .string()
  .trim()
  .min(1, 'user is required: the account you log in with on the server')
  .max(64)
  .regex(/^[A-Za-z0-9_.][A-Za-z0-9_.@-]*$/, 'user must be letters, digits, ".", "_", "@" or "-"');

export const SshPort = z
  .number({ error: 'SSH port must be a number between 1 and 65535' })
  .int('SSH port must be a whole number')
  .min(1, 'SSH port must be 1 or higher')
  .max(PORT_MAX, `SSH port must be ${PORT_MAX} or lower`);

/** Absolute path or `~/…` on this computer. */
export const LocalFilePath = z
  .string()
  .trim()
  .min(1)
  .max(1024)
  .regex(/^(~\/|\/|[A-Za-z]:[\\/])/, 'key file must be an absolute path or start with ~/');

/** The percent tokens a ProxyCommand may use (OpenSSH's meaning): host, port, remote user, alias, local home, local user, a literal %. */
export const PROXY_COMMAND_TOKENS = ['h', 'p', 'r', 'n', 'd', 'u', '%'] as const;

/**
 * OpenSSH's ProxyCommand: run through the user's shell with the tokens expanded; its stdin/stdout carry
 * the SSH connection (e.g. `cloudflared access ssh --hostname %h`, `ssh -W %h:%p bastion`).
 */
export const ProxyCommand = z
  .string()
  .trim()
  .min(1, 'ProxyCommand is empty: clear the field to connect directly')
  .max(2048)
  .refine((command) => !/[\r\n\0]/.test(command), 'ProxyCommand must be one line')
  .refine(
    (command) => [...command.matchAll(/%(.?)/g)].every((m) => (PROXY_COMMAND_TOKENS as readonly string[]).includes(m[1] ?? '')),
    'ProxyCommand may use only the tokens %h, %p, %r, %n, %d, %u and %%',
  );

/** The ways of logging in, tried in the order the profile lists them. */
export const SshAuthMethod = z.enum(['agent', 'key', 'password', 'keyboard-interactive']);

/** One ProxyJump hop (first hop first); each hop's host key is verified like the target's. */
export const SshJumpHost = z.object({
  host: SshHostName,
  port: SshPort.default(22),
  username: SshUserName,
  identityFiles: z.array(LocalFilePath).max(8).default([]),
});

/**
 * What the server runs: Docker, Podman's Docker-compatible API service, or `slurm`: the server is a
 * Slurm login node and swarm servers run as batch jobs submitted from it (the transport is not used).
 */
export const RemoteEngineProduct = z.enum(['docker', 'podman', 'slurm']);

/** Podman's rootful API socket (`systemctl enable --now podman.socket`). */
export const PODMAN_ROOTFUL_SOCKET = '/run/podman/podman.sock';

/**
 * How the app reaches the container engine on the server over the SSH connection. (The field is
 * called `docker` in stored profiles; it covers Podman too.)
 */
export const RemoteDockerAccess = z
  .object({
    /**
     * What the user said the server runs; the engine's `/version` decides between Docker and Podman (a "Docker"
     * that is Podman is shown as Podman). `slurm` reaches no engine socket: `transport` and `socketPath` are ignored.
     */
    engine: RemoteEngineProduct.default('docker'),
    /**
     * `socket`: the socket below over streamlocal; `dial-stdio`: `docker system dial-stdio` (rootless Docker,
     * contexts; Docker only); `user-socket`: the login user's rootless Podman socket, found on the server
     * (`podman info` or `$XDG_RUNTIME_DIR/podman/podman.sock`; Podman only).
     */
    transport: z.enum(['socket', 'dial-stdio', 'user-socket']).default('socket'),
    socketPath: z
      .string()
      .regex(/^\/[A-Za-z0-9_./-]*$/, 'engine socket must be an absolute path on the server, e.g. /var/run/docker.sock')
      .default('/var/run/docker.sock'),
  })
  .superRefine((access, ctx) => {
    if (access.engine === 'podman' && access.transport === 'dial-stdio') {
      ctx.addIssue({
        code: 'custom',
        path: ['transport'],
        message: 'Podman has no `docker system dial-stdio`: use its socket (rootful) or the user socket (rootless)',
      });
    }
    if (access.engine === 'docker' && access.transport === 'user-socket') {
      ctx.addIssue({
        code: 'custom',
        path: ['transport'],
        message: 'the user socket is rootless Podman\'s: for rootless Docker choose `dial-stdio` or its socket path',
      });
    }
  });

/** What the user enters to add a server (by hand or from ~/.ssh/config). */
export const ServerProfileInput = z.object({
  /** What the Servers page shows, e.g. "gpu-box". */
  label: z.string().trim().min(1, 'name is required, e.g. gpu-box').max(64),
  host: SshHostName,
  port: SshPort.default(22),
  username: SshUserName,
  /** Tried in this order; the default is OpenSSH's: agent, key files, password, keyboard-interactive. */
  authMethods: z.array(SshAuthMethod).min(1, 'choose at least one way to log in').default(['agent', 'key', 'password', 'keyboard-interactive']),
  identityFiles: z.array(LocalFilePath).max(8).default([]),
  /** Like OpenSSH's IdentitiesOnly: offer only the listed key files, not every key in the agent. */
  identitiesOnly: z.boolean().default(false),
  jumps: z.array(SshJumpHost).max(8).default([]),
  /**
   * A command whose stdin/stdout is the way to the server instead of TCP (OpenSSH's ProxyCommand); absent or
   * null: direct, or through `jumps`. A profile uses one or the other (checkProxy), as OpenSSH takes the first.
   */
  proxyCommand: ProxyCommand.nullable().optional(),
  docker: RemoteDockerAccess.default({ engine: 'docker', transport: 'socket', socketPath: '/var/run/docker.sock' }),
  /** The local port the swarm tunnel prefers (10086); when taken, the next free one is used and shown. */
  tunnelLocalPort: z.number().int().min(1024).max(PORT_MAX).default(SWARM_DEFAULT_PORT),
  /** The ~/.ssh/config Host alias this profile came from, shown so the user knows where it came from. */
  importedFrom: z.string().max(255).nullable().default(null),
  /** The vault's `ssh-password` secret used before asking (a locked vault falls back to asking); absent or null = ask. */
  passwordSecretId: SecretId.nullable().optional(),
  /** The vault's `ssh-passphrase` secret for the key files before asking; absent or null = ask. */
  passphraseSecretId: SecretId.nullable().optional(),
});

export const ServerProfile = ServerProfileInput.extend({ id: ServerId });

/**
 * Why a profile cannot be saved as it is, or null: jump hosts and a ProxyCommand exclude each other
 * (OpenSSH uses whichever the config gives first; a profile says which). A check of its own, because a
 * refinement on ServerProfileInput would stop `.extend` above.
 */
export function proxyConflict(profile: Pick<z.output<typeof ServerProfileInput>, 'jumps' | 'proxyCommand'>): string | null {
  return profile.proxyCommand && profile.jumps.length > 0
    ? 'A server is reached through jump hosts or through a ProxyCommand, not both: clear one of the two fields.'
    : null;
}

export const ServerRef = z.object({ serverId: ServerId });
export const ServerUpdate = z.object({ serverId: ServerId, profile: ServerProfileInput });

/** connecting → up ⇄ degraded; lost → reconnecting (backoff) → up; down: stopped, or a failure that must not be retried. */
export const LinkState = z.enum(['disconnected', 'connecting', 'up', 'degraded', 'reconnecting', 'down']);

export const ErrorShape = z.object({ code: z.enum(ErrorCodes), message: z.string() });

/** A host key the app has to ask about (unknown) or refuses (changed / other-type / revoked). */
export const HostKeyQuestion = z.object({
  /** `user@host:port` of the hop or target that showed it; `hop` is its index in the chain (target last). */
  target: z.string(),
  hop: z.number().int().min(0),
  host: z.string(),
  port: SshPort,
  keyType: z.string(),
  /** `SHA256:…` exactly as `ssh-keygen -l` prints it. */
  fingerprint: z.string(),
  /**
   * `other-type`: known_hosts trusts keys of other types for this host and the server, asked for those
   * first, showed none of them; refused like `changed` ("used to present ED25519 …; now only ECDSA …").
   */
  status: z.enum(['unknown', 'changed', 'other-type', 'revoked']),
  /** For `changed` and `other-type`: the fingerprints known_hosts trusts for this host. */
  knownFingerprints: z.array(z.string()),
  /** For `other-type`: the trusted keys with their types, in known_hosts order. */
  knownKeys: z.array(z.object({ keyType: z.string(), fingerprint: z.string() })).default([]),
});

/** A secret the backend waits for (passphrase, password, keyboard-interactive answer); never holds the answer. */
export const SecretPrompt = z.object({
  promptId: z.string(),
  serverId: ServerId,
  kind: z.enum(['passphrase', 'password', 'keyboard-interactive']),
  /** The key file, `user@host`, or the server's own words for keyboard-interactive. */
  prompt: z.string(),
  /** False: hide the input while typing. */
  echo: z.boolean(),
});

export const PromptAnswer = z.object({
  promptId: z.string(),
  /** null: the user cancelled. Goes to the backend only; never sent back, logged or stored. */
  value: z.string().max(4096).nullable(),
});

/** One link of the chain SSH ▸ local port ▸ remote container ▸ swarm API; `ok` null while not known yet. */
export const LinkHealth = z.object({
  link: z.enum(['ssh', 'local-port', 'remote-container', 'swarm-api']),
  ok: z.boolean().nullable(),
  /** Why it is red (or what is being checked); English fallback text. */
  detail: z.string().nullable(),
});

/** The tunnel for one swarm port of the server. */
export const TunnelView = z.object({
  remotePort: z.number().int().min(1).max(PORT_MAX),
  /** The local port the profile asked for, and the one in use (different when it was taken). */
  requestedLocalPort: z.number().int().min(1).max(PORT_MAX),
  localPort: z.number().int().min(1).max(PORT_MAX).nullable(),
  /** `http://127.0.0.1:<localPort>`: what the monitor and every later job use. */
  url: z.string().nullable(),
  /** The requested port was taken: by whom, when the OS tells us (e.g. "python3 (pid 4242)"). */
  portTakenBy: z.string().nullable(),
  /** The same holder as data (the app's own dry run, or a process); absent from older backends. */
  portHolder: PortHolder.nullable().optional(),
  portWasTaken: z.boolean(),
  /** Last HTTP probe of GET /get_engine_status through the tunnel. */
  probe: z
    .object({
      ok: z.boolean(),
      engineStatus: z.string().nullable(),
      error: z.string().nullable(),
      latencyMs: z.number().nullable(),
      checkedAt: z.string(),
    })
    .nullable(),
  links: z.array(LinkHealth),
  /** The equivalent OpenSSH command, to copy: `ssh -N -L 127.0.0.1:10086:127.0.0.1:10086 -J … user@host -p 22`. */
  sshCommand: z.string(),
  /** Local sockets open through it right now. */
  openSockets: z.number().int().min(0),
});

export const ServerView = z.object({
  profile: ServerProfile,
  engineId: z.string(),
  state: LinkState,
  /** Why it is degraded, reconnecting or down; null while all is well. */
  reason: ErrorShape.nullable(),
  /** Reconnect attempts since the link was last up, and when the next one runs (ISO). */
  attempt: z.number().int().min(0),
  nextRetryAt: z.string().nullable(),
  connectedSince: z.string().nullable(),
  /** Which way of logging in worked last, e.g. "agent". */
  authMethod: SshAuthMethod.nullable(),
  /** A host key waiting for the user's decision (unknown) or refused (changed, revoked). */
  hostKey: HostKeyQuestion.nullable(),
  /** A secret the connection waits for right now. */
  prompt: SecretPrompt.nullable(),
  tunnels: z.array(TunnelView),
});

export const HostKeyDecision = z.object({
  serverId: ServerId,
  /** The fingerprint the user saw: the backend writes a key only when it is still the one it was shown. */
  fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'fingerprint must look like SHA256:<43 characters>'),
});

/** One stage of "Test connection", in order; stages after a failure are `skipped`. */
/**
 * A stage's words as data (issue 32), the same shape as DoctorCheck.say: the renderer words what was
 * seen with `diag.say.<key>` (a failure's specifics too, in place of its English error message) and
 * the fix with `diag.sayFix.<key>`, both from `params`; `said` is a program's own output, quoted as is.
 */
export const DiagnosticSay = z.object({ key: z.string().regex(/^[a-z][a-zA-Z-]*$/), params: z.record(z.string(), z.union([z.string(), z.number()])) });

export const DiagnosticStage = z.object({
  /** `slurm` (Slurm login nodes only, in place of the three engine stages): sinfo's version, partitions and GPUs. */
  stage: z.enum(['tcp', 'handshake', 'host-key', 'auth', 'docker-version', 'docker-permission', 'gpus', 'slurm']),
  status: z.enum(['pass', 'warn', 'fail', 'skipped']),
  /** What was seen, e.g. "OpenSSH_9.2p1", "Docker 27.5.1 (API 1.47)", "2 GPUs: NVIDIA A100 …". */
  detail: z.string().nullable(),
  error: ErrorShape.nullable(),
  /** What to do about a fail or warn; a command when one helps. */
  fix: z.string().nullable(),
  durationMs: z.number().min(0),
  /** `detail` (or the error's specifics) as data; absent where the words come from elsewhere (an SSH error's own text). */
  say: DiagnosticSay.optional(),
  /**
   * `fix` as data. Its own field, unlike the doctor's one `say`: a stage may take its fix from
   * another stage (the engine's version stage shows the socket stage's fix).
   */
  sayFix: DiagnosticSay.optional(),
});

export const DiagnosticsReport = z.object({
  serverId: ServerId,
  /** Which hop the stages ran against when a jump failed first (`user@host:port`). */
  target: z.string(),
  stages: z.array(DiagnosticStage),
  finishedAt: z.string(),
});

/** A Host alias of ~/.ssh/config, resolved (wildcard blocks applied), ready to become a profile. */
export const SshConfigHost = z.object({
  alias: z.string(),
  profile: ServerProfileInput.nullable(),
  /** Why this alias cannot be imported as is (a value we cannot use); null when it can. */
  problem: z.string().nullable(),
});

export const SshConfigListing = z.object({
  path: z.string(),
  /** False when the file does not exist (not an error: many users have none). */
  exists: z.boolean(),
  hosts: z.array(SshConfigHost),
});

export type ServerProfileInput = z.infer<typeof ServerProfileInput>;
export type ServerProfileDraft = z.input<typeof ServerProfileInput>;
export type ServerProfile = z.infer<typeof ServerProfile>;
export type SshAuthMethod = z.infer<typeof SshAuthMethod>;
export type RemoteEngineProduct = z.infer<typeof RemoteEngineProduct>;
export type SshJumpHost = z.infer<typeof SshJumpHost>;
export type LinkState = z.infer<typeof LinkState>;
export type HostKeyQuestion = z.infer<typeof HostKeyQuestion>;
export type SecretPrompt = z.infer<typeof SecretPrompt>;
export type PromptAnswer = z.infer<typeof PromptAnswer>;
export type LinkHealth = z.infer<typeof LinkHealth>;
export type TunnelView = z.infer<typeof TunnelView>;
export type ServerView = z.infer<typeof ServerView>;
export type DiagnosticStage = z.infer<typeof DiagnosticStage>;
export type DiagnosticSay = z.infer<typeof DiagnosticSay>;
export type DiagnosticsReport = z.infer<typeof DiagnosticsReport>;
export type SshConfigHost = z.infer<typeof SshConfigHost>;
export type SshConfigListing = z.infer<typeof SshConfigListing>;
