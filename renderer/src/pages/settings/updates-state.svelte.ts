import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { RunningJobRef, UpdatesView } from '../../../../electron/shared/schemas-updates';

/**
 * Settings → Updates as the renderer sees it: the backend's update state (`updates:state`, then
 * every `updates:state-changed`), the last action's error, and the jobs a restart would end when
 * the backend asked for a confirmation.
 */
export class UpdatesState {
  view = $state<UpdatesView | null>(null);
  loadError = $state<AppErrorShape | null>(null);
  actionError = $state<AppErrorShape | null>(null);
  /** Set when "Restart to update" was refused because jobs run: the confirmation names them. */
  confirmJobs = $state<RunningJobRef[] | null>(null);
  restarting = $state(false);
  private events = 0;

  constructor(private readonly api: ExposedApi) {}

  /** Loads the state and follows its events; returns the teardown. */
  start(): () => void {
    const off = this.api.events.on('updates:state-changed', (view) => {
      this.events += 1;
      this.view = view;
    });
    const before = this.events;
    void this.api.updates.state().then((result) => {
      if (!result.ok) this.loadError = result.error;
      // An event that came while the request was on its way is newer than the answer.
      else if (this.events === before) this.view = result.value;
    });
    return off;
  }

  async check(): Promise<void> {
    this.actionError = null;
    const result = await this.api.updates.check();
    if (result.ok) this.view = result.value;
    else this.actionError = result.error;
  }

  async download(): Promise<void> {
    this.actionError = null;
    const result = await this.api.updates.download();
    if (result.ok) this.view = result.value;
    else this.actionError = result.error;
  }

  /** First without confirmation: the backend restarts at once when no job runs, else names the jobs. */
  async install(confirmRunningJobs = false): Promise<void> {
    this.actionError = null;
    const result = await this.api.updates.install({ confirmRunningJobs });
    if (!result.ok) {
      this.actionError = result.error;
      return;
    }
    if (result.value.restarting) {
      this.confirmJobs = null;
      this.restarting = true;
    } else this.confirmJobs = result.value.runningJobs;
  }

  cancelConfirm(): void {
    this.confirmJobs = null;
  }
}

/** Release notes come as HTML from GitHub: shown as plain text (never as markup from the feed). */
export function notesAsText(notes: string): string {
  return notes
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|li|h[1-6])>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
