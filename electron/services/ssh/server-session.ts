import { AppError } from '../../shared/errors';
import { engineIdOfServer, type LinkHealth, type LinkState, type ServerProfile, type ServerView, type SshAuthMethod } from '../../shared/schemas-servers';
import type { ContainerEngine } from '../engines/container-engine';
import type { DockerApiEngine } from '../engines/docker-api-engine';
import { createSlurmLoginEngine } from '../engines/slurm/slurm-login-engine';
import { createSshDockerEngine, transportOfAccess } from '../engines/ssh-docker';
import { withNativeProcesses } from '../native/native-engine';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { Logger } from '../util/logger';
import type { KnownHostsFile } from './known-hosts';
import { HostKeyTrust } from './host-key-trust';
import { answersWithin, REVALIDATE_TIMEOUT_MS } from './link-liveness';
import { isRetryable, type BackoffOptions } from './reconnect-policy';
import { ReconnectSchedule } from './reconnect-schedule';
import type { SecretPrompts } from './secret-prompts';
import { hopsOfProfile, sshCommandOf } from './profile-hops';
import { SecretMemory, type SecretRequest, type SshAuthOutcome } from './ssh-auth';
import { SshChain, hopTarget, type ChainHop } from './ssh-chain';
import type { SshConnection } from './ssh-connection';
import { ServerTunnels, type ServerTunnelsOptions } from './server-tunnels';

export interface ServerSessionOptions {
  profile: ServerProfile;
  knownHosts: KnownHostsFile;
  prompts: SecretPrompts;
  /** SSH_AUTH_SOCK and friends (tests pass their own agent, or none). */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Something in the view changed: the owner publishes a `servers:changed` snapshot. */
  onChange: () => void;
  /** The connection came up (first connect or reconnect): the swarm domain finds its containers again. */
  onUp?: () => void;
  backoff?: BackoffOptions;
  /** How often tunnels are probed while up (default 5 s). */
  probeIntervalMs?: number;
  readyTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  /** How long a Docker call waits for a reconnect before it fails (default 5 s). */
  waitForConnectionMs?: number;
  onAuthAttempt?: (hop: number, outcome: SshAuthOutcome) => void;
  /** Whether a page is shown (default: always): a Slurm login node's queue poll is slower while none is. */
  isShown?: () => boolean;
  /** Tests' Slurm tuning: the queue poll's pace (default 30 s shown, 60 s hidden); a job's port search start (10086). */
  slurmQueuePace?: { shownMs: number; hiddenMs: number };
  slurmPortBase?: number;
  /** Where the profile's `passwordSecretId` / `passphraseSecretId` are read before the user is asked. */
  vault?: SecretVaultApi;
  /** A Slurm login node's jobs carry it in their comment when the spec does not (default "0.0.0"). */
  appVersion?: string;
  /** The swarm monitor's last poll of a tunnel URL: the tunnel probe reuses a recent one. */
  latestReading?: ServerTunnelsOptions['latestReading'];
}

/**
 * One server's live link: one SSH chain (ProxyJump hops first), the Docker engine whose channels
 * open on the current connection, and the swarm tunnels whose listeners outlive reconnects. A lost
 * connection is retried with jittered backoff; a failure only the user can fix (login, host key) is
 * not retried and leaves the server `down` with its reason. When to retry is reconnect-schedule.ts;
 * the wake-up liveness check is link-liveness.ts.
 */
export class ServerSession {
  /**
   * Docker over SSH, plus native swarm servers run on the server through SSH exec (one engine per host);
   * or, for a Slurm login node, the SlurmEngine whose jobs run on the cluster's compute nodes.
   */
  readonly engine: ContainerEngine;
  /** The container engine inside `engine` (none for Slurm): told to ask again what it is after each reconnect. */
  private readonly containers: DockerApiEngine | null;
  readonly hostKeys: HostKeyTrust;
  /** Secrets typed for this server: kept across reconnects, in memory only. */
  readonly memory = new SecretMemory();
  private readonly reconnect: ReconnectSchedule;
  private readonly tunnels: ServerTunnels;
  private state: LinkState = 'disconnected';
  private reason: AppError | null = null;
  private chain: SshChain | null = null;
  /** True between connect() and disconnect(): the user wants this server up. */
  private wanted = false;
  /** Bumped by disconnect(): an attempt that finishes after it must not revive the link. */
  private generation = 0;
  private attempting: Promise<void> | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private connectedSince: number | null = null;
  private authMethod: SshAuthMethod | null = null;
  private everUp = false;
  private readonly upWaiters = new Set<() => void>();
  private disposed = false;

  constructor(
    private profile: ServerProfile,
    private readonly options: ServerSessionOptions,
  ) {
    this.reconnect = new ReconnectSchedule(options.backoff, {
      retry: () => void this.attempt(),
      scheduled: () => this.setState('reconnecting'),
    });
    this.hostKeys = new HostKeyTrust(options.knownHosts, options.onChange);
    this.tunnels = new ServerTunnels({
      preferredLocalPort: () => this.profile.tunnelLocalPort,
      openChannel: async (port) => (await this.connection(3000)).forwardOut('127.0.0.1', port),
      onChange: options.onChange,
      ...(options.latestReading ? { latestReading: options.latestReading } : {}),
    });
    if (profile.docker.engine === 'slurm') {
      this.containers = null;
      this.engine = createSlurmLoginEngine(profile, options.appVersion ?? '0.0.0', () => this.connection(), {
        ...(options.isShown ? { isShown: options.isShown } : {}),
        ...(options.slurmQueuePace ? { eventPollMs: options.slurmQueuePace.shownMs, hiddenPollMs: options.slurmQueuePace.hiddenMs } : {}),
        ...(options.slurmPortBase !== undefined ? { portBase: options.slurmPortBase } : {}),
      });
      return;
    }
    this.containers = createSshDockerEngine({
      id: engineIdOfServer(profile.id),
      label: profile.label,
      connection: { target: `${profile.username}@${profile.host}:${profile.port}`, current: () => this.connection() },
      // Docker or Podman as the user said; the engine's /version has the last word.
      engine: profile.docker.engine,
      transport: transportOfAccess(profile.docker),
      urlForHostPort: async (port) => {
        const url = await this.tunnels.urlFor(port);
        // A tunnel that appears while up is probed at once, so the link chain fills in.
        if (this.chain) void this.probe();
        return url;
      },
      releaseHostPort: async (port) => {
        await this.tunnels.release(port);
        // Re-judge the link now: a server degraded only by this tunnel's dead probe is up again.
        if (this.chain) void this.probe();
      },
    });
    this.engine = withNativeProcesses(this.containers);
  }

  get id(): string {
    return this.profile.id;
  }

  get currentProfile(): ServerProfile {
    return this.profile;
  }

  /** The chain to connect: ProxyJump hosts first, the server last. */
  hops(): ChainHop[] {
    return hopsOfProfile(this.profile, this.options.env);
  }

  /**
   * Connects (or, when it is already trying, joins that attempt). Resolves once the attempt is over:
   * up, down with a reason, or a retry scheduled. The prompts and host-key questions it raises show
   * in the view while it waits.
   */
  async connect(): Promise<void> {
    if (this.disposed) return;
    this.wanted = true;
    if (this.chain) return;
    this.reconnect.cancel();
    this.reconnect.resetBackoff();
    this.reason = null;
    await this.attempt();
  }

  async disconnect(): Promise<void> {
    this.wanted = false;
    this.generation += 1;
    this.reconnect.cancel();
    this.stopProbing();
    this.options.prompts.cancelAll(this.id);
    const chain = this.chain;
    this.chain = null;
    this.connectedSince = null;
    this.tunnels.connectionLost();
    this.reconnect.resetBackoff();
    this.reason = null;
    this.setState('disconnected');
    this.wakeWaiters();
    await chain?.close();
  }

  /**
   * The main process reports resume from sleep or a network change: find out now whether the link
   * still carries traffic instead of waiting for keepalives, and retry a waiting reconnect at once.
   */
  async revalidate(): Promise<void> {
    if (!this.wanted || this.disposed) return;
    const chain = this.chain;
    if (chain) {
      const alive = await answersWithin(chain.target, REVALIDATE_TIMEOUT_MS);
      if (alive) return void (await this.probe());
      // Dead after sleep: drop it without waiting for its TCP to time out, and reconnect now.
      this.lost(chain, new AppError('SSH_DISCONNECTED', `${this.profile.label} did not answer after the computer woke up or the network changed; reconnecting.`), 0);
      void chain.close();
      return;
    }
    if (this.reconnect.pending) {
      this.reconnect.cancel();
      this.reconnect.resetBackoff();
      await this.attempt();
    }
  }

  /** The connection to the server once it is up; waits up to `timeoutMs` while it (re)connects. */
  async connection(timeoutMs = this.options.waitForConnectionMs ?? 5000): Promise<SshConnection> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.chain) return this.chain.target;
      const waiting = this.wanted && (this.state === 'connecting' || this.state === 'reconnecting');
      const left = deadline - Date.now();
      if (!waiting || left <= 0) throw this.notConnected();
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.upWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.upWaiters.add(done);
      });
    }
  }

  view(): ServerView {
    const ssh: LinkHealth = {
      link: 'ssh',
      ok: this.chain ? true : this.state === 'connecting' ? null : this.state === 'disconnected' ? null : false,
      detail: this.chain ? `connected as ${this.profile.username}@${this.profile.host}:${this.profile.port}` : (this.reason?.message ?? this.state),
    };
    return {
      profile: structuredClone(this.profile),
      engineId: engineIdOfServer(this.profile.id),
      state: this.state,
      reason: this.reason ? { code: this.reason.code, message: this.reason.message } : null,
      attempt: this.reconnect.attempts,
      nextRetryAt: this.reconnect.nextRetryAt === null ? null : new Date(this.reconnect.nextRetryAt).toISOString(),
      connectedSince: this.connectedSince === null ? null : new Date(this.connectedSince).toISOString(),
      authMethod: this.authMethod,
      hostKey: this.hostKeys.pending,
      prompt: this.options.prompts.current(this.id),
      tunnels: this.tunnels.views(ssh, (local, remote) => sshCommandOf(this.profile, local, remote)),
    };
  }

  /** Closes the connection and every tunnel listener (app quit, server removed). */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.disconnect();
    await this.tunnels.close();
    await this.engine.dispose();
  }

  private attempt(): Promise<void> {
    this.attempting ??= this.runAttempt().finally(() => (this.attempting = null));
    return this.attempting;
  }

  private async runAttempt(): Promise<void> {
    const generation = this.generation;
    this.reconnect.began();
    this.setState(this.everUp || this.reconnect.attempts > 0 ? 'reconnecting' : 'connecting');
    const hops = this.hops();
    let chain: SshChain;
    try {
      chain = await SshChain.connect({
        hops,
        memory: this.memory,
        askSecret: (hop, request) => this.askSecret(hop === hops.length - 1, request),
        verifyHostKey: (hop, info) => this.hostKeys.verify(hop, hopTarget(hops[hop]!), info),
        knownKeyTypes: (_hop, host, port) => this.hostKeys.knownKeyTypes(host, port),
        ...(this.options.readyTimeoutMs !== undefined ? { readyTimeoutMs: this.options.readyTimeoutMs } : {}),
        ...(this.options.keepaliveIntervalMs !== undefined ? { keepaliveIntervalMs: this.options.keepaliveIntervalMs } : {}),
        ...(this.options.onAuthAttempt ? { onAuthAttempt: this.options.onAuthAttempt } : {}),
      });
    } catch (error) {
      if (generation !== this.generation) return;
      this.failed(error instanceof AppError ? error : new AppError('SSH_DISCONNECTED', String((error as Error)?.message ?? error), { cause: error }));
      return;
    }
    if (generation !== this.generation || !this.wanted) {
      await chain.close();
      return;
    }
    this.chain = chain;
    this.everUp = true;
    this.reconnect.resetBackoff();
    this.reason = null;
    this.connectedSince = Date.now();
    this.authMethod = authMethodOf(chain.target.authOutcomes);
    // A new connection may reach another engine (the server was reinstalled, the user socket moved).
    this.containers?.forgetDialect();
    chain.once('closed', (reason) => this.lost(chain, reason));
    this.setState('up');
    this.wakeWaiters();
    this.options.logger.info?.('ssh server up', { server: this.id, auth: this.authMethod });
    this.options.onUp?.();
    this.startProbing();
    await this.probe();
  }

  /**
   * A secret for the login: the vault's, when the profile refers to one (the password for the
   * server itself, the passphrase for any key file on the way), else the user's answer to a prompt.
   * A locked vault or a deleted secret falls back to the prompt (logged, without the value).
   */
  async askSecret(isTarget: boolean, request: SecretRequest): Promise<string | null> {
    const secretId =
      request.kind === 'password' && isTarget ? this.profile.passwordSecretId : request.kind === 'passphrase' ? this.profile.passphraseSecretId : null;
    if (secretId && this.options.vault) {
      try {
        return await this.options.vault.reveal(secretId);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        this.options.logger.info?.('ssh login: the vault secret could not be used; asking the user instead', { server: this.id, secretId, code: error.code });
      }
    }
    return this.options.prompts.ask(this.id, request);
  }

  private failed(error: AppError): void {
    this.reason = error;
    if (!this.wanted || !isRetryable(error.code)) {
      this.options.logger.warn('ssh server down', { server: this.id, code: error.code });
      this.setState('down');
      this.wakeWaiters();
      return;
    }
    this.reconnect.schedule();
  }

  private lost(chain: SshChain, reason: AppError | null, delayMs?: number): void {
    if (this.chain !== chain) return;
    this.chain = null;
    this.connectedSince = null;
    this.stopProbing();
    this.tunnels.connectionLost();
    if (!this.wanted) return;
    this.reason = reason ?? new AppError('SSH_DISCONNECTED', `The SSH connection to ${this.profile.label} was closed.`);
    this.options.logger.warn('ssh connection lost; reconnecting', { server: this.id, code: this.reason.code });
    this.reconnect.resetBackoff();
    this.reconnect.schedule(delayMs);
  }

  private startProbing(): void {
    this.stopProbing();
    const every = this.options.probeIntervalMs ?? 5000;
    this.probeTimer = setInterval(() => void this.probe(), every);
    this.probeTimer.unref?.();
  }

  private stopProbing(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }

  /** Probes the tunnels and moves between up and degraded by what they said. */
  private async probe(): Promise<void> {
    const chain = this.chain;
    // No tunnel (the last swarm server was stopped): nothing can fail to answer, so a link that
    // was degraded on a dead tunnel's word is up again.
    const allOk = this.tunnels.size === 0 || (await this.tunnels.probeAll());
    if (this.chain !== chain || !chain) return;
    // A tunnel released while its probe ran leaves no failure behind: that is not "degraded" either.
    const failure = allOk ? null : this.tunnels.firstFailure();
    if (!failure) {
      if (this.tunnels.size > 0 || this.state === 'degraded') {
        this.reason = null;
        this.setState('up');
      }
      return;
    }
    this.reason = new AppError(
      'SWARM_UNREACHABLE',
      `SSH to ${this.profile.label} is up, but the swarm API on its port ${failure.remotePort} does not answer through the tunnel (${failure.error}). Is the swarm server running there?`,
    );
    this.setState('degraded');
  }

  private notConnected(): AppError {
    const label = this.profile.label;
    if (this.state === 'reconnecting' || this.state === 'connecting') {
      return new AppError('ENGINE_UNREACHABLE', `${label} is ${this.state === 'connecting' ? 'connecting' : 'reconnecting'} over SSH; try again in a moment.`);
    }
    const why = this.reason ? ` (${this.reason.message})` : '';
    return new AppError('ENGINE_UNREACHABLE', `${label} is not connected${why}. Connect it on the Servers page.`);
  }

  private wakeWaiters(): void {
    for (const wake of [...this.upWaiters]) wake();
    this.upWaiters.clear();
  }

  private setState(state: LinkState): void {
    this.state = state;
    this.options.onChange();
  }
}

function authMethodOf(outcomes: readonly SshAuthOutcome[]): SshAuthMethod | null {
  const tried = outcomes.filter((o) => o.result === 'tried');
  return tried[tried.length - 1]?.attempt ?? null;
}
