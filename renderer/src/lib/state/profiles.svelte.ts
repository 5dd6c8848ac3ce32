import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { Result } from '../../../../electron/shared/result';
import type { ProfileCommand, ProfileInput, ProfileStartRequest, ProfileView } from '../../../../electron/shared/schemas-profiles';
import { SnapshotList } from './snapshot-list.svelte';

export type ProfileAction = 'start' | 'stop' | 'restart' | 'remove' | 'command';

/** What Start/Restart asks beyond the profile id (`ProfileStartRequest` with its defaults optional). */
export type StartOptions = Partial<Omit<ProfileStartRequest, 'profileId'>>;

/**
 * The swarm profiles of one engine as its section on the Servers page shows them: the backend's
 * snapshot (`profiles:list`, then every `profiles:changed`, filtered to this engine) and every action
 * with its busy flag and error per profile. Secret values pass through `startServer`/`restartServer`
 * to the backend and are never kept here.
 */
export class ProfilesState extends SnapshotList<ProfileView> {
  busy = $state<Record<string, ProfileAction>>({});
  errors = $state<Record<string, AppErrorShape>>({});
  commands = $state<Record<string, ProfileCommand>>({});

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
  ) {
    super();
  }

  protected subscribe(listener: (views: ProfileView[]) => void): () => void {
    return this.api.events.on('profiles:changed', listener);
  }

  protected fetch(): Promise<Result<ProfileView[]>> {
    return this.api.profiles.list();
  }

  /** The snapshot holds every engine's profiles: this section shows its own engine's. */
  protected override keeps(view: ProfileView): boolean {
    return view.profile.engineId === this.engineId;
  }

  async add(input: ProfileInput): Promise<{ error: AppErrorShape } | { view: ProfileView }> {
    const seen = this.snapshots;
    const result = await this.api.profiles.add(input);
    if (!result.ok) return { error: result.error };
    this.upsert(result.value, seen);
    return { view: result.value };
  }

  async update(profileId: string, input: ProfileInput): Promise<{ error: AppErrorShape } | { view: ProfileView }> {
    const seen = this.snapshots;
    const result = await this.api.profiles.update({ profileId, profile: input });
    if (!result.ok) return { error: result.error };
    this.upsert(result.value, seen);
    return { view: result.value };
  }

  async remove(profileId: string): Promise<boolean> {
    const result = await this.run(profileId, 'remove', () => this.api.profiles.remove({ profileId }));
    if (result?.ok) this.items = this.items.filter((v) => v.profile.id !== profileId);
    return result?.ok ?? false;
  }

  /** Resolves to the error (also kept in `errors` unless the caller's dialog shows it: `quiet`). */
  async startServer(profileId: string, options: StartOptions = {}, quiet = false): Promise<AppErrorShape | null> {
    return this.runView(profileId, 'start', () => this.api.profiles.start({ profileId, ...options }), quiet);
  }

  async restartServer(profileId: string, options: StartOptions = {}, quiet = false): Promise<AppErrorShape | null> {
    return this.runView(profileId, 'restart', () => this.api.profiles.restart({ profileId, ...options }), quiet);
  }

  async stopServer(profileId: string): Promise<AppErrorShape | null> {
    return this.runView(profileId, 'stop', () => this.api.profiles.stop({ profileId }), false);
  }

  async command(profileId: string): Promise<ProfileCommand | null> {
    const result = await this.run(profileId, 'command', () => this.api.profiles.command({ profileId }));
    if (!result?.ok) return null;
    this.commands[profileId] = result.value;
    return result.value;
  }

  /** Shows an error a caller got with `quiet` and decided not to handle in its own dialog. */
  showError(profileId: string, error: AppErrorShape): void {
    this.errors[profileId] = error;
  }

  dismissError(profileId: string): void {
    delete this.errors[profileId];
  }

  /** One action per profile at a time: a second press while one runs sends nothing. */
  private async run<T>(profileId: string, action: ProfileAction, call: () => Promise<Result<T>>, quiet = false): Promise<Result<T> | null> {
    if (this.busy[profileId]) return null;
    this.busy[profileId] = action;
    delete this.errors[profileId];
    const result = await call();
    delete this.busy[profileId];
    if (!result.ok) {
      if (!quiet) this.errors[profileId] = result.error;
      // Removed in another window: the list is stale.
      if (result.error.code === 'PROFILE_NOT_FOUND') await this.load();
    }
    return result;
  }

  private async runView(profileId: string, action: ProfileAction, call: () => Promise<Result<ProfileView>>, quiet: boolean): Promise<AppErrorShape | null> {
    const seen = this.snapshots;
    const result = await this.run(profileId, action, call, quiet);
    if (result === null) return null;
    if (!result.ok) return result.error;
    this.upsert(result.value, seen);
    return null;
  }

  protected override forgetMissing(ids: readonly string[]): void {
    for (const id of Object.keys(this.errors)) if (!ids.includes(id)) delete this.errors[id];
  }
}
