import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { checkProfileDraft, emptyProfileDraft } from '../../renderer/src/lib/profile-form';
import type { DoctorReport, PullView } from '../../electron/shared/schemas-profiles';
import { FakeApi, makeProfileView } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

async function card(profileId = 'qwen-7b'): Promise<HTMLElement> {
  return waitFor(() => {
    const found = screen.getAllByTestId('profile-card').find((el) => el.dataset.profileId === profileId);
    if (!found) throw new Error(`no card for ${profileId}`);
    return found;
  });
}

describe('swarm profiles on the Servers page', () => {
  it('shows a "Swarm profiles" section per engine with New profile, and adds one through the dialog', async () => {
    render(App);
    const list = await screen.findByTestId('profile-list');
    expect(within(list).getByRole('heading', { name: 'Swarm profiles' })).toBeTruthy();
    await waitFor(() => expect(within(list).getByTestId('profile-list-empty')).toBeTruthy());

    await fireEvent.click(within(list).getByTestId('profile-new'));
    const dialog = await screen.findByTestId('profile-dialog');
    // Focus goes into the dialog; a submit with no name focuses the name field and says why.
    await waitFor(() => expect(dialog.contains(document.activeElement)).toBe(true));
    await fireEvent.click(within(dialog).getByTestId('profile-form-submit'));
    await waitFor(() => expect(within(dialog).getByTestId('profile-form-error-label')).toBeTruthy());
    expect(document.activeElement).toBe(within(dialog).getByTestId('profile-form-label'));
    expect(within(dialog).getByTestId('profile-form-label').getAttribute('aria-invalid')).toBe('true');

    await fireEvent.input(within(dialog).getByTestId('profile-form-label'), { target: { value: 'Qwen 7B' } });
    await fireEvent.click(within(dialog).getAllByTestId('profile-form-mirror')[1]!);
    expect((within(dialog).getByTestId('profile-form-image') as HTMLInputElement).value).toBe('ghcr.modelscope.cn/modelscope/agentjet:main');
    await fireEvent.click(within(dialog).getByTestId('profile-form-env-nccl'));
    await fireEvent.input(within(dialog).getByTestId('profile-form-secret-env'), { target: { value: 'SWANLAB_API_KEY' } });
    await fireEvent.click(within(dialog).getByTestId('profile-form-submit'));

    await waitFor(() => expect(screen.queryByTestId('profile-dialog')).toBeNull());
    const [sent] = api.requestsOn('profiles:add') as Record<string, unknown>[];
    expect(sent).toMatchObject({
      label: 'Qwen 7B',
      engineId: 'local',
      image: 'ghcr.modelscope.cn/modelscope/agentjet:main',
      env: [{ name: 'NCCL_NVLS_ENABLE', value: '0' }],
      secretEnv: ['SWANLAB_API_KEY'],
      logDir: '~/swarmlog',
    });
    const box = await card();
    expect(within(box).getByTestId('profile-state-text').textContent).toBe('Not started');
  });

  it('asks secret values in a password field at Start, and offers "Start anyway" after the doctor failed', async () => {
    api.profileViews = [makeProfileView({ secretEnv: ['SWANLAB_API_KEY'] })];
    render(App);
    const box = await card();
    await fireEvent.click(within(box).getByTestId('profile-start'));
    const dialog = await screen.findByTestId('profile-start-dialog');
    const secret = within(dialog).getByTestId('profile-start-secret') as HTMLInputElement;
    expect(secret.type).toBe('password');
    await fireEvent.input(secret, { target: { value: 'sk-typed' } });

    api.failNext('profiles:start', { code: 'DOCTOR_FAILED', message: 'The preflight doctor found problems: image (not present).' });
    await fireEvent.click(within(dialog).getByTestId('profile-start-submit'));
    await waitFor(() => expect(within(dialog).getByTestId('profile-start-doctor-failed')).toBeTruthy());
    await fireEvent.click(within(dialog).getByTestId('profile-start-anyway'));
    await waitFor(() => expect(screen.queryByTestId('profile-start-dialog')).toBeNull());

    expect(api.requestsOn('profiles:start')).toEqual([
      { profileId: 'qwen-7b', secrets: { SWANLAB_API_KEY: 'sk-typed' }, skipDoctor: false, replaceDrifted: false },
      { profileId: 'qwen-7b', secrets: { SWANLAB_API_KEY: 'sk-typed' }, skipDoctor: true, replaceDrifted: false },
    ]);
    // Running, its API not answering yet: the backend's state says "Starting" (issue 31), with how long.
    await waitFor(() => expect(within(box).getByTestId('profile-state-text').textContent).toMatch(/^Starting · for /));
    // Tabs for the running server's dashboard and logs, with the components' props.
    expect(within(box).getByTestId('training-dashboard').dataset.engineId).toBe('local');
    await fireEvent.click(within(box).getByTestId('profile-tab-logs'));
    expect(within(box).getByTestId('logs-panel').dataset.containerId).toBe(api.profileViews[0]!.runtime.container!.id);
    expect(document.body.textContent).not.toContain('sk-typed');
  });

  it('shows drift with "Restart with new settings" and "Keep running"; Stop asks first (every client\'s training ends)', async () => {
    const container = api.makeContainer({ port: 10086 });
    api.profileViews = [makeProfileView({}, { container, drifted: true, containerConfigHash: 'bbbbbbbbbbbbbbbb' })];
    render(App);
    const box = await card();
    expect(within(box).getByTestId('profile-drift-badge').textContent).toBe('Settings changed');
    await fireEvent.click(within(box).getByTestId('profile-keep-running'));
    expect(within(box).queryByTestId('profile-drift')).toBeNull();
    expect(within(box).getByTestId('profile-kept-running')).toBeTruthy();

    api.profileViews[0]!.runtime.configHash = 'cccccccccccccccc';
    api.pushProfiles();
    await waitFor(() => expect(within(box).getByTestId('profile-drift')).toBeTruthy());
    await fireEvent.click(within(box).getByTestId('profile-restart-new'));
    await waitFor(() => expect(api.requestsOn('profiles:restart')).toEqual([{ profileId: 'qwen-7b', replaceDrifted: true }]));
    await waitFor(() => expect(within(box).queryByTestId('profile-drift-badge')).toBeNull());

    await fireEvent.click(within(box).getByTestId('profile-stop'));
    const confirm = within(box).getByTestId('profile-confirm-stop');
    expect(confirm.textContent).toContain('ends training for every client of that server');
    expect(api.requestsOn('profiles:stop')).toEqual([]);
    await fireEvent.keyDown(within(confirm).getByTestId('profile-confirm-yes'), { key: 'Escape' });
    await waitFor(() => expect(within(box).queryByTestId('profile-confirm-stop')).toBeNull());
    expect(document.activeElement).toBe(within(box).getByTestId('profile-stop'));
    await fireEvent.click(within(box).getByTestId('profile-stop'));
    await fireEvent.click(within(box).getByTestId('profile-confirm-yes'));
    await waitFor(() => expect(api.requestsOn('profiles:stop')).toEqual([{ profileId: 'qwen-7b' }]));
    await waitFor(() => expect(within(box).getByTestId('profile-state-text').textContent).toBe('Stopped'));
  });

  it('shows the command with secrets masked and copies it', async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    api.profileViews = [makeProfileView()];
    render(App);
    const box = await card();
    await fireEvent.click(within(box).getByTestId('profile-command'));
    const dialog = await screen.findByTestId('profile-command-dialog');
    expect(within(dialog).getByTestId('profile-command-text').textContent).toContain('SWANLAB_API_KEY=****');
    await fireEvent.click(within(dialog).getByTestId('profile-command-copy'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(expect.stringContaining('docker run -d')));
    expect(dialog.textContent).toContain('Copied');
    await fireEvent.click(within(dialog).getByTestId('profile-command-close'));
    await waitFor(() => expect(screen.queryByTestId('profile-command-dialog')).toBeNull());
  });

  it('checks the form with the backend schema: GPU ids, relative paths, bad env names', () => {
    const draft = { ...emptyProfileDraft(), label: 'x', gpuMode: 'ids' as const, gpuIds: '', logDir: 'relative/dir', env: [{ name: '1BAD', value: 'v' }] };
    const { errors, profile } = checkProfileDraft(draft, 'local');
    expect(profile).toBeNull();
    expect(Object.keys(errors).sort()).toEqual(['env', 'gpus', 'logDir']);
    const ok = checkProfileDraft({ ...emptyProfileDraft(), label: 'x', gpuMode: 'ids', gpuIds: '0, 2', shmMode: 'ipc-host' }, 'gpu');
    expect(ok.profile).toMatchObject({ engineId: 'gpu', gpus: { mode: 'ids', ids: ['0', '2'] }, shm: { mode: 'ipc-host' } });
  });

  it('labels every field of the profile dialog, and Escape closes it with focus back on "New profile"', async () => {
    render(App);
    const list = await screen.findByTestId('profile-list');
    const opener = within(list).getByTestId('profile-new');
    opener.focus();
    await fireEvent.click(opener);
    const dialog = await screen.findByTestId('profile-dialog');
    expect(dialog.getAttribute('aria-labelledby')).toBeTruthy();
    await fireEvent.click(within(dialog).getByTestId('profile-form-env-add'));
    await fireEvent.click(within(dialog).getByTestId('profile-form-gpus-ids'));
    for (const input of dialog.querySelectorAll('input')) {
      const named = input.labels?.length || input.getAttribute('aria-label');
      expect(named, input.outerHTML).toBeTruthy();
    }
    await fireEvent(dialog, new Event('cancel', { cancelable: true }));
    await waitFor(() => expect(screen.queryByTestId('profile-dialog')).toBeNull());
    expect(document.activeElement).toBe(opener);
  });

  it('offers "Pull image" when the doctor says the image is missing, and shows the pull with Cancel wired', async () => {
    const view = makeProfileView();
    api.profileViews = [view];
    render(App);
    const box = await card();
    expect(within(box).queryByTestId('profile-pull')).toBeNull();
    const report: DoctorReport = {
      profileId: view.profile.id,
      engineId: 'local',
      ranAt: '2026-12-03T00:00:00.000Z',
      durationMs: 5,
      verdict: 'fail',
      checks: [{ id: 'image', status: 'fail', detail: 'The image is not on this engine.', fix: 'Pull it.', command: 'docker pull x', commandWhere: 'local' }],
    };
    await waitFor(() => expect(api.listenerCount('doctor:report')).toBeGreaterThan(0));
    api.emit('doctor:report', report);
    await waitFor(() => expect(within(box).getByTestId('doctor-panel').dataset.verdict).toBe('fail'));
    const pull: PullView = {
      pullId: 'p1',
      engineId: 'local',
      image: view.profile.image,
      phase: 'downloading',
      percent: 10,
      layersDone: 0,
      layersTotal: 3,
      bytesDone: 1,
      bytesTotal: 10,
      etaSeconds: 9,
      startedAt: '2026-12-03T00:00:01.000Z',
      endedAt: null,
      error: null,
    };
    api.emit('images:pull-progress', pull);
    await waitFor(() => expect(within(box).getByTestId('pull-progress').dataset.phase).toBe('downloading'));
    expect(within(box).getByTestId('profile-pull').textContent?.trim()).toBe('Pulling…');
    // Done: the doctor runs again by itself, so the card stops asking for a pull.
    api.failNext('doctor:run', { code: 'INTERNAL', message: 'fake: doctor asked again' });
    api.emit('images:pull-progress', { ...pull, phase: 'done', percent: 100, endedAt: '2026-12-03T00:00:09.000Z' });
    await waitFor(() => expect(api.requestsOn('doctor:run')).toEqual([{ profileId: view.profile.id }]));
  });

  it('speaks Chinese in zh-CN', async () => {
    api.settingsValue.language = 'zh-CN';
    api.profileViews = [makeProfileView()];
    render(App);
    const list = await screen.findByTestId('profile-list');
    await waitFor(() => expect(within(list).getByRole('heading', { level: 2 }).textContent).toBe('Swarm 配置'));
    const box = await card();
    expect(within(box).getByTestId('profile-state-text').textContent).toBe('未启动');
  });

  it('shows other Start errors on the card (no dialog), with the code and the backend detail', async () => {
    api.profileViews = [makeProfileView()];
    render(App);
    const box = await card();
    api.failNext('profiles:start', { code: 'PORT_IN_USE', message: 'Port 10086 is already in use on this computer.' });
    await fireEvent.click(within(box).getByTestId('profile-start'));
    const banner = await within(box).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('PORT_IN_USE');
    expect(banner.textContent).toContain('Port 10086 is already in use');
    expect(screen.queryByTestId('profile-start-dialog')).toBeNull();
  });
});
