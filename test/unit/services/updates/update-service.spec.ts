import { describe, expect, it } from 'vitest';
import { UpdatesView, type RunningJobRef } from '../../../../electron/shared/schemas-updates';
import { UpdateService } from '../../../../electron/services/updates/update-service';
import { classifyUpdateError } from '../../../../electron/services/updates/update-errors';
import type { DownloadProgress, FoundUpdate, UpdaterPort } from '../../../../electron/services/updates/updater-port';

/**
 * TEST DOUBLE: an updater whose answers the test hands out by hand (no feed, no Electron). The
 * real electron-updater against a local feed is in local-feed.spec.ts.
 */
class ScriptedUpdater implements UpdaterPort {
  checks: { resolve: (found: FoundUpdate | null) => void; reject: (error: unknown) => void }[] = [];
  downloads: { progress: (p: DownloadProgress) => void; resolve: () => void; reject: (error: unknown) => void }[] = [];
  installs = 0;
  installThrows: Error | null = null;
  check(): Promise<FoundUpdate | null> {
    return new Promise((resolve, reject) => this.checks.push({ resolve, reject }));
  }
  download(onProgress: (p: DownloadProgress) => void): Promise<void> {
    return new Promise((resolve, reject) => this.downloads.push({ progress: onProgress, resolve, reject }));
  }
  install(): void {
    if (this.installThrows) throw this.installThrows;
    this.installs += 1;
  }
}

const found: FoundUpdate = { version: '0.2.0', notes: '<p>Faster start</p>', releaseDate: '2026-12-01T00:00:00.000Z' };

function setup(running: RunningJobRef[] = []) {
  const updater = new ScriptedUpdater();
  const views: UpdatesView[] = [];
  const jobs = { running };
  const service = new UpdateService({
    currentVersion: '0.1.0',
    updater,
    runningJobs: () => jobs.running,
    onChange: (view) => views.push(UpdatesView.parse(view)),
    now: () => new Date('2026-12-05T10:00:00.000Z'),
  });
  return { updater, views, service, jobs, statuses: () => views.map((v) => v.state.status) };
}

describe('UpdateService (the update state machine, plain Node)', () => {
  it('starts idle and goes checking → available with the version and notes the feed gave', async () => {
    const { service, updater, views, statuses } = setup();
    expect(service.view()).toEqual({ currentVersion: '0.1.0', state: { status: 'idle' } });
    const checked = service.check();
    expect(service.view().state).toEqual({ status: 'checking' });
    updater.checks[0]!.resolve(found);
    expect((await checked).state).toEqual({ status: 'available', version: '0.2.0', notes: '<p>Faster start</p>', releaseDate: '2026-12-01T00:00:00.000Z' });
    expect(statuses()).toEqual(['checking', 'available']);
    expect(views.at(-1)!.currentVersion).toBe('0.1.0');
  });

  it('says not-available (with when) when this is the latest version, and one check serves two callers', async () => {
    const { service, updater } = setup();
    const first = service.check();
    const second = service.check();
    expect(updater.checks).toHaveLength(1);
    updater.checks[0]!.resolve(null);
    expect((await first).state).toEqual({ status: 'not-available', checkedAt: '2026-12-05T10:00:00.000Z' });
    expect(await second).toEqual(await first);
  });

  it('turns a failed check into error{code}: offline is "network", a missing latest*.yml is "feed-missing"', async () => {
    const { service, updater } = setup();
    const offline = service.check();
    updater.checks[0]!.reject(Object.assign(new Error('getaddrinfo ENOTFOUND updates.invalid'), { code: 'ENOTFOUND' }));
    expect((await offline).state).toEqual({ status: 'error', code: 'network', message: 'getaddrinfo ENOTFOUND updates.invalid' });
    const missing = service.check();
    updater.checks[1]!.reject(Object.assign(new Error('Cannot find latest-linux.yml in the latest release artifacts'), { code: 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND' }));
    expect((await missing).state).toMatchObject({ status: 'error', code: 'feed-missing' });
  });

  it('downloads with progress (one event per whole percent) and becomes ready', async () => {
    const { service, updater, views, statuses } = setup();
    const checked = service.check();
    updater.checks[0]!.resolve(found);
    await checked;
    expect(service.download().state).toMatchObject({ status: 'downloading', version: '0.2.0', percent: 0 });
    const { progress, resolve } = updater.downloads[0]!;
    progress({ percent: 10.2, transferred: 102, total: 1000 });
    progress({ percent: 10.7, transferred: 107, total: 1000 }); // same whole percent: no event
    progress({ percent: 55, transferred: 550, total: 1000 });
    expect(views.filter((v) => v.state.status === 'downloading').map((v) => (v.state.status === 'downloading' ? v.state.percent : -1))).toEqual([0, 10.2, 55]);
    resolve();
    await service.settled();
    expect(service.view().state).toEqual({ status: 'ready', version: '0.2.0', notes: '<p>Faster start</p>' });
    expect(statuses()).toEqual(['checking', 'available', 'downloading', 'downloading', 'downloading', 'ready']);
  });

  it('a checksum failure of the download is error{checksum-mismatch}, and the download may be tried again', async () => {
    const { service, updater } = setup();
    const checked = service.check();
    updater.checks[0]!.resolve(found);
    await checked;
    service.download();
    updater.downloads[0]!.reject(Object.assign(new Error('sha512 checksum mismatch, expected abc, got def'), { code: 'ERR_CHECKSUM_MISMATCH' }));
    await service.settled();
    expect(service.view().state).toMatchObject({ status: 'error', code: 'checksum-mismatch' });
    expect(service.download().state.status).toBe('downloading');
    expect(updater.downloads).toHaveLength(2);
  });

  it('refuses to download before a check found something, and to install before the download finished', () => {
    const { service } = setup();
    expect(() => service.download()).toThrow(expect.objectContaining({ code: 'UPDATE_UNAVAILABLE' }));
    expect(() => service.install({ confirmRunningJobs: true })).toThrow(expect.objectContaining({ code: 'UPDATE_UNAVAILABLE' }));
  });

  async function readyService(running: RunningJobRef[]) {
    const setupResult = setup(running);
    const checked = setupResult.service.check();
    setupResult.updater.checks[0]!.resolve(found);
    await checked;
    setupResult.service.download();
    setupResult.updater.downloads[0]!.resolve();
    await setupResult.service.settled();
    return setupResult;
  }

  it('never restarts while a job runs without asking: it names the jobs and installs only once confirmed', async () => {
    const running = [{ jobId: 'job-7', label: 'agent_roll.py' }];
    const { service, updater, jobs } = await readyService(running);
    expect(service.install({ confirmRunningJobs: false })).toEqual({ restarting: false, runningJobs: running });
    expect(updater.installs).toBe(0);
    expect(service.view().state.status).toBe('ready');
    expect(service.install({ confirmRunningJobs: true })).toEqual({ restarting: true });
    expect(updater.installs).toBe(1);
    // Asked again later with no job running: no question needed.
    jobs.running = [];
    expect(service.install({ confirmRunningJobs: false })).toEqual({ restarting: true });
  });

  it('restarts at once when no job runs', async () => {
    const { service, updater } = await readyService([]);
    expect(service.install({ confirmRunningJobs: false })).toEqual({ restarting: true });
    expect(updater.installs).toBe(1);
  });

  it('an installer that cannot start is error{install-failed}', async () => {
    const { service, updater } = await readyService([]);
    updater.installThrows = new Error('spawn EACCES');
    expect(() => service.install({ confirmRunningJobs: false })).toThrow(expect.objectContaining({ code: 'UPDATE_UNAVAILABLE' }));
    expect(service.view().state).toEqual({ status: 'error', code: 'install-failed', message: 'spawn EACCES' });
  });

  it('without an updater it is unsupported (with the reason) and every action says so', async () => {
    const views: UpdatesView[] = [];
    const service = new UpdateService({ currentVersion: '0.1.0', updater: null, unsupportedReason: 'browser-host', runningJobs: () => [], onChange: (v) => views.push(v) });
    expect(service.view().state).toEqual({ status: 'unsupported', reason: 'browser-host' });
    expect(() => service.check()).toThrow(expect.objectContaining({ code: 'UPDATE_UNAVAILABLE', params: { reason: 'browser-host' } }));
    expect(() => service.download()).toThrow(expect.objectContaining({ code: 'UPDATE_UNAVAILABLE' }));
    expect(() => service.install({ confirmRunningJobs: true })).toThrow(expect.objectContaining({ code: 'UPDATE_UNAVAILABLE' }));
    expect(views).toEqual([]);
  });

  it('caps huge release notes so every event stays small', async () => {
    const { service, updater } = setup();
    const checked = service.check();
    updater.checks[0]!.resolve({ ...found, notes: 'x'.repeat(50_000) });
    const view = await checked;
    expect(UpdatesView.safeParse(view).success).toBe(true);
    expect(view.state.status === 'available' && view.state.notes?.length).toBe(20_000);
  });
});

describe('classifyUpdateError', () => {
  it.each([
    [{ code: 'ERR_CHECKSUM_MISMATCH', message: 'x' }, 'checksum-mismatch'],
    [{ code: 'ERR_UPDATER_INVALID_SIGNATURE', message: 'x' }, 'signature-invalid'],
    [{ code: 'ERR_UPDATER_LATEST_VERSION_NOT_FOUND', message: 'x' }, 'feed-missing'],
    [{ statusCode: 404, message: 'HttpError: 404' }, 'feed-missing'],
    [{ statusCode: 503, message: 'HttpError: 503' }, 'network'],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }, 'network'],
    [new Error('something else'), 'unknown'],
  ])('%j → %s', (error, code) => {
    expect(classifyUpdateError(error)).toBe(code);
  });
});
