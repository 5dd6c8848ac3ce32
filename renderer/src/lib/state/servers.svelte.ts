import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { Result } from '../../../../electron/shared/result';
import type {
  DiagnosticsReport,
  ServerProfileInput,
  ServerView,
  SshConfigListing,
} from '../../../../electron/shared/schemas-servers';
import { SnapshotList } from './snapshot-list.svelte';

export type ServerAction = 'connect' | 'disconnect' | 'remove' | 'test' | 'trust' | 'replace';

/**
 * The SSH servers as the Servers page shows them: the backend's snapshot (`servers:list`, then
 * every `servers:changed`), and every action on them with its busy flag and its error, kept per
 * server for display. Components never call the API: they call these methods.
 */
export class ServersState extends SnapshotList<ServerView> {
  /** The action running on each server, by server id. */
  busy = $state<Record<string, ServerAction>>({});
  /** The last failed action's error on each server, by server id, until the next action or dismiss. */
  errors = $state<Record<string, AppErrorShape>>({});
  /** The last "Test connection" report of each server, by server id. */
  diagnostics = $state<Record<string, DiagnosticsReport>>({});
  sshConfig = $state<SshConfigListing | null>(null);
  sshConfigError = $state<AppErrorShape | null>(null);
  sshConfigLoading = $state(false);
  /** The actions running now, by `serverId:action` (plain record: nothing renders from it). */
  private running: Record<string, true> = {};

  constructor(private readonly api: ExposedApi) {
    super();
  }

  protected subscribe(listener: (views: ServerView[]) => void): () => void {
    return this.api.events.on('servers:changed', listener);
  }

  protected fetch(): Promise<Result<ServerView[]>> {
    return this.api.servers.list();
  }

  /** Adds a server; resolves to the error to show in the form, or the new server. */
  async add(profile: ServerProfileInput): Promise<{ error: AppErrorShape } | { view: ServerView }> {
    const seen = this.snapshots;
    const result = await this.api.servers.add(profile);
    if (!result.ok) return { error: result.error };
    this.upsert(result.value, seen);
    return { view: result.value };
  }

  async update(serverId: string, profile: ServerProfileInput): Promise<{ error: AppErrorShape } | { view: ServerView }> {
    const seen = this.snapshots;
    const result = await this.api.servers.update({ serverId, profile });
    if (!result.ok) return { error: result.error };
    this.upsert(result.value, seen);
    return { view: result.value };
  }

  async remove(serverId: string): Promise<boolean> {
    const result = await this.run(serverId, 'remove', () => this.api.servers.remove({ serverId }));
    if (result?.ok) {
      this.items = this.items.filter((view) => view.profile.id !== serverId);
      delete this.diagnostics[serverId];
    }
    return result?.ok ?? false;
  }

  connect(serverId: string): Promise<boolean> {
    return this.runView(serverId, 'connect', () => this.api.servers.connect({ serverId }));
  }

  disconnect(serverId: string): Promise<boolean> {
    return this.runView(serverId, 'disconnect', () => this.api.servers.disconnect({ serverId }));
  }

  /** The fingerprint is the one the user saw: the backend trusts a key only while it is still that one. */
  trustHostKey(serverId: string, fingerprint: string): Promise<boolean> {
    return this.runView(serverId, 'trust', () => this.api.servers.trustHostKey({ serverId, fingerprint }));
  }

  replaceHostKey(serverId: string, fingerprint: string): Promise<boolean> {
    return this.runView(serverId, 'replace', () => this.api.servers.replaceHostKey({ serverId, fingerprint }));
  }

  /**
   * Sends a secret (or null: cancelled). The value is passed through, never stored here. Not
   * guarded like the other actions: the connect or test that asked is still running.
   */
  async answerPrompt(serverId: string, promptId: string, value: string | null): Promise<boolean> {
    const result = await this.api.servers.answerPrompt({ promptId, value });
    if (!result.ok) this.errors[serverId] = result.error;
    return result.ok;
  }

  async test(serverId: string): Promise<DiagnosticsReport | null> {
    const result = await this.run(serverId, 'test', () => this.api.servers.test({ serverId }));
    if (!result?.ok) return null;
    this.diagnostics[serverId] = result.value;
    return result.value;
  }

  async loadSshConfig(): Promise<void> {
    this.sshConfigLoading = true;
    const result = await this.api.servers.sshConfig();
    this.sshConfigLoading = false;
    if (result.ok) {
      this.sshConfig = result.value;
      this.sshConfigError = null;
    } else {
      this.sshConfigError = result.error;
    }
  }

  dismissError(serverId: string): void {
    delete this.errors[serverId];
  }

  /**
   * Runs an action; the same action on the same server twice at once sends nothing the second
   * time. Different actions may overlap on purpose: a connect, trust or test waits for the user to
   * answer a prompt or a host-key question, and that answer must go through while it waits.
   */
  private async run<T>(serverId: string, action: ServerAction, call: () => Promise<Result<T>>): Promise<Result<T> | null> {
    const key = `${serverId}:${action}`;
    if (this.running[key]) return null;
    this.running[key] = true;
    this.busy[serverId] = action;
    delete this.errors[serverId];
    const result = await call();
    delete this.running[key];
    // The busy flag shows an action still running on this server, if any.
    const still = Object.keys(this.running).find((other) => other.startsWith(`${serverId}:`));
    if (still) this.busy[serverId] = still.slice(serverId.length + 1) as ServerAction;
    else delete this.busy[serverId];
    if (!result.ok) {
      this.errors[serverId] = result.error;
      // Removed in another window: the list is stale, so refetching shows the truth.
      if (result.error.code === 'SERVER_NOT_FOUND') await this.load();
    }
    return result;
  }

  private async runView(serverId: string, action: ServerAction, call: () => Promise<Result<ServerView>>): Promise<boolean> {
    const seen = this.snapshots;
    const result = await this.run(serverId, action, call);
    if (result?.ok) this.upsert(result.value, seen);
    return result?.ok ?? false;
  }

  protected override forgetMissing(ids: readonly string[]): void {
    for (const id of Object.keys(this.errors)) if (!ids.includes(id)) delete this.errors[id];
    for (const id of Object.keys(this.diagnostics)) if (!ids.includes(id)) delete this.diagnostics[id];
  }
}
