import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { Settings, SettingsPatch, StoreStatus } from '../../../../electron/shared/schemas';
import { effectiveLanguage, setLocale } from '../i18n';

/**
 * The backend's settings as the UI last saw them. The language follows them: whatever the
 * backend says (on start, after a save, or via `settings:changed` from another window) wins,
 * once the user has chosen one; before that, the system's language.
 */
export class SettingsState {
  value = $state<Settings | null>(null);
  loadError = $state<AppErrorShape | null>(null);
  /** What happened to settings.json at start or at the last save (null until known). */
  status = $state<StoreStatus | null>(null);

  constructor(private readonly api: ExposedApi) {}

  start(): () => void {
    const api = this.api;
    const offChanged = api.events.on('settings:changed', (settings) => this.apply(settings));
    // The event keeps the notice current (a fixed file clears it); the call covers a page that
    // loads after the event was sent.
    let heardEvent = false;
    const offStatus = api.events.on('settings:status-changed', (status) => {
      heardEvent = true;
      this.status = status;
    });
    void api.settings.status().then((result) => {
      // An event that arrived meanwhile is newer than this answer.
      if (result.ok && !heardEvent) this.status = result.value;
    });
    void api.settings.get().then((result) => {
      if (result.ok) {
        this.loadError = null;
        this.apply(result.value);
      } else {
        this.loadError = result.error;
      }
    });
    return () => {
      offChanged();
      offStatus();
    };
  }

  /** Saves a patch; resolves to the error to show, or null when saved. */
  async update(patch: SettingsPatch): Promise<AppErrorShape | null> {
    const result = await this.api.settings.update(patch);
    if (!result.ok) return result.error;
    this.apply(result.value);
    return null;
  }

  private apply(settings: Settings): void {
    this.value = settings;
    // Until the user picks a language, the OS or browser language decides (first launch).
    setLocale(effectiveLanguage(settings));
  }
}
