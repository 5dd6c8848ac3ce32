import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { LogTail } from '../../../../electron/shared/schemas';

/** Lines shown on the Settings page; the file holds more (rotated at its size cap). */
export const APP_LOG_LINES = 200;

/**
 * The app log as the Settings page shows it: where it is, its last lines (redacted by the
 * backend), and opening it in the system's viewer where the host can (Electron).
 */
export class AppLogState {
  tail = $state<LogTail | null>(null);
  error = $state<AppErrorShape | null>(null);
  loading = $state(false);
  opening = $state(false);

  constructor(private readonly api: ExposedApi) {}

  async refresh(): Promise<void> {
    this.loading = true;
    const result = await this.api.app.log({ lines: APP_LOG_LINES });
    this.loading = false;
    if (result.ok) {
      this.tail = result.value;
      this.error = null;
    } else {
      this.error = result.error;
    }
  }

  /** Asks the backend to open the file; a failure (or the browser host) shows LOG_UNAVAILABLE. */
  async open(): Promise<void> {
    this.opening = true;
    const result = await this.api.app.openLog();
    this.opening = false;
    this.error = result.ok ? null : result.error;
  }
}
