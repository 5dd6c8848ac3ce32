import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { checkProfileDraft, draftFromProfile, emptyProfileDraft } from '../../renderer/src/lib/profile-form';
import { Profile } from '../../electron/shared/schemas-profiles';
import type { FleetAlert } from '../../electron/shared/schemas-fleet';
import { FakeApi } from './fake-api';
import { installFleetFake } from './fakes/fleet';

const base = { label: 'Night run', engineId: 'local', image: 'ghcr.io/modelscope/agentjet:main', id: 'night-run', createdAt: 'x', updatedAt: 'x' } as const;

describe('the profile form: auto-stop', () => {
  it('is off by default, round-trips through an edit, and minutes only count while it is on', () => {
    expect(Profile.parse(base).autoStop).toEqual({ enabled: false, minutes: 30 });
    const profile = Profile.parse({ ...base, autoStop: { enabled: true, minutes: 0.5 } });
    const draft = draftFromProfile(profile);
    expect(draft).toMatchObject({ autoStopEnabled: true, autoStopMinutes: '0.5' });
    expect(checkProfileDraft(draft, 'local').profile?.autoStop).toEqual({ enabled: true, minutes: 0.5 });
    expect(checkProfileDraft({ ...draft, autoStopMinutes: 'soon' }, 'local').errors.autoStop).toBeTruthy();
    expect(checkProfileDraft({ ...draft, autoStopEnabled: false, autoStopMinutes: 'soon' }, 'local').profile?.autoStop).toEqual({ enabled: false, minutes: 30 });
    expect(checkProfileDraft({ ...emptyProfileDraft(), label: 'x' }, 'local').profile?.autoStop).toEqual({ enabled: false, minutes: 30 });
  });

  it('is a field of the profile dialog: turned on with its minutes and sent with the profile, worded in zh-CN', async () => {
    const api = new FakeApi();
    setApiForTests(api);
    api.settingsValue.language = 'zh-CN';
    render(App);
    const list = await screen.findByTestId('profile-list');
    await fireEvent.click(within(list).getByTestId('profile-new'));
    const dialog = await screen.findByTestId('profile-dialog');
    const group = within(dialog).getByRole('group', { name: '自动停止' });
    expect(within(group).queryByTestId('profile-form-auto-stop-minutes')).toBeNull();
    await fireEvent.click(within(group).getByRole('checkbox', { name: 'GPU 持续空闲时停止此服务器' }));
    const minutes = (await within(group).findByLabelText('GPU 空闲告警之后的分钟数')) as HTMLInputElement;
    expect(minutes.value).toBe('30');
    await fireEvent.input(minutes, { target: { value: '45' } });
    await fireEvent.input(within(dialog).getByTestId('profile-form-label'), { target: { value: 'Night run' } });
    await fireEvent.click(within(dialog).getByTestId('profile-form-submit'));
    await waitFor(() => expect(screen.queryByTestId('profile-dialog')).toBeNull());
    expect((api.requestsOn('profiles:add') as Record<string, unknown>[])[0]).toMatchObject({ label: 'Night run', autoStop: { enabled: true, minutes: 45 } });
  });
});

describe('the alert list: auto-stop', () => {
  let api: FakeApi;
  beforeEach(() => {
    api = new FakeApi();
    setApiForTests(api);
    installFleetFake(api);
  });

  it('says when a GPUs-idle alert stops its server, and its button keeps it running', async () => {
    const at = new Date(Date.now() + 7 * 60_000 + 30_000).toISOString();
    const idle: FleetAlert = { id: 'a1', rule: 'gpus-idle', engineId: 'local', containerId: 'c1', name: '"Night run"', state: 'open', openedAt: new Date().toISOString(), resolvedAt: null, detail: '4 GPUs under 5 % for 15 min', autoStop: { at, warnedAt: new Date().toISOString(), state: 'pending' } };
    const stopped: FleetAlert = { ...idle, id: 'a0', containerId: 'c0', state: 'resolved', resolvedAt: new Date().toISOString(), autoStop: { at, warnedAt: at, state: 'stopped' } };
    api.answer('alerts:list', () => [stopped, idle]);
    api.answer('alerts:acknowledge', () => ({ ...idle, state: 'acknowledged' as const, autoStop: { at, warnedAt: at, state: 'kept' as const } }));
    render(App);
    await fireEvent.click(screen.getByTestId('nav-fleet'));
    const rows = await screen.findAllByTestId('fleet-alert');
    expect(within(rows[0]!).getByTestId('fleet-alert-auto-stop').textContent).toMatch(/^Auto-stop in 7 min \d+ s$/);
    expect(within(rows[1]!).getByTestId('fleet-alert-auto-stop').textContent).toBe('Stopped by auto-stop');
    await fireEvent.click(within(rows[0]!).getByRole('button', { name: 'Keep running' }));
    await waitFor(() => expect(within(screen.getAllByTestId('fleet-alert')[0]!).getByTestId('fleet-alert-auto-stop').textContent).toBe('Kept running: no auto-stop for this episode'));
    expect(api.calls.filter((c) => c.channel === 'alerts:acknowledge').map((c) => c.request)).toEqual([{ id: 'a1' }]);
  });
});
