import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi, makeServerView } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

async function openAddDialog(): Promise<HTMLElement> {
  render(App);
  await fireEvent.click(await screen.findByTestId('server-add'));
  return screen.findByTestId('server-dialog');
}

async function type(dialog: HTMLElement, testid: string, value: string): Promise<void> {
  await fireEvent.input(within(dialog).getByTestId(testid), { target: { value } });
}

describe('Add server dialog: by hand', () => {
  it('adds a server with every field, in the order of login methods chosen; its card and engine section appear', async () => {
    const dialog = await openAddDialog();
    expect(dialog.getAttribute('aria-labelledby')).toBeTruthy();
    expect(within(dialog).getByRole('heading').textContent).toBe('Add a server');
    await type(dialog, 'server-form-label', 'gpu-box');
    await type(dialog, 'server-form-host', 'gpu.example.org');
    await type(dialog, 'server-form-port', '2222');
    await type(dialog, 'server-form-username', 'alice');
    // Key file first: move it above the agent; switch keyboard-interactive off.
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Move key file up' }));
    await fireEvent.click(within(dialog).getByTestId('server-form-auth-keyboard-interactive'));
    await type(dialog, 'server-form-identity-files', '~/.ssh/id_ed25519\n/home/alice/.ssh/gpu');
    await fireEvent.click(within(dialog).getByTestId('server-form-identities-only'));
    await type(dialog, 'server-form-jumps', 'bob@bastion.example.org:2200\ngate');
    await fireEvent.click(within(dialog).getByRole('radio', { name: 'docker system dial-stdio (rootless Docker, contexts)' }));
    await type(dialog, 'server-form-tunnel-port', '10090');

    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));

    await waitFor(() => expect(api.requestsOn('servers:add')).toHaveLength(1));
    expect(api.requestsOn('servers:add')[0]).toEqual({
      label: 'gpu-box',
      host: 'gpu.example.org',
      port: 2222,
      username: 'alice',
      authMethods: ['key', 'agent', 'password'],
      identityFiles: ['~/.ssh/id_ed25519', '/home/alice/.ssh/gpu'],
      identitiesOnly: true,
      jumps: [
        { host: 'bastion.example.org', port: 2200, username: 'bob', identityFiles: [] },
        { host: 'gate', port: 22, username: 'alice', identityFiles: [] },
      ],
      docker: { engine: 'docker', transport: 'dial-stdio', socketPath: '/var/run/docker.sock' },
      tunnelLocalPort: 10090,
      importedFrom: null,
    });
    await waitFor(() => expect(screen.queryByTestId('server-dialog')).toBeNull());
    // A new server connects at once, so its host-key question follows.
    await waitFor(() => expect(api.requestsOn('servers:connect')).toEqual([{ serverId: 'gpu-box' }]));
    const card = await screen.findByTestId('server-card');
    expect(within(card).getByTestId('server-address').textContent).toBe('alice@gpu.example.org:2222');
    expect(within(card).getByTestId('server-jumps').textContent).toBe('via bob@bastion.example.org:2200 ▸ alice@gate');
    // engines:changed brought the server's Docker engine: its own card, start form and list.
    const section = screen.getByTestId('server-section');
    await waitFor(() => expect(within(section).getByTestId('engine-card').textContent).toContain('Docker engine on gpu-box'));
    expect(within(section).getByTestId('swarm-start-button')).toBeTruthy();
    await waitFor(() => expect(api.requestsOn('swarm:list')).toContainEqual({ engineId: 'ssh-gpu-box' }));
  });

  it('refuses invalid fields with messages that name them, focuses the first, and sends nothing', async () => {
    const dialog = await openAddDialog();
    await type(dialog, 'server-form-host', '-oProxyCommand=evil');
    await type(dialog, 'server-form-port', '70000');
    await type(dialog, 'server-form-identity-files', 'relative/key');
    await type(dialog, 'server-form-jumps', 'bad host name');
    await type(dialog, 'server-form-socket-path', 'docker.sock');
    await type(dialog, 'server-form-tunnel-port', '80');
    for (const method of ['agent', 'key', 'password', 'keyboard-interactive']) {
      await fireEvent.click(within(dialog).getByTestId(`server-form-auth-${method}`));
    }

    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));

    const errorText = (field: string) => within(dialog).getByTestId(`server-form-error-${field}`).textContent;
    expect(errorText('label')).toMatch(/^Name:/);
    expect(errorText('host')).toMatch(/^Host:/);
    expect(errorText('port')).toMatch(/^SSH port:/);
    expect(errorText('username')).toMatch(/^User:/);
    expect(errorText('authMethods')).toMatch(/^Ways to log in:/);
    expect(errorText('identityFiles')).toMatch(/^Key files:/);
    expect(errorText('jumps')).toMatch(/^Jump hosts:/);
    expect(errorText('socketPath')).toMatch(/^Docker socket path:/);
    expect(errorText('tunnelLocalPort')).toMatch(/^Local port of the tunnel:/);
    const host = within(dialog).getByTestId('server-form-host');
    expect(host.getAttribute('aria-invalid')).toBe('true');
    expect(host.getAttribute('aria-describedby')).toBe(within(dialog).getByTestId('server-form-error-host').id);
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByTestId('server-form-label')));
    expect(api.requestsOn('servers:add')).toEqual([]);

    // Fixing a field clears its message at once.
    await type(dialog, 'server-form-label', 'box');
    expect(within(dialog).queryByTestId('server-form-error-label')).toBeNull();
  });

  it('shows the backend refusal (SERVER_EXISTS) in the dialog and keeps what was typed', async () => {
    api.failNext('servers:add', { code: 'SERVER_EXISTS', message: 'a server with host gpu.example.org exists' });
    const dialog = await openAddDialog();
    await type(dialog, 'server-form-label', 'box');
    await type(dialog, 'server-form-host', 'gpu.example.org');
    await type(dialog, 'server-form-username', 'alice');
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    const banner = await within(dialog).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('SERVER_EXISTS');
    expect((within(dialog).getByTestId('server-form-host') as HTMLInputElement).value).toBe('gpu.example.org');
  });

  it('closes on Cancel and on Escape without sending anything', async () => {
    let dialog = await openAddDialog();
    await fireEvent.click(within(dialog).getByTestId('server-form-cancel'));
    expect(screen.queryByTestId('server-dialog')).toBeNull();
    await fireEvent.click(screen.getByTestId('server-add'));
    dialog = await screen.findByTestId('server-dialog');
    await fireEvent(dialog, new Event('cancel', { cancelable: true }));
    expect(screen.queryByTestId('server-dialog')).toBeNull();
    expect(api.requestsOn('servers:add')).toEqual([]);
  });
});

describe('Add server dialog: import from ~/.ssh/config', () => {
  it('lists the aliases, shows one with a problem disabled with its reason, and fills the form from a chosen one', async () => {
    api.sshConfigListing = {
      path: '/home/u/.ssh/config',
      exists: true,
      hosts: [
        {
          alias: 'gpu',
          problem: null,
          profile: {
            label: 'gpu',
            host: '10.0.0.5',
            port: 2022,
            username: 'alice',
            authMethods: ['agent', 'key', 'password', 'keyboard-interactive'],
            identityFiles: ['~/.ssh/gpu_ed25519'],
            identitiesOnly: true,
            jumps: [{ host: 'bastion', port: 22, username: 'alice', identityFiles: ['~/.ssh/bastion'] }],
            docker: { engine: 'docker', transport: 'socket', socketPath: '/var/run/docker.sock' },
            tunnelLocalPort: 10086,
            importedFrom: 'gpu',
          },
        },
        { alias: 'weird', problem: 'ProxyCommand is not supported; use ProxyJump', profile: null },
      ],
    };
    const dialog = await openAddDialog();
    await fireEvent.click(within(dialog).getByTestId('server-dialog-import'));
    const hosts = await within(dialog).findAllByTestId('ssh-config-host');
    expect(hosts.map((h) => h.dataset.alias)).toEqual(['gpu', 'weird']);
    const weirdUse = within(hosts[1]!).getByTestId('ssh-config-use') as HTMLButtonElement;
    expect(weirdUse.disabled).toBe(true);
    expect(within(hosts[1]!).getByTestId('ssh-config-problem').textContent).toBe('ProxyCommand is not supported; use ProxyJump');
    expect(weirdUse.getAttribute('aria-describedby')).toBe(within(hosts[1]!).getByTestId('ssh-config-problem').id);

    await fireEvent.click(within(hosts[0]!).getByTestId('ssh-config-use'));
    expect((within(dialog).getByTestId('server-form-host') as HTMLInputElement).value).toBe('10.0.0.5');
    expect((within(dialog).getByTestId('server-form-jumps') as HTMLTextAreaElement).value).toBe('alice@bastion');
    expect(within(dialog).getByTestId('server-form-imported').textContent).toContain('Host gpu');
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));

    await waitFor(() => expect(api.requestsOn('servers:add')).toHaveLength(1));
    // The hop's key file, which the form has no field for, is kept from the config.
    expect(api.requestsOn('servers:add')[0]).toMatchObject({
      host: '10.0.0.5',
      port: 2022,
      identitiesOnly: true,
      importedFrom: 'gpu',
      jumps: [{ host: 'bastion', port: 22, username: 'alice', identityFiles: ['~/.ssh/bastion'] }],
    });
  });

  it('imports a ProxyCommand into its editable field, sends it, and refuses it together with jump hosts', async () => {
    const proxyCommand = 'cloudflared access ssh --hostname %h';
    api.sshConfigListing = {
      path: '/home/u/.ssh/config',
      exists: true,
      hosts: [
        {
          alias: 'cf',
          problem: null,
          profile: {
            label: 'cf',
            host: 'gpu.example.org',
            port: 22,
            username: 'alice',
            authMethods: ['agent', 'key', 'password', 'keyboard-interactive'],
            identityFiles: [],
            identitiesOnly: false,
            jumps: [],
            proxyCommand,
            docker: { engine: 'docker', transport: 'socket', socketPath: '/var/run/docker.sock' },
            tunnelLocalPort: 10086,
            importedFrom: 'cf',
          },
        },
      ],
    };
    const dialog = await openAddDialog();
    await fireEvent.click(within(dialog).getByTestId('server-dialog-import'));
    const [host] = await within(dialog).findAllByTestId('ssh-config-host');
    expect(within(host!).getByTestId('ssh-config-proxy-command').textContent).toContain(proxyCommand);
    await fireEvent.click(within(host!).getByTestId('ssh-config-use'));
    const field = within(dialog).getByTestId('server-form-proxy-command') as HTMLInputElement;
    expect(field.value).toBe(proxyCommand);

    // Both ways at once: refused in the form, named on the ProxyCommand field, nothing sent.
    await type(dialog, 'server-form-jumps', 'alice@bastion');
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    expect(within(dialog).getByText('Use jump hosts or a ProxyCommand, not both: clear one of the two fields.')).toBeTruthy();
    expect(field.getAttribute('aria-invalid')).toBe('true');
    await type(dialog, 'server-form-proxy-command', 'nc %h %x');
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    expect(within(dialog).getByText(/ProxyCommand: one line, using only the tokens/)).toBeTruthy();
    expect(api.requestsOn('servers:add')).toEqual([]);

    await type(dialog, 'server-form-jumps', '');
    await type(dialog, 'server-form-proxy-command', 'ssh -W %h:%p bastion');
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    await waitFor(() => expect(api.requestsOn('servers:add')).toHaveLength(1));
    expect(api.requestsOn('servers:add')[0]).toMatchObject({ host: 'gpu.example.org', jumps: [], proxyCommand: 'ssh -W %h:%p bastion', importedFrom: 'cf' });
  });

  it('says so when there is no ~/.ssh/config', async () => {
    api.sshConfigListing = { path: '/home/u/.ssh/config', exists: false, hosts: [] };
    const dialog = await openAddDialog();
    await fireEvent.click(within(dialog).getByTestId('server-dialog-import'));
    expect((await within(dialog).findByTestId('ssh-config-missing')).textContent).toContain('/home/u/.ssh/config');
  });
});

describe('Edit server', () => {
  it('opens with the saved profile and sends servers:update', async () => {
    api.serverViews = [makeServerView({ id: 'box', label: 'box', port: 2222 })];
    render(App);
    await fireEvent.click(await screen.findByTestId('server-edit'));
    const dialog = await screen.findByTestId('server-dialog');
    expect(within(dialog).queryByTestId('server-dialog-import')).toBeNull();
    expect((within(dialog).getByTestId('server-form-port') as HTMLInputElement).value).toBe('2222');
    await fireEvent.input(within(dialog).getByTestId('server-form-host'), { target: { value: 'gpu2.example.org' } });
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    await waitFor(() => expect(api.requestsOn('servers:update')).toHaveLength(1));
    expect(api.requestsOn('servers:update')[0]).toMatchObject({ serverId: 'box', profile: { host: 'gpu2.example.org', port: 2222 } });
    await waitFor(() => expect(screen.getByTestId('server-address').textContent).toBe('alice@gpu2.example.org:2222'));
  });
});

describe('dialog focus and language', () => {
  it('gives the first field focus on open and gives focus back to "Add server" on close', async () => {
    render(App);
    const addButton = await screen.findByTestId('server-add');
    // A real click focuses the button; jsdom's does not.
    addButton.focus();
    await fireEvent.click(addButton);
    const dialog = await screen.findByTestId('server-dialog');
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByTestId('server-dialog-manual')));
    await fireEvent.click(within(dialog).getByTestId('server-form-cancel'));
    expect(document.activeElement).toBe(addButton);
  });

  it('shows the dialog and its field errors in Simplified Chinese', async () => {
    api.settingsValue.language = 'zh-CN';
    render(App);
    await fireEvent.click(await screen.findByTestId('server-add'));
    const dialog = await screen.findByTestId('server-dialog');
    await waitFor(() => expect(within(dialog).getByRole('heading').textContent).toBe('添加服务器'));
    await fireEvent.click(within(dialog).getByTestId('server-form-submit'));
    expect(within(dialog).getByTestId('server-form-error-host').textContent).toMatch(/^主机：/);
  });
});
