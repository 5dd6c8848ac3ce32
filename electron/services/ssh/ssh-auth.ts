import { readFile } from 'node:fs/promises';
import ssh2, { type AnyAuthMethod, type AuthHandlerMiddleware, type KeyboardInteractiveCallback, type Prompt } from 'ssh2';
import { AppError } from '../../shared/errors';
import { sshAuthFailed } from './ssh-errors';

/** One way of logging in, tried in the order the user sees in the server's profile. */
export type SshAuthAttempt =
  | { kind: 'agent'; /** SSH_AUTH_SOCK (or a Windows pipe / 'pageant'). */ socket: string }
  | { kind: 'key'; path: string }
  | { kind: 'password' }
  | { kind: 'keyboard-interactive' };

export type SecretKind = 'passphrase' | 'password' | 'keyboard-interactive';

export interface SecretRequest {
  kind: SecretKind;
  /** What to show: the key file for a passphrase, user@host for a password, the server's words for keyboard-interactive. */
  prompt: string;
  /** False when the answer must be hidden while typed (passwords, passphrases, most server prompts). */
  echo: boolean;
}

/** Asks the user; resolves to null when the user cancels. The answer is kept in memory only. */
export type AskSecret = (request: SecretRequest) => Promise<string | null>;

/** What happened to one attempt, for the "Test connection" diagnostics. Never holds a secret. */
export interface SshAuthOutcome {
  attempt: SshAuthAttempt['kind'];
  detail: string;
  result: 'tried' | 'skipped';
  /** The agent's socket or the key file's path, for words of the renderer's (the connection test's login line). */
  where?: string;
}

/** The usual order, like OpenSSH: agent first, then the key file, then typed secrets. */
export function defaultAuthAttempts(options: { keyPath?: string; env?: NodeJS.ProcessEnv }): SshAuthAttempt[] {
  const env = options.env ?? process.env;
  const attempts: SshAuthAttempt[] = [];
  if (env.SSH_AUTH_SOCK) attempts.push({ kind: 'agent', socket: env.SSH_AUTH_SOCK });
  if (options.keyPath) attempts.push({ kind: 'key', path: options.keyPath });
  attempts.push({ kind: 'password' }, { kind: 'keyboard-interactive' });
  return attempts;
}

function describe(attempt: SshAuthAttempt): string {
  switch (attempt.kind) {
    case 'agent':
      return `ssh-agent at ${attempt.socket}`;
    case 'key':
      return `key file ${attempt.path}`;
    default:
      return attempt.kind;
  }
}

/**
 * Secrets the user already typed for this server, held in memory so a reconnect does not ask
 * again. Keyed by what they unlock; cleared by `forget()` (e.g. after a failed login).
 */
export class SecretMemory {
  private readonly secrets = new Map<string, string>();
  get(key: string): string | undefined {
    return this.secrets.get(key);
  }
  set(key: string, value: string): void {
    this.secrets.set(key, value);
  }
  forget(key: string): void {
    this.secrets.delete(key);
  }
  clear(): void {
    this.secrets.clear();
  }
}

// ssh2 is CommonJS: Node's ESM loader sees only its default export, so no named value imports.
const { utils } = ssh2;

const ENCRYPTED_KEY = /encrypted .*no passphrase given/i;
const BAD_PASSPHRASE = /bad passphrase|integrity check failed|bad decrypt/i;

/**
 * Reads and, if needed, decrypts a key file. An encrypted key asks for its passphrase through
 * `askSecret`; no answer and a wrong answer become typed errors, so a bad key never crashes ssh2.
 */
export async function loadPrivateKey(
  path: string,
  askSecret: AskSecret,
  memory: SecretMemory,
): Promise<{ key: Buffer; passphrase?: string }> {
  let key: Buffer;
  try {
    key = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new AppError('SSH_AUTH_FAILED', `Cannot read the key file ${path} (${code}). Check the path in the server's settings.`);
  }
  const plain = utils.parseKey(key);
  if (!(plain instanceof Error)) return { key };
  if (!ENCRYPTED_KEY.test(plain.message)) {
    throw new AppError('SSH_AUTH_FAILED', `The key file ${path} is not a private key ssh2 can read (${plain.message}).`);
  }
  const memoryKey = `passphrase:${path}`;
  const passphrase =
    memory.get(memoryKey) ?? (await askSecret({ kind: 'passphrase', prompt: `Passphrase for ${path}`, echo: false }));
  if (passphrase === null || passphrase === '') {
    throw new AppError('SSH_PASSPHRASE_NEEDED', `The key file ${path} is encrypted: enter its passphrase, or add the key to ssh-agent.`);
  }
  const decrypted = utils.parseKey(key, passphrase);
  if (decrypted instanceof Error) {
    memory.forget(memoryKey);
    const why = BAD_PASSPHRASE.test(decrypted.message) ? 'the passphrase is wrong' : decrypted.message;
    throw new AppError('SSH_PASSPHRASE_WRONG', `The passphrase does not unlock ${path} (${why}). Try again.`);
  }
  memory.set(memoryKey, passphrase);
  return { key, passphrase };
}

export interface AuthPlanOptions {
  username: string;
  /** user@host:port, for prompts and messages. */
  target: string;
  attempts: SshAuthAttempt[];
  askSecret: AskSecret;
  memory: SecretMemory;
  /** Called before each attempt is sent, so the test can prove no credential left before the host key check. */
  onAttempt?: (outcome: SshAuthOutcome) => void;
  /** False until the host key was accepted: no credential may leave before that. */
  mayAuthenticate?: () => boolean;
}

/**
 * The ssh2 `authHandler`: walks `attempts` in order, asking for secrets only when that attempt is
 * reached (so only after the host key was accepted: ssh2 calls it after the handshake). A typed
 * error from a key file (passphrase needed or wrong) is remembered and wins over the generic
 * "all methods failed" when nothing else succeeds.
 */
export class AuthPlan {
  private index = 0;
  /** The most specific reason the login failed so far. */
  failure: AppError | null = null;
  readonly outcomes: SshAuthOutcome[] = [];
  private lastSecretKey: string | null = null;

  constructor(private readonly options: AuthPlanOptions) {}

  readonly handler: AuthHandlerMiddleware = (methodsLeft, _partial, next) => {
    // A password that the server refused must be asked again next time, not replayed.
    if (this.lastSecretKey) this.options.memory.forget(this.lastSecretKey);
    this.lastSecretKey = null;
    if (this.options.mayAuthenticate && !this.options.mayAuthenticate()) {
      this.failure = new AppError('SSH_HOST_KEY_REJECTED', `The host key of ${this.options.target} was not accepted; no credential was sent.`);
      next(false as unknown as AnyAuthMethod);
      return;
    }
    void this.nextMethod(methodsLeft ?? null).then(
      (method) => next(method ?? (false as unknown as AnyAuthMethod)),
      (error: unknown) => {
        this.failure = error instanceof AppError ? error : new AppError('SSH_AUTH_FAILED', String(error));
        next(false as unknown as AnyAuthMethod);
      },
    );
  };

  /** The AppError to raise when ssh2 says "All configured authentication methods failed". */
  finalError(): AppError {
    return this.failure ?? sshAuthFailed(this.options.target, this.outcomes);
  }

  private async nextMethod(methodsLeft: string[] | null): Promise<AnyAuthMethod | null> {
    const { username } = this.options;
    while (this.index < this.options.attempts.length) {
      const attempt = this.options.attempts[this.index++]!;
      const serverMethod = attempt.kind === 'agent' || attempt.kind === 'key' ? 'publickey' : attempt.kind;
      if (methodsLeft && !methodsLeft.includes(serverMethod)) {
        this.record(attempt, 'skipped', `${describe(attempt)}: the server does not offer ${serverMethod}`);
        continue;
      }
      try {
        const method = await this.methodFor(attempt, username);
        if (!method) {
          this.record(attempt, 'skipped', `${describe(attempt)}: cancelled`);
          continue;
        }
        this.record(attempt, 'tried', describe(attempt));
        // A later method reached the server: if it fails too, the login failed as a whole
        // (the key's problem stays listed in the outcomes and the message).
        this.failure = null;
        return method;
      } catch (error) {
        // A typed problem with this attempt (missing passphrase): remember it, try the next one.
        if (!(error instanceof AppError)) throw error;
        this.failure = error;
        this.record(attempt, 'skipped', error.message);
      }
    }
    return null;
  }

  private async methodFor(attempt: SshAuthAttempt, username: string): Promise<AnyAuthMethod | null> {
    const { askSecret, memory, target } = this.options;
    switch (attempt.kind) {
      case 'agent':
        return { type: 'agent', username, agent: attempt.socket };
      case 'key': {
        const { key, passphrase } = await loadPrivateKey(attempt.path, askSecret, memory);
        return passphrase === undefined ? { type: 'publickey', username, key } : { type: 'publickey', username, key, passphrase };
      }
      case 'password': {
        const memoryKey = `password:${target}`;
        const password =
          memory.get(memoryKey) ?? (await askSecret({ kind: 'password', prompt: `Password for ${target}`, echo: false }));
        if (password === null) return null;
        memory.set(memoryKey, password);
        this.lastSecretKey = memoryKey;
        return { type: 'password', username, password };
      }
      case 'keyboard-interactive':
        return { type: 'keyboard-interactive', username, prompt: this.relayPrompts };
    }
  }

  /** Relays each server prompt to the user with its echo flag; a cancel answers with empty strings. */
  private readonly relayPrompts = (
    name: string,
    instructions: string,
    _lang: string,
    prompts: Prompt[],
    finish: KeyboardInteractiveCallback,
  ): void => {
    const header = [name, instructions].filter((s) => s.trim() !== '').join('\n');
    void (async () => {
      const answers: string[] = [];
      for (const p of prompts) {
        const text = header ? `${header}\n${p.prompt}` : p.prompt;
        const answer = await this.options.askSecret({ kind: 'keyboard-interactive', prompt: text, echo: p.echo === true });
        answers.push(answer ?? '');
      }
      finish(answers);
    })().catch(() => finish(prompts.map(() => '')));
  };

  private record(attempt: SshAuthAttempt, result: SshAuthOutcome['result'], detail: string): void {
    const where = attempt.kind === 'agent' ? attempt.socket : attempt.kind === 'key' ? attempt.path : undefined;
    const outcome: SshAuthOutcome = { attempt: attempt.kind, result, detail, ...(where !== undefined ? { where } : {}) };
    this.outcomes.push(outcome);
    this.options.onAttempt?.(outcome);
  }
}
