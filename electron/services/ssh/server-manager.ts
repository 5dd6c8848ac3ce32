import type { SshConnection } from './ssh-connection';
import { AppError } from '../../shared/errors';
import { proxyConflict, type DiagnosticsReport, type ServerProfileInput, type ServerView, type SshConfigListing } from '../../shared/schemas-servers';
import type { EngineRegistry } from '../engines/engine-registry';
import type { EventSink } from '../events';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { Logger } from '../util/logger';
import { KnownHostsFile } from './known-hosts';
import { SecretPrompts } from './secret-prompts';
import { ServerSession, type ServerSessionOptions } from './server-session';
import { ServerStore } from './server-store';
import { hopTarget } from './ssh-chain';
import { runDiagnostics } from './connection-diagnostics';
import { listSshConfigHosts } from './ssh-config-listing';

/** Session knobs tests turn (short backoff, fast probes, an auth-attempt counter). */
export type SessionTuning = Partial<Pick<ServerSessionOptions, 'backoff' | 'probeIntervalMs' | 'readyTimeoutMs' | 'keepaliveIntervalMs' | 'waitForConnectionMs' | 'onAuthAttempt' | 'slurmQueuePace' | 'slurmPortBase'>>;

export interface ServerManagerOptions {
  dataDir: string;
  engines: EngineRegistry;
  events: EventSink;
  logger: Logger;
  /** The app's known_hosts (default ~/.ssh/known_hosts; tests always pass a temporary one). */
  knownHostsPath: string;
  /** The ~/.ssh/config the import lists. */
  sshConfigPath: string;
  /** SSH_AUTH_SOCK for the agent. */
  env: NodeJS.ProcessEnv;
  tuning?: SessionTuning;
  /** The credentials vault: passwords and passphrases by reference (`passwordSecretId` …). */
  vault?: SecretVaultApi;
  /** The app's version, written into the jobs a Slurm login node's engine submits. */
  appVersion?: string;
  /** The swarm monitor's last poll of a tunnel URL: tunnel probes reuse a recent one instead of asking again. */
  latestReading?: ServerSessionOptions['latestReading'];
  /** Whether a page is shown: the pace of a Slurm login node's queue poll. */
  isShown?: ServerSessionOptions['isShown'];
}

/** Views without what changes on every probe or socket, so snapshots go out only when something a user sees changed. */
function stableKey(views: ServerView[]): string {
  return JSON.stringify(
    views.map((v) => ({
      ...v,
      tunnels: v.tunnels.map((t) => ({ ...t, openSockets: 0, probe: t.probe ? { ...t.probe, checkedAt: '', latencyMs: null } : null })),
    })),
  );
}

/**
 * Every SSH server of the app: the stored profiles, one live session per server, its engine in the
 * EngineRegistry, the prompts and host-key questions, and the `servers:changed` snapshots.
 */
export class ServerManager {
  private readonly store: ServerStore;
  private readonly knownHosts: KnownHostsFile;
  private readonly prompts: SecretPrompts;
  private readonly sessions = new Map<string, ServerSession>();
  /** Called on every change, before snapshots are coalesced (a connect waits for a prompt this way). */
  private readonly changeListeners = new Set<() => void>();
  private flushQueued = false;
  private lastKey = '';
  private disposed = false;

  constructor(private readonly options: ServerManagerOptions) {
    this.store = new ServerStore(options.dataDir, options.logger);
    this.knownHosts = new KnownHostsFile(options.knownHostsPath);
    this.prompts = new SecretPrompts(() => this.changed());
  }

  /** Loads the profiles, registers their engines and connects them in the background (never waits for a server). */
  async start(): Promise<void> {
    for (const profile of await this.store.load()) {
      const session = this.open(profile);
      void session.connect();
    }
    this.changed();
  }

  list(): ServerView[] {
    // A profile whose session is being replaced (update) is left out of this one snapshot.
    return this.store.list().flatMap((p) => this.sessions.get(p.id)?.view() ?? []);
  }

  async add(input: ServerProfileInput): Promise<ServerView> {
    checkProxy(input);
    const profile = await this.store.add(input);
    const session = this.open(profile);
    this.changed();
    return session.view();
  }

  /** Saves the new profile and starts a fresh session with it (same id, same engine id); reconnects if it was connected. */
  async update(serverId: string, input: ServerProfileInput): Promise<ServerView> {
    const old = this.session(serverId);
    checkProxy(input);
    const profile = await this.store.update(serverId, input);
    const wasWanted = old.view().state !== 'disconnected';
    await this.close(old);
    const session = this.open(profile);
    if (wasWanted) void session.connect();
    this.changed();
    return session.view();
  }

  async remove(serverId: string): Promise<void> {
    const session = this.session(serverId);
    await this.store.remove(serverId);
    await this.close(session);
    this.changed();
  }

  /**
   * Connects and answers once the attempt is over (up, down with its reason, or a retry scheduled)
   * or as soon as the user has to answer a prompt: the view then carries it.
   */
  async connect(serverId: string): Promise<ServerView> {
    const session = this.session(serverId);
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.changeListeners.delete(check);
        resolve();
      };
      const check = (): void => {
        if (this.prompts.current(serverId)) done();
      };
      this.changeListeners.add(check);
      void session.connect().finally(done);
    });
    return session.view();
  }

  /** The server's SSH connection once it is up (rollout workers run there: exec, SFTP, a reverse tunnel). */
  async connectionOf(serverId: string, timeoutMs?: number): Promise<SshConnection> {
    return this.session(serverId).connection(timeoutMs);
  }

  /** The server's label for messages ("cpu-box"); the id when it is unknown. */
  labelOf(serverId: string): string {
    return this.store.list().find((p) => p.id === serverId)?.label ?? serverId;
  }

  async disconnect(serverId: string): Promise<ServerView> {
    const session = this.session(serverId);
    await session.disconnect();
    return session.view();
  }

  /** Writes the unknown key the user saw into known_hosts, then connects. */
  async trustHostKey(serverId: string, fingerprint: string): Promise<ServerView> {
    await this.session(serverId).hostKeys.trust(fingerprint);
    this.options.logger.info?.('host key trusted', { server: serverId, fingerprint });
    return this.connect(serverId);
  }

  /** The explicit action for a changed key: replaces the old line, then connects. */
  async replaceHostKey(serverId: string, fingerprint: string): Promise<ServerView> {
    await this.session(serverId).hostKeys.replace(fingerprint);
    this.options.logger.warn('host key replaced by the user', { server: serverId, fingerprint });
    return this.connect(serverId);
  }

  answerPrompt(promptId: string, value: string | null): void {
    this.prompts.answer(promptId, value);
  }

  /** "Test connection": its own connection through the same hops, host-key check and prompts. */
  async test(serverId: string): Promise<DiagnosticsReport> {
    const session = this.session(serverId);
    const hops = session.hops();
    return runDiagnostics({
      serverId,
      hops,
      docker: session.currentProfile.docker,
      memory: session.memory,
      askSecret: (hop, request) => session.askSecret(hop === hops.length - 1, request),
      verifyHostKey: (hop, info) => session.hostKeys.verify(hop, hopTarget(hops[hop]!), info),
      knownKeyTypes: (_hop, host, port) => session.hostKeys.knownKeyTypes(host, port),
    });
  }

  sshConfig(): SshConfigListing {
    return listSshConfigHosts({ path: this.options.sshConfigPath });
  }

  /** Resume from sleep or a network change: every server checks its link now. */
  systemResumed(): void {
    for (const session of this.sessions.values()) void session.revalidate();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.allSettled([...this.sessions.values()].map((s) => s.dispose()));
    this.sessions.clear();
  }

  private session(serverId: string): ServerSession {
    const session = this.sessions.get(serverId);
    if (!session) throw new AppError('SERVER_NOT_FOUND', `No server with id "${serverId}". It may have been removed in another window.`);
    return session;
  }

  private open(profile: ServerSession['currentProfile']): ServerSession {
    const { engines } = this.options;
    const session = new ServerSession(profile, {
      profile,
      knownHosts: this.knownHosts,
      prompts: this.prompts,
      env: this.options.env,
      logger: this.options.logger,
      onChange: () => this.changed(),
      onUp: () => engines.reconnected(session.engine.summary.id),
      ...(this.options.vault ? { vault: this.options.vault } : {}),
      ...(this.options.appVersion ? { appVersion: this.options.appVersion } : {}),
      ...(this.options.latestReading ? { latestReading: this.options.latestReading } : {}),
      ...(this.options.isShown ? { isShown: this.options.isShown } : {}),
      ...this.options.tuning,
    });
    this.sessions.set(profile.id, session);
    engines.add(session.engine);
    return session;
  }

  private async close(session: ServerSession): Promise<void> {
    this.prompts.cancelAll(session.id);
    this.sessions.delete(session.id);
    await this.options.engines.remove(session.engine.summary.id);
    await session.dispose();
  }

  private changed(): void {
    for (const listener of [...this.changeListeners]) listener();
    if (this.flushQueued || this.disposed) return;
    this.flushQueued = true;
    // Coalesced: one attempt changes several things at once; one snapshot says them all.
    queueMicrotask(() => {
      this.flushQueued = false;
      const views = this.list();
      const key = stableKey(views);
      if (key === this.lastKey) return;
      this.lastKey = key;
      this.options.events.emit('servers:changed', views);
    });
  }
}

/** Jump hosts and a ProxyCommand exclude each other: refused before anything is saved. */
function checkProxy(input: ServerProfileInput): void {
  const conflict = proxyConflict(input);
  if (conflict) throw new AppError('VALIDATION_FAILED', conflict);
}
