/**
 * Error codes every layer agrees on. The UI switches on `code` to pick a translated, actionable
 * message; `message` is a plain English fallback that must never contain a secret.
 */
export const ErrorCodes = [
  'VALIDATION_FAILED',
  'FORBIDDEN',
  'UNKNOWN_CHANNEL',
  'ENGINE_UNREACHABLE',
  'ENGINE_PERMISSION_DENIED',
  'ENGINE_NOT_FOUND',
  'IMAGE_NOT_FOUND',
  'PORT_IN_USE',
  'CONTAINER_NOT_FOUND',
  'CONTAINER_CONFLICT',
  'CONTAINER_START_FAILED',
  'SWARM_UNREACHABLE',
  'SETTINGS_INVALID',
  /** A settings write failed, or would have written over a file that could not be read. */
  'SETTINGS_NOT_SAVED',
  /** The app log cannot be opened here (no file viewer in the browser host, or opening failed). */
  'LOG_UNAVAILABLE',
  'INTERNAL',
  /** The server's host key is in no known_hosts entry: the user must compare and accept it. */
  'SSH_HOST_KEY_UNKNOWN',
  /** known_hosts trusts another key of this type for the host: refused until the user replaces it explicitly. */
  'SSH_HOST_KEY_CHANGED',
  /** known_hosts marks the server's key `@revoked`. */
  'SSH_HOST_KEY_REVOKED',
  /** The app's known_hosts file could not be read or written. */
  'SSH_KNOWN_HOSTS_UNUSABLE',
  /** ~/.ssh/config (or an Include) could not be read or has a value we cannot use. */
  'SSH_CONFIG_INVALID',
  /** Only the browser client raises it: the `npm run web` process that serves the API is gone. */
  'BACKEND_UNREACHABLE',
  // SSH connections to remote servers (electron/services/ssh/ssh-connection.ts).
  /** TCP to the server failed: refused, no route, unknown host name. */
  'SSH_UNREACHABLE',
  /** The server's ProxyCommand failed to start or exited before or during the SSH connection (its exit code and stderr in the message). */
  'SSH_PROXY_COMMAND_FAILED',
  /** The server answered but the SSH handshake or login did not finish within readyTimeout. */
  'SSH_TIMEOUT',
  /** The host-key check said no; no credential was sent. */
  'SSH_HOST_KEY_REJECTED',
  /** The server refused every authentication attempt in the list. */
  'SSH_AUTH_FAILED',
  /** The key file is encrypted and no passphrase was given. */
  'SSH_PASSPHRASE_NEEDED',
  /** The passphrase given does not decrypt the key file. */
  'SSH_PASSPHRASE_WRONG',
  /** The connection dropped: keepalive missed, server closed it, or the network went away. */
  'SSH_DISCONNECTED',
  // Server profiles and tunnels (electron/services/ssh/).
  /** No server with that id (removed in another window, or a stale page). */
  'SERVER_NOT_FOUND',
  /** A server with the same name, or the same user@host:port, already exists. */
  'SERVER_EXISTS',
  /** The secret prompt was already answered, cancelled or timed out. */
  'PROMPT_NOT_FOUND',
  /** The local end of a tunnel could not listen (no free port near the one asked for), or a channel could not open. */
  'TUNNEL_FAILED',
  /** The server shows no usable GPU (no nvidia-smi, no driver, no GPU listed): a swarm server there cannot train. */
  'GPU_UNAVAILABLE',
  // Swarm profiles, doctor, pulls, logs (issue 13).
  /** No profile with that id (removed in another window, or a stale page). */
  'PROFILE_NOT_FOUND',
  /** A profile with the same name, or the same engine and port, already exists. */
  'PROFILE_EXISTS',
  /** The profile's server runs from another configuration: replace it (restart) or keep it. */
  'PROFILE_DRIFTED',
  /** A secret env variable of the profile has no value for this run: type it in the start dialog. */
  'SECRET_MISSING',
  /** The preflight doctor found a failing check; its report says which and how to fix it. */
  'DOCTOR_FAILED',
  /** The registry refused the pull (login needed, or no access to that repository). */
  'IMAGE_PULL_DENIED',
  /** The pull failed on the way (registry unreachable, TLS, connection dropped, disk full). */
  'IMAGE_PULL_FAILED',
  /** No pull with that id (finished long ago, or the backend restarted). */
  'PULL_NOT_FOUND',
  /** No stored log for that container. */
  'LOG_NOT_FOUND',
  /** Native mode: `ajet-swarm` is not on the host's PATH (after the profile's activate line). */
  'NATIVE_NOT_INSTALLED',
  // Credentials vault (issue 14).
  /** No vault yet: the user chooses where secrets are kept (keychain, passphrase, session only). */
  'VAULT_NOT_SET_UP',
  /** The vault needs its passphrase (or the keychain could not unwrap its key) before a secret can be used. */
  'VAULT_LOCKED',
  /** The vault file could not be written (full disk, read-only folder, no permission); nothing was changed. The message names the folder and the cause. */
  'VAULT_NOT_SAVED',
  /** The passphrase does not open the vault; nothing was changed. */
  'VAULT_WRONG_PASSPHRASE',
  /** The OS keychain is unavailable or only obfuscates (Linux basic_text) and the user has not chosen what to do. */
  'KEYCHAIN_UNAVAILABLE',
  /** No secret with that id (deleted, or set on another computer). */
  'SECRET_NOT_FOUND',
  /** The secret is of another kind than this use takes (an SSH password as an LLM key, an LLM key as a profile's env). */
  'SECRET_WRONG_KIND',
  /** An LLM key would go to another endpoint (scheme, host or port) than it was saved for: type it again, or confirm that origin. */
  'SECRET_ENDPOINT_MISMATCH',
  /** The chosen file is not a settings export of this app (or a newer, unknown version). */
  'SETTINGS_IMPORT_INVALID',
  // Dry run (issue 15).
  /** Start while a dry run runs, or stop/trace while none does. */
  'DRY_RUN_STATE',
  /** No episode with that id in this dry run's trace. */
  'TRACE_NOT_FOUND',
  // Job runner and wizard (issue 16).
  /** No usable Python interpreter at that path (or none found at all). */
  'PYTHON_NOT_FOUND',
  /** `import ajet` fails in the chosen interpreter: AgentJet's client is not installed there. */
  'AJET_NOT_INSTALLED',
  /** The script exited with an error; the failure names the file and line of the traceback. */
  'JOB_CRASHED',
  /** The script ended without printing its result line (AGENTSWARM_RESULT {...}). */
  'JOB_RESULT_MISSING',
  /** No job with that id (the history was cleared, or a stale page). */
  'JOB_NOT_FOUND',
  /** The job is not in a state that allows this, or a training run already runs for that server. */
  'JOB_BUSY',
  /** The run would stop the engine for every client (force_restart / stop_engine) and the user has not confirmed. */
  'JOB_NEEDS_CONFIRMATION',
  /** The step needs an earlier step done first. */
  'WIZARD_STEP_LOCKED',
  /** A file the wizard would write exists and differs: confirm after reading the diff. */
  'WIZARD_FILE_EXISTS',
  /** The project folder or a file in it cannot be used (missing, not writable, not a collector/episode script). */
  'PROJECT_INVALID',
  /** A generated file does not compile (python -m py_compile); nothing else was changed. */
  'CODE_CHECK_FAILED',
  // Podman engines and GPU verification (issue 17).
  /** The container started but does not see the GPUs it asked for (checked with nvidia-smi -L inside it); it was stopped. */
  'GPU_NOT_VISIBLE',
  // Slurm clusters (issue 18).
  /** A cluster's batch scheduler (Slurm's sbatch) refused the job: no node can run it as asked, unknown partition/account/QoS, a limit. The message quotes the scheduler. */
  'SCHEDULER_REJECTED',
  // Auto-update (issue 35).
  /** This copy cannot update itself (browser host, unpackaged, .deb), or the step asked for does not fit the updater's state (download with nothing available, install before the download finished). */
  'UPDATE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ErrorCodes)[number];

/** Facts an error carries as data, for the renderer to word (e.g. PORT_IN_USE: `port`, `holder: 'app-dry-run'`). */
export type ErrorParams = Record<string, string | number>;

export interface AppErrorShape {
  code: ErrorCode;
  message: string;
  params?: ErrorParams;
}

/** An error that is safe to show to the user as-is (no stack, no secrets). */
export class AppError extends Error implements AppErrorShape {
  readonly code: ErrorCode;
  readonly params?: ErrorParams;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; params?: ErrorParams }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    if (options?.params) this.params = options.params;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
