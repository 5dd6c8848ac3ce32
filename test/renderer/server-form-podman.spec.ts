import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { PODMAN_ROOTFUL_SOCKET, RemoteDockerAccess } from '../../electron/shared/schemas-servers';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale, t } from '../../renderer/src/lib/i18n';
import { checkDraft, draftFromProfile, emptyDraft, switchEngine, type ServerDraft } from '../../renderer/src/lib/server-form';
import { FakeApi, makeServerView } from './fake-api';

// The Add/Edit server form's engine choice (Docker, Podman or a Slurm login node) and how each is reached, through the
// fake API: what the form sends, what it shows back, and its field errors in both languages.

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

const ROOTLESS = 'Rootless: my user’s Podman socket, found automatically (recommended)';
const ROOTFUL = `Rootful: the system socket ${PODMAN_ROOTFUL_SOCKET}`;
const CUSTOM = 'Another socket path (below)';
const DOCKER_SOCKET = 'Docker socket (path below)';
const DIAL_STDIO = 'docker system dial-stdio (rootless Docker, contexts)';

async function openAddDialog(): Promise<HTMLElement> {
  render(App);
  await fireEvent.click(await screen.findByTestId('server-add'));
  const dialog = await screen.findByTestId('server-dialog');
  await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Name' }), { target: { value: 'gpu-box' } });
  await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Host' }), { target: { value: 'gpu.example.org' } });
  await fireEvent.input(within(dialog).getByRole('textbox', { name: 'User' }), { target: { value: 'alice' } });
  return dialog;
}

function radio(dialog: HTMLElement, name: string): HTMLInputElement {
  return within(dialog).getByRole('radio', { name }) as HTMLInputElement;
}

function socketField(dialog: HTMLElement, name: string): HTMLInputElement {
  return within(dialog).getByRole('textbox', { name }) as HTMLInputElement;
}

async function submitted(dialog: HTMLElement): Promise<unknown> {
  await fireEvent.click(within(dialog).getByRole('button', { name: 'Add server' }));
  await waitFor(() => expect(api.requestsOn('servers:add')).toHaveLength(1));
  return (api.requestsOn('servers:add')[0] as { docker: unknown }).docker;
}

describe('server form: engine and access choices', () => {
  it('starts on Docker over its socket; the groups and every choice have names', async () => {
    const dialog = await openAddDialog();
    const engineGroup = within(dialog).getByRole('group', { name: 'Container engine on the server' });
    expect(within(engineGroup).getAllByRole('radio').map((r) => (r as HTMLInputElement).checked)).toEqual([true, false, false]);
    expect(within(engineGroup).getAllByRole('radio').map((r) => r.getAttribute('value'))).toEqual(['docker', 'podman', 'slurm']);
    expect(radio(dialog, 'Docker').checked).toBe(true);
    const accessGroup = within(dialog).getByRole('group', { name: 'How the app reaches Docker' });
    expect(within(accessGroup).getAllByRole('radio')).toHaveLength(2);
    expect(radio(dialog, DOCKER_SOCKET).checked).toBe(true);
    expect(socketField(dialog, 'Docker socket path on the server').value).toBe('/var/run/docker.sock');
    // dial-stdio needs no path: the field goes away.
    await fireEvent.click(radio(dialog, DIAL_STDIO));
    expect(within(dialog).queryByTestId('server-form-socket-path')).toBeNull();
  });

  it('Podman defaults to the rootless user socket: no path field, and the request says podman + user-socket', async () => {
    const dialog = await openAddDialog();
    await fireEvent.click(radio(dialog, 'Podman'));
    const accessGroup = within(dialog).getByRole('group', { name: 'How the app reaches Podman' });
    expect(within(accessGroup).getAllByRole('radio').map((r) => r.getAttribute('value'))).toEqual(['user-socket', 'rootful-socket', 'socket']);
    expect(radio(dialog, ROOTLESS).checked).toBe(true);
    expect(within(dialog).queryByRole('radio', { name: DIAL_STDIO })).toBeNull();
    expect(within(dialog).queryByTestId('server-form-socket-path')).toBeNull();
    // The rootless choice explains what it needs, read with the choice by a screen reader.
    const hint = document.getElementById(radio(dialog, ROOTLESS).getAttribute('aria-describedby') ?? '');
    expect(hint?.textContent).toContain('systemctl --user enable --now podman.socket');

    const docker = await submitted(dialog);
    expect(docker).toEqual({ engine: 'podman', transport: 'user-socket', socketPath: PODMAN_ROOTFUL_SOCKET });
    expect(RemoteDockerAccess.safeParse(docker).success).toBe(true);
  });

  it('Podman rootful sends its system socket', async () => {
    const dialog = await openAddDialog();
    await fireEvent.click(radio(dialog, 'Podman'));
    await fireEvent.click(radio(dialog, ROOTFUL));
    expect(within(dialog).queryByTestId('server-form-socket-path')).toBeNull();
    expect(await submitted(dialog)).toEqual({ engine: 'podman', transport: 'socket', socketPath: '/run/podman/podman.sock' });
  });

  it('Podman with another socket path asks for it and sends it', async () => {
    const dialog = await openAddDialog();
    await fireEvent.click(radio(dialog, 'Podman'));
    await fireEvent.click(radio(dialog, CUSTOM));
    const field = socketField(dialog, 'Podman socket path on the server');
    expect(field.value).toBe('');
    await fireEvent.input(field, { target: { value: '/run/user/1001/podman/podman.sock' } });
    expect(await submitted(dialog)).toEqual({ engine: 'podman', transport: 'socket', socketPath: '/run/user/1001/podman/podman.sock' });
  });

  it('switching engine swaps the defaults but keeps a socket path the user typed', async () => {
    const dialog = await openAddDialog();
    // Defaults are replaced both ways.
    await fireEvent.click(radio(dialog, 'Podman'));
    expect(radio(dialog, ROOTLESS).checked).toBe(true);
    await fireEvent.click(radio(dialog, 'Docker'));
    expect(radio(dialog, DOCKER_SOCKET).checked).toBe(true);
    expect(socketField(dialog, 'Docker socket path on the server').value).toBe('/var/run/docker.sock');
    // A typed path survives a round trip and stays the chosen access.
    await fireEvent.input(socketField(dialog, 'Docker socket path on the server'), { target: { value: '/srv/engine/api.sock' } });
    await fireEvent.click(radio(dialog, 'Podman'));
    expect(radio(dialog, CUSTOM).checked).toBe(true);
    expect(socketField(dialog, 'Podman socket path on the server').value).toBe('/srv/engine/api.sock');
    await fireEvent.click(radio(dialog, 'Docker'));
    expect(socketField(dialog, 'Docker socket path on the server').value).toBe('/srv/engine/api.sock');
    // dial-stdio has no Podman counterpart: Podman's recommended choice replaces it.
    await fireEvent.click(radio(dialog, DIAL_STDIO));
    await fireEvent.click(radio(dialog, 'Podman'));
    expect(radio(dialog, ROOTLESS).checked).toBe(true);
    expect(await submitted(dialog)).toEqual({ engine: 'podman', transport: 'user-socket', socketPath: '/srv/engine/api.sock' });
  });
});

describe('server form: engine field errors', () => {
  it('refuses an empty or relative Podman socket path with a message naming the field, and focuses it', async () => {
    const dialog = await openAddDialog();
    await fireEvent.click(radio(dialog, 'Podman'));
    await fireEvent.click(radio(dialog, CUSTOM));
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Add server' }));
    const field = socketField(dialog, 'Podman socket path on the server');
    const error = within(dialog).getByTestId('server-form-error-socketPath');
    expect(error.textContent).toBe('Podman socket path: an absolute path on the server, e.g. /run/user/1000/podman/podman.sock.');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(field.getAttribute('aria-describedby')).toBe(error.id);
    await waitFor(() => expect(document.activeElement).toBe(field));
    await fireEvent.input(field, { target: { value: 'podman.sock' } });
    expect(within(dialog).getByTestId('server-form-error-socketPath').textContent).toMatch(/^Podman socket path:/);
    expect(api.requestsOn('servers:add')).toEqual([]);
  });

  it('Slurm (login node) asks for no socket: no access choices, a hint, and the request says slurm', async () => {
    const dialog = await openAddDialog();
    await fireEvent.click(radio(dialog, 'Slurm (login node)'));
    expect(within(dialog).queryByRole('group', { name: /How the app reaches/ })).toBeNull();
    expect(within(dialog).queryByTestId('server-form-socket-path')).toBeNull();
    expect(within(dialog).getByTestId('server-form-slurm-hint').textContent).toContain('sbatch');
    const docker = await submitted(dialog);
    expect(docker).toEqual({ engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' });
    expect(RemoteDockerAccess.safeParse(docker).success).toBe(true);
  });

  it('switching from Slurm back to Docker shows its socket field again, with the path it had', async () => {
    const dialog = await openAddDialog();
    await fireEvent.click(radio(dialog, 'Slurm (login node)'));
    await fireEvent.click(radio(dialog, 'Docker'));
    expect(radio(dialog, DOCKER_SOCKET).checked).toBe(true);
    expect(socketField(dialog, 'Docker socket path on the server').value).toBe('/var/run/docker.sock');
  });

  it('says the same in Simplified Chinese', async () => {
    api.settingsValue.language = 'zh-CN';
    render(App);
    await fireEvent.click(await screen.findByTestId('server-add'));
    const dialog = await screen.findByTestId('server-dialog');
    await waitFor(() => expect(within(dialog).getByRole('group', { name: '服务器上的容器引擎' })).toBeTruthy());
    expect(within(dialog).getByRole('radio', { name: 'Slurm（登录节点）' })).toBeTruthy();
    await fireEvent.click(within(dialog).getByRole('radio', { name: 'Podman' }));
    expect((within(dialog).getByRole('radio', { name: '无根（rootless）：我的用户的 Podman socket，自动查找（推荐）' }) as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(within(dialog).getByRole('radio', { name: '其他 socket 路径（见下）' }));
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    expect(within(dialog).getByTestId('server-form-error-socketPath').textContent).toBe(
      'Podman socket 路径：服务器上的绝对路径，例如 /run/user/1000/podman/podman.sock。',
    );
    expect(within(dialog).getByRole('textbox', { name: '服务器上的 Podman socket 路径' })).toBeTruthy();
  });

  it('turns the schema refusals of impossible combinations into translated field errors, never its own words', () => {
    const schemaWords = /dial-stdio`|the user socket is rootless Podman's/;
    const podmanDial: ServerDraft = { ...filled(), engine: 'podman', access: 'dial-stdio' };
    const dockerUser: ServerDraft = { ...filled(), engine: 'docker', access: 'user-socket' };
    const dockerRootful: ServerDraft = { ...filled(), engine: 'docker', access: 'rootful-socket' };
    expect(checkDraft(podmanDial)).toEqual({ errors: { access: 'serverForm.error.accessPodman' }, profile: null });
    expect(checkDraft(dockerUser)).toEqual({ errors: { access: 'serverForm.error.accessDocker' }, profile: null });
    expect(checkDraft(dockerRootful).errors).toEqual({ access: 'serverForm.error.accessDocker' });
    for (const language of ['en', 'zh-CN'] as const) {
      setLocale(language);
      for (const key of ['serverForm.error.accessPodman', 'serverForm.error.accessDocker'] as const) {
        expect(t(key)).not.toMatch(schemaWords);
        expect(t(key)).toMatch(language === 'en' ? /^How the app reaches (Docker|Podman):/ : /^应用如何连接 (Docker|Podman)：/);
      }
    }
    setLocale('en');
    // The schema itself does refuse them (the form's checks are not looser than the backend's).
    expect(RemoteDockerAccess.safeParse({ engine: 'podman', transport: 'dial-stdio' }).success).toBe(false);
    expect(RemoteDockerAccess.safeParse({ engine: 'docker', transport: 'user-socket' }).success).toBe(false);
  });
});

function filled(): ServerDraft {
  return { ...emptyDraft(), label: 'box', host: 'gpu.example.org', username: 'alice' };
}

describe('server form: switchEngine and draftFromProfile', () => {
  it('round-trips every access choice through a saved profile', () => {
    const cases: [ServerDraft['engine'], ServerDraft['access'], string][] = [
      ['docker', 'socket', '/var/run/docker.sock'],
      ['docker', 'dial-stdio', '/var/run/docker.sock'],
      ['podman', 'user-socket', ''],
      ['podman', 'rootful-socket', ''],
      ['podman', 'socket', '/run/user/1001/podman/podman.sock'],
      ['slurm', 'socket', '/var/run/docker.sock'],
    ];
    for (const [engine, access, socketPath] of cases) {
      const { profile } = checkDraft({ ...filled(), engine, access, socketPath });
      expect(profile, `${engine}/${access}`).not.toBeNull();
      const back = draftFromProfile(profile!);
      expect({ engine: back.engine, access: back.access, socketPath: back.socketPath }, `${engine}/${access}`).toEqual({ engine, access, socketPath });
    }
  });

  it('keeps a typed path and replaces a preset one', () => {
    const typed = switchEngine({ ...filled(), socketPath: '/srv/d.sock' }, 'podman');
    expect([typed.access, typed.socketPath]).toEqual(['socket', '/srv/d.sock']);
    const preset = switchEngine({ ...filled(), engine: 'podman', access: 'rootful-socket', socketPath: '' }, 'docker');
    expect([preset.access, preset.socketPath]).toEqual(['socket', '/var/run/docker.sock']);
    expect(switchEngine(preset, 'docker')).toBe(preset);
  });
});

describe('server form: editing shows what the server has', () => {
  it.each([
    [{ engine: 'podman', transport: 'user-socket', socketPath: PODMAN_ROOTFUL_SOCKET }, ROOTLESS, null],
    [{ engine: 'podman', transport: 'socket', socketPath: PODMAN_ROOTFUL_SOCKET }, ROOTFUL, null],
    [{ engine: 'podman', transport: 'socket', socketPath: '/run/user/1001/podman/podman.sock' }, CUSTOM, '/run/user/1001/podman/podman.sock'],
    [{ engine: 'docker', transport: 'dial-stdio', socketPath: '/var/run/docker.sock' }, DIAL_STDIO, null],
    [{ engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' }, null, null],
  ] as const)('%o', async (docker, choice, path) => {
    api.serverViews = [makeServerView({ id: 'box', label: 'box', docker: { ...docker } })];
    render(App);
    await fireEvent.click(await screen.findByTestId('server-edit'));
    const dialog = await screen.findByTestId('server-dialog');
    expect(radio(dialog, { docker: 'Docker', podman: 'Podman', slurm: 'Slurm (login node)' }[docker.engine]).checked).toBe(true);
    if (choice) expect(radio(dialog, choice).checked).toBe(true);
    const field = within(dialog).queryByTestId('server-form-socket-path') as HTMLInputElement | null;
    expect(field?.value ?? null).toBe(path);
    // Saving unchanged sends what it had.
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    await waitFor(() => expect(api.requestsOn('servers:update')).toHaveLength(1));
    expect(api.requestsOn('servers:update')[0]).toMatchObject({ serverId: 'box', profile: { docker } });
  });
});
