import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import type { UpdatesView } from '../../electron/shared/schemas-updates';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import UpdatesSection from '../../renderer/src/pages/settings/UpdatesSection.svelte';
import { notesAsText } from '../../renderer/src/pages/settings/updates-state.svelte';
import { FakeApi } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
  setLocale('en');
});

const view = (state: UpdatesView['state']): UpdatesView => ({ currentVersion: '0.1.0', state });

describe('Settings → Updates', () => {
  it('in the browser host: shows the version and says updates are off, with no update buttons', async () => {
    render(UpdatesSection, { api });
    const section = await screen.findByTestId('updates-section');
    await waitFor(() => expect(within(section).getByTestId('updates-current-version').textContent).toBe('This is version 0.1.0.'));
    expect(within(section).getByTestId('updates-unsupported').textContent).toContain('Updates are off in the browser host');
    expect(within(section).queryByTestId('updates-check')).toBeNull();
  });

  it('a .deb install is told to use the package manager (in Chinese too)', async () => {
    api.answer('updates:state', () => view({ status: 'unsupported', reason: 'deb' }));
    setLocale('zh-CN');
    render(UpdatesSection, { api });
    await waitFor(() => expect(screen.getByTestId('updates-unsupported').textContent).toContain('包管理器'));
  });

  it('check → available with release notes (as text) → download with progress → ready → restart', async () => {
    api.answer('updates:state', () => view({ status: 'idle' }));
    api.answer('updates:check', () => view({ status: 'available', version: '0.2.0', notes: '<p>Faster <b>start</b></p><ul><li>Updates</li></ul>', releaseDate: null }));
    api.answer('updates:download', () => view({ status: 'downloading', version: '0.2.0', notes: null, percent: 0, transferred: 0, total: 100 }));
    api.answer('updates:install', () => ({ restarting: true }));
    render(UpdatesSection, { api });
    await fireEvent.click(await screen.findByTestId('updates-check'));
    await waitFor(() => expect(screen.getByTestId('updates-status').textContent).toContain('Version 0.2.0 is available.'));
    expect(screen.getByTestId('updates-notes').textContent).toContain('Faster start');
    expect(screen.getByTestId('updates-notes').innerHTML).not.toContain('<b>');

    await fireEvent.click(screen.getByTestId('updates-download'));
    api.emit('updates:state-changed', view({ status: 'downloading', version: '0.2.0', notes: null, percent: 42.5, transferred: 425, total: 1000 }));
    await waitFor(() => expect(screen.getByTestId('updates-status').textContent).toContain('Downloading version 0.2.0: 42%'));
    expect((screen.getByTestId('updates-progress') as HTMLProgressElement).value).toBe(42.5);

    api.emit('updates:state-changed', view({ status: 'ready', version: '0.2.0', notes: null }));
    await fireEvent.click(await screen.findByTestId('updates-restart'));
    await waitFor(() => expect(screen.getByText('Restarting to install the update…')).toBeTruthy());
    expect(api.calls.filter((c) => c.channel === 'updates:install').map((c) => c.request)).toEqual([{ confirmRunningJobs: false }]);
  });

  it('"Restart to update" while jobs run names them and restarts only after the confirmation', async () => {
    api.answer('updates:state', () => view({ status: 'ready', version: '0.2.0', notes: null }));
    api.answer('updates:install', (request) =>
      request?.confirmRunningJobs ? { restarting: true } : { restarting: false, runningJobs: [{ jobId: 'j1', label: 'agent_roll.py' }] },
    );
    render(UpdatesSection, { api });
    await fireEvent.click(await screen.findByTestId('updates-restart'));
    const confirm = await screen.findByTestId('updates-confirm');
    expect(confirm.textContent).toContain('agent_roll.py');
    expect(screen.queryByText('Restarting to install the update…')).toBeNull();
    await fireEvent.click(within(confirm).getByTestId('updates-confirm-restart'));
    await waitFor(() => expect(screen.getByText('Restarting to install the update…')).toBeTruthy());
    expect(api.calls.filter((c) => c.channel === 'updates:install').map((c) => c.request)).toEqual([{ confirmRunningJobs: false }, { confirmRunningJobs: true }]);
  });

  it('words an error by its code and offers to try again', async () => {
    api.answer('updates:state', () => view({ status: 'error', code: 'checksum-mismatch', message: 'sha512 checksum mismatch' }));
    render(UpdatesSection, { api });
    await waitFor(() => expect(screen.getByTestId('updates-status').textContent).toContain('did not match its checksum'));
    expect(screen.getByTestId('updates-check').textContent).toContain('Try again');
  });
});

describe('notesAsText', () => {
  it('turns GitHub release HTML into plain text', () => {
    expect(notesAsText('<h2>New</h2><p>A &amp; B</p><ul><li>one</li><li>two</li></ul>')).toBe('New\nA & B\none\ntwo');
  });
});
