import { AppError } from '../../shared/errors';
import type { RunningJobRef, UpdateInstallAnswer, UpdateState, UpdateUnsupportedReason, UpdatesView } from '../../shared/schemas-updates';
import type { Logger } from '../util/logger';
import { classifyUpdateError, updateErrorMessage } from './update-errors';
import type { FoundUpdate, UpdaterPort } from './updater-port';

export interface UpdateServiceOptions {
  currentVersion: string;
  /** The updater, or null where this copy cannot update itself (then `unsupportedReason` says why). */
  updater: UpdaterPort | null;
  unsupportedReason?: UpdateUnsupportedReason;
  /** The jobs a restart would end right now (the job runner's starting/running/cancelling runs). */
  runningJobs: () => RunningJobRef[];
  /** Every new state, for `updates:state-changed`. */
  onChange: (view: UpdatesView) => void;
  logger?: Logger;
  now?: () => Date;
}

/** Longest release notes kept (the contract caps them; a feed can carry a whole changelog). */
const MAX_NOTES = 20_000;

/**
 * The update state machine: idle → checking → available | not-available | error; available →
 * downloading{percent} → ready | error; ready → install (quit and run the installer). Plain Node:
 * the updater is injected, so the same machine runs against electron-updater in the packaged app
 * and against test updaters here. It never restarts the app while a job runs unless the user,
 * shown those jobs by name, confirmed.
 */
export class UpdateService {
  private state: UpdateState;
  /** The version the last successful check found; a failed download may be retried from it. */
  private found: FoundUpdate | null = null;
  private checking: Promise<UpdatesView> | null = null;
  private downloading: Promise<void> | null = null;

  constructor(private readonly options: UpdateServiceOptions) {
    this.state = options.updater ? { status: 'idle' } : { status: 'unsupported', reason: options.unsupportedReason ?? 'not-packaged' };
  }

  view(): UpdatesView {
    return { currentVersion: this.options.currentVersion, state: this.state };
  }

  /** Asks the feed. A second call while one runs waits for the same answer; a download in flight or finished is left alone. */
  check(): Promise<UpdatesView> {
    const updater = this.requireUpdater('check for updates');
    if (this.checking) return this.checking;
    if (this.state.status === 'downloading' || this.state.status === 'ready') return Promise.resolve(this.view());
    this.set({ status: 'checking' });
    this.checking = (async () => {
      try {
        const found = await updater.check();
        this.found = found ? { ...found, notes: clipNotes(found.notes) } : null;
        if (found) this.set({ status: 'available', version: found.version, notes: clipNotes(found.notes), releaseDate: found.releaseDate });
        else this.set({ status: 'not-available', checkedAt: (this.options.now?.() ?? new Date()).toISOString() });
      } catch (error) {
        this.fail('check', error);
      } finally {
        this.checking = null;
      }
      return this.view();
    })();
    return this.checking;
  }

  /** Starts downloading the version found and answers at once; progress and the end come as state changes. */
  download(): UpdatesView {
    const updater = this.requireUpdater('download an update');
    if (this.state.status === 'downloading' || this.state.status === 'ready') return this.view();
    const found = this.found;
    if (!found || (this.state.status !== 'available' && this.state.status !== 'error')) {
      throw new AppError('UPDATE_UNAVAILABLE', 'There is no update to download: check for updates first.');
    }
    const base = { status: 'downloading' as const, version: found.version, notes: found.notes };
    this.set({ ...base, percent: 0, transferred: 0, total: 0 });
    let shownPercent = 0;
    this.downloading = updater
      .download((progress) => {
        if (this.state.status !== 'downloading') return;
        const percent = Math.min(100, Math.max(0, progress.percent));
        // One event per whole percent: electron-updater reports many times a second.
        if (Math.floor(percent) === shownPercent && percent < 100) return;
        shownPercent = Math.floor(percent);
        this.set({ ...base, percent, transferred: progress.transferred, total: progress.total });
      })
      .then(
        () => this.set({ status: 'ready', version: found.version, notes: found.notes }),
        (error: unknown) => this.fail('download', error),
      )
      .finally(() => {
        this.downloading = null;
      });
    return this.view();
  }

  /** Resolves when a download in flight has ended (ready or error); at once when none runs. For tests and shutdown. */
  async settled(): Promise<void> {
    await this.downloading;
  }

  /**
   * Quits and installs the downloaded version. While jobs run it does nothing and names them,
   * unless `confirmRunningJobs` says the user has seen that list and chose to restart anyway.
   */
  install(request: { confirmRunningJobs: boolean }): UpdateInstallAnswer {
    const updater = this.requireUpdater('install an update');
    if (this.state.status !== 'ready') {
      throw new AppError('UPDATE_UNAVAILABLE', 'No update has been downloaded yet: download it first.');
    }
    const runningJobs = this.options.runningJobs();
    if (runningJobs.length > 0 && !request.confirmRunningJobs) {
      return { restarting: false, runningJobs };
    }
    this.options.logger?.info?.('restarting to install an update', { version: this.state.version, endedJobs: runningJobs.length });
    try {
      updater.install();
    } catch (error) {
      this.set({ status: 'error', code: 'install-failed', message: updateErrorMessage(error) });
      throw new AppError('UPDATE_UNAVAILABLE', `The installer could not be started: ${updateErrorMessage(error)}`, { cause: error });
    }
    return { restarting: true };
  }

  private requireUpdater(what: string): UpdaterPort {
    const updater = this.options.updater;
    if (!updater) {
      const reason = this.state.status === 'unsupported' ? this.state.reason : 'not-packaged';
      throw new AppError('UPDATE_UNAVAILABLE', `This copy of the app cannot ${what} (${reason}).`, { params: { reason } });
    }
    return updater;
  }

  private fail(step: 'check' | 'download', error: unknown): void {
    const message = updateErrorMessage(error);
    this.options.logger?.warn(`update ${step} failed`, { message });
    this.set({ status: 'error', code: classifyUpdateError(error), message });
  }

  private set(state: UpdateState): void {
    this.state = state;
    this.options.onChange(this.view());
  }
}

function clipNotes(notes: string | null): string | null {
  if (notes === null) return null;
  return notes.length > MAX_NOTES ? `${notes.slice(0, MAX_NOTES - 1)}…` : notes;
}
