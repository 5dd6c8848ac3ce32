import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

const unreadable = {
  file: '/home/u/.config/AgentSwarm Desktop/settings.json',
  problem: 'unreadable' as const,
  writable: false,
  detail: 'EISDIR: it is a folder, not a file',
  movedTo: null,
  resetFields: [],
};

describe('settings file notice', () => {
  it('shows a short notice in the app shell and the full story on the Settings page', async () => {
    api.settingsStatus = unreadable;
    render(App);
    const short = await screen.findByTestId('settings-file-notice-short');
    expect(short.textContent).toContain('could not be read');
    expect(short.dataset.problem).toBe('unreadable');

    await fireEvent.click(within(short).getByRole('button', { name: 'Details in Settings' }));
    const full = await screen.findByTestId('settings-file-notice');
    expect(screen.getByTestId('settings-file-path').textContent).toBe(unreadable.file);
    expect(full.textContent).toContain('Reason: EISDIR: it is a folder, not a file');
    expect(full.textContent).toContain('Fix or move that file');
    // On the Settings page the full notice replaces the short one.
    expect(screen.queryByTestId('settings-file-notice-short')).toBeNull();
  });

  it('says when the settings folder takes no write (read-only, full disk), with the cause', async () => {
    api.settingsStatus = { ...unreadable, problem: 'not-writable', writable: false, detail: 'EROFS: the folder is on a read-only file system: make it writable or choose another data folder' };
    render(App);
    const short = await screen.findByTestId('settings-file-notice-short');
    expect(short.textContent).toContain('Settings cannot be saved');
    await fireEvent.click(within(short).getByRole('button', { name: 'Details in Settings' }));
    const full = await screen.findByTestId('settings-file-notice');
    expect(full.textContent).toContain('Reason: EROFS: the folder is on a read-only file system');
    expect(full.textContent).toContain('the app tries the write again each time');
  });

  it('names where a damaged file was moved, and which fields were reset', async () => {
    api.settingsStatus = { ...unreadable, problem: 'fields-reset', writable: true, detail: null, movedTo: '/x/settings.json.invalid-1', resetFields: ['language', 'swarm.port'] };
    render(App);
    await fireEvent.click(await screen.findByTestId('nav-settings'));
    const full = await screen.findByTestId('settings-file-notice');
    expect(screen.getByTestId('settings-file-moved-to').textContent).toBe('/x/settings.json.invalid-1');
    expect(full.textContent).toContain('Reset to defaults: language, swarm.port');
  });

  it('follows settings:status-changed: a fixed file clears the notice, a new problem shows it', async () => {
    render(App);
    await waitFor(() => expect(api.listenerCount('settings:status-changed')).toBe(1));
    await waitFor(() => expect(api.requestsOn('settings:status')).toHaveLength(1));
    expect(screen.queryByTestId('settings-file-notice-short')).toBeNull();
    api.emit('settings:status-changed', unreadable);
    await screen.findByTestId('settings-file-notice-short');
    api.emit('settings:status-changed', { ...unreadable, problem: null, writable: true, detail: null });
    await waitFor(() => expect(screen.queryByTestId('settings-file-notice-short')).toBeNull());
  });
});

describe('App log section on the Settings page', () => {
  it('shows the path and recent lines, and Open asks the backend to open the file', async () => {
    api.appLog = { ...api.appLog, lines: ['2026-12-03T08:00:00.000Z INFO starting', '2026-12-03T08:00:01.000Z WARN settings.json: unreadable'] };
    render(App);
    await fireEvent.click(await screen.findByTestId('nav-settings'));
    const section = await screen.findByTestId('app-log-section');
    await waitFor(() => expect((screen.getByTestId('app-log-path') as HTMLInputElement).value).toBe(api.appLog.path));
    expect((within(section).getByTestId('app-log-lines') as HTMLTextAreaElement).value).toContain('WARN settings.json: unreadable');
    expect(api.requestsOn('app:log')).toEqual([{ lines: 200 }]);
    await fireEvent.click(within(section).getByTestId('app-log-open'));
    await waitFor(() => expect(api.requestsOn('app:open-log')).toHaveLength(1));
    expect(within(section).queryByTestId('error-banner')).toBeNull();
  });

  it('in the browser host: no Open button, a hint to copy the path; an open failure shows LOG_UNAVAILABLE', async () => {
    api.appLog = { ...api.appLog, canOpen: false };
    render(App);
    await fireEvent.click(await screen.findByTestId('nav-settings'));
    const section = await screen.findByTestId('app-log-section');
    await within(section).findByTestId('app-log-copy');
    expect(within(section).queryByTestId('app-log-open')).toBeNull();
    expect(section.textContent).toContain('copy the path');
    expect(within(section).getByText('Nothing logged yet.')).toBeTruthy();
  });

  it('shows why opening failed', async () => {
    render(App);
    await fireEvent.click(await screen.findByTestId('nav-settings'));
    const section = await screen.findByTestId('app-log-section');
    const open = await within(section).findByTestId('app-log-open');
    api.failNext('app:open-log', { code: 'LOG_UNAVAILABLE', message: 'Could not open /x/app.log (no viewer).' });
    await fireEvent.click(open);
    const banner = await within(section).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('LOG_UNAVAILABLE');
    expect(banner.textContent).toContain('Could not open /x/app.log');
  });

  it('shows that the log file cannot be written', async () => {
    api.appLog = { ...api.appLog, problem: 'ENOTDIR: cannot write /x/app.log (the data folder path is a file, not a folder)' };
    render(App);
    await fireEvent.click(await screen.findByTestId('nav-settings'));
    expect((await screen.findByTestId('app-log-problem')).textContent).toContain('the data folder path is a file');
  });
});
