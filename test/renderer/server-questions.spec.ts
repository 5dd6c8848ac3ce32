import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import type { HostKeyQuestion, SecretPrompt } from '../../electron/shared/schemas-servers';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi, makeServerView } from './fake-api';

let api: FakeApi;

const NEW_FP = 'SHA256:' + 'n'.repeat(43);
const OLD_FP = 'SHA256:' + 'o'.repeat(43);

function question(overrides: Partial<HostKeyQuestion> = {}): HostKeyQuestion {
  return {
    target: 'alice@gpu.example.org:22',
    hop: 0,
    host: 'gpu.example.org',
    port: 22,
    keyType: 'ssh-ed25519',
    fingerprint: NEW_FP,
    status: 'unknown',
    knownFingerprints: [],
    knownKeys: [],
    ...overrides,
  };
}

function prompt(overrides: Partial<SecretPrompt> = {}): SecretPrompt {
  return { promptId: 'p1', serverId: 'gpu-box', kind: 'password', prompt: 'alice@gpu.example.org', echo: false, ...overrides };
}

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

describe('host-key dialog', () => {
  it('unknown key: shows key type, SHA256 fingerprint and how to check it; Trust sends the fingerprint it showed', async () => {
    api.serverViews = [makeServerView({}, { state: 'connecting', hostKey: question() })];
    render(App);
    const dialog = await screen.findByTestId('host-key-dialog');
    expect(within(dialog).getByRole('heading').textContent).toBe('Trust alice@gpu.example.org:22?');
    expect(within(dialog).getByTestId('host-key-type').textContent).toBe('ssh-ed25519');
    expect(within(dialog).getByTestId('host-key-fingerprint').textContent).toBe(NEW_FP);
    expect(within(dialog).getByTestId('host-key-check-command').textContent).toBe('ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub');
    // The safe answer has the keyboard first.
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByTestId('host-key-cancel')));
    expect(within(dialog).queryByTestId('host-key-replace')).toBeNull();

    await fireEvent.click(within(dialog).getByTestId('host-key-trust'));

    await waitFor(() => expect(api.requestsOn('servers:trust-host-key')).toEqual([{ serverId: 'gpu-box', fingerprint: NEW_FP }]));
    await waitFor(() => expect(screen.queryByTestId('host-key-dialog')).toBeNull());
    expect(screen.getByTestId('server-state-badge').textContent).toBe('Connecting…');
  });

  it('names the key file for the key type (RSA, ECDSA)', async () => {
    api.serverViews = [makeServerView({}, { hostKey: question({ keyType: 'ecdsa-sha2-nistp256' }) })];
    render(App);
    const dialog = await screen.findByTestId('host-key-dialog');
    expect(within(dialog).getByTestId('host-key-check-command').textContent).toBe('ssh-keygen -lf /etc/ssh/ssh_host_ecdsa_key.pub');
  });

  it('unknown key: Cancel ends the attempt (servers:disconnect) and trusts nothing', async () => {
    api.serverViews = [makeServerView({}, { state: 'connecting', hostKey: question() })];
    render(App);
    const dialog = await screen.findByTestId('host-key-dialog');
    await fireEvent.click(within(dialog).getByTestId('host-key-cancel'));
    expect(screen.queryByTestId('host-key-dialog')).toBeNull();
    await waitFor(() => expect(api.requestsOn('servers:disconnect')).toEqual([{ serverId: 'gpu-box' }]));
    expect(api.requestsOn('servers:trust-host-key')).toEqual([]);
  });

  it('changed key: refuses, shows old and new fingerprints, no Trust; Replace only after the explicit check', async () => {
    api.serverViews = [
      makeServerView(
        {},
        {
          state: 'down',
          reason: { code: 'SSH_HOST_KEY_CHANGED', message: 'host key for gpu.example.org changed' },
          hostKey: question({ status: 'changed', knownFingerprints: [OLD_FP] }),
        },
      ),
    ];
    render(App);
    const dialog = await screen.findByTestId('host-key-dialog');
    expect(within(dialog).getByRole('heading').textContent).toBe('The host key of alice@gpu.example.org:22 changed');
    expect(dialog.textContent).toContain('refused to connect and sent nothing');
    expect(within(dialog).getByTestId('host-key-known-fingerprint').textContent).toBe(OLD_FP);
    expect(within(dialog).getByTestId('host-key-fingerprint').textContent).toBe(NEW_FP);
    expect(within(dialog).queryByTestId('host-key-trust')).toBeNull();
    expect(dialog.textContent).toContain('Replace the trusted key only if you know why it changed.');
    const replace = within(dialog).getByTestId('host-key-replace') as HTMLButtonElement;
    expect(replace.disabled).toBe(true);
    await fireEvent.click(replace);
    expect(api.requestsOn('servers:replace-host-key')).toEqual([]);

    await fireEvent.click(within(dialog).getByTestId('host-key-replace-check'));
    expect(replace.disabled).toBe(false);
    await fireEvent.click(replace);
    await waitFor(() => expect(api.requestsOn('servers:replace-host-key')).toEqual([{ serverId: 'gpu-box', fingerprint: NEW_FP }]));
  });

  it('changed key: "Do not connect" closes the dialog, the card keeps the refusal and can show the key again', async () => {
    api.serverViews = [makeServerView({}, { state: 'down', hostKey: question({ status: 'changed', knownFingerprints: [OLD_FP] }) })];
    render(App);
    const dialog = await screen.findByTestId('host-key-dialog');
    await fireEvent.click(within(dialog).getByTestId('host-key-cancel'));
    expect(screen.queryByTestId('host-key-dialog')).toBeNull();
    expect(api.requestsOn('servers:disconnect')).toEqual([]);
    const card = screen.getByTestId('server-card');
    expect(card.textContent).toContain('host key changed');
    await fireEvent.click(within(card).getByTestId('server-review-host-key'));
    expect(await screen.findByTestId('host-key-dialog')).toBeTruthy();
  });

  it('key of another type: refused like a changed key, says what it used to present, no plain Trust', async () => {
    const otherType = question({
      status: 'other-type',
      keyType: 'ecdsa-sha2-nistp256',
      knownFingerprints: [OLD_FP],
      knownKeys: [{ keyType: 'ssh-ed25519', fingerprint: OLD_FP }],
    });
    api.serverViews = [makeServerView({}, { state: 'down', hostKey: otherType })];
    render(App);
    const dialog = await screen.findByTestId('host-key-dialog');
    expect(within(dialog).getByTestId('host-key-other-type').textContent).toContain(`used to present ED25519 ${OLD_FP}; now it presents only ECDSA ${NEW_FP}`);
    expect(within(dialog).queryByTestId('host-key-trust')).toBeNull();
    expect(within(dialog).getByTestId('host-key-check-command').textContent).toContain('ssh_host_ecdsa_key.pub');
    const accept = within(dialog).getByTestId('host-key-replace') as HTMLButtonElement;
    expect(accept.textContent?.trim()).toBe('Trust the new key');
    expect(accept.disabled).toBe(true);
    await fireEvent.click(within(dialog).getByTestId('host-key-replace-check'));
    await fireEvent.click(accept);
    await waitFor(() => expect(api.requestsOn('servers:replace-host-key')).toEqual([{ serverId: 'gpu-box', fingerprint: NEW_FP }]));
  });

  it('revoked key: explains, offers neither Trust nor Replace', async () => {
    api.serverViews = [makeServerView({}, { state: 'down', hostKey: question({ status: 'revoked' }) })];
    render(App);
    const dialog = await screen.findByTestId('host-key-dialog');
    expect(dialog.textContent).toContain('@revoked');
    expect(within(dialog).queryByTestId('host-key-trust')).toBeNull();
    expect(within(dialog).queryByTestId('host-key-replace')).toBeNull();
    expect(within(dialog).getByTestId('host-key-cancel').textContent?.trim()).toBe('Close');
  });

  it('shows a failed trust (the key changed meanwhile) inside the dialog', async () => {
    api.serverViews = [makeServerView({}, { hostKey: question() })];
    api.failNext('servers:trust-host-key', { code: 'SSH_HOST_KEY_CHANGED', message: 'the key is no longer the one shown' });
    render(App);
    const dialog = await screen.findByTestId('host-key-dialog');
    await fireEvent.click(within(dialog).getByTestId('host-key-trust'));
    const banner = await within(dialog).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('SSH_HOST_KEY_CHANGED');
  });
});

describe('secret prompt dialog', () => {
  it('hides the typed password, sends it with the prompt id, and clears it from the field at once', async () => {
    api.serverViews = [makeServerView({}, { state: 'connecting', prompt: prompt() })];
    render(App);
    const dialog = await screen.findByTestId('prompt-dialog');
    expect(within(dialog).getByRole('heading').textContent).toBe('Password for gpu-box');
    const input = within(dialog).getByLabelText('Password of alice@gpu.example.org') as HTMLInputElement;
    expect(input.type).toBe('password');
    await waitFor(() => expect(document.activeElement).toBe(input));
    await fireEvent.input(input, { target: { value: 'hunter2' } });

    await fireEvent.click(within(dialog).getByTestId('prompt-send'));

    expect(input.value).toBe('');
    expect(api.requestsOn('servers:answer-prompt')).toEqual([{ promptId: 'p1', value: 'hunter2' }]);
    await waitFor(() => expect(screen.queryByTestId('prompt-dialog')).toBeNull());
    expect(document.body.innerHTML).not.toContain('hunter2');
  });

  it('Cancel sends null', async () => {
    api.serverViews = [makeServerView({}, { prompt: prompt({ kind: 'passphrase', prompt: '~/.ssh/id_ed25519' }) })];
    render(App);
    const dialog = await screen.findByTestId('prompt-dialog');
    expect(within(dialog).getByRole('heading').textContent).toBe('Key passphrase for gpu-box');
    await fireEvent.input(within(dialog).getByTestId('prompt-input'), { target: { value: 'typed' } });
    await fireEvent.click(within(dialog).getByTestId('prompt-cancel'));
    expect(api.requestsOn('servers:answer-prompt')).toEqual([{ promptId: 'p1', value: null }]);
    expect(screen.queryByTestId('prompt-dialog')).toBeNull();
  });

  it('shows a keyboard-interactive question in the server\'s words, echoed when the server allows it', async () => {
    api.serverViews = [makeServerView({}, { prompt: prompt({ kind: 'keyboard-interactive', prompt: 'Verification code: ', echo: true }) })];
    render(App);
    const dialog = await screen.findByTestId('prompt-dialog');
    const input = within(dialog).getByTestId('prompt-input') as HTMLInputElement;
    expect(input.type).toBe('text');
    expect(dialog.querySelector('label')?.textContent).toBe('Verification code: ');
  });

  it('opens a new dialog for the next prompt of the same server', async () => {
    api.serverViews = [makeServerView({}, { prompt: prompt() })];
    render(App);
    const dialog = await screen.findByTestId('prompt-dialog');
    await fireEvent.input(within(dialog).getByTestId('prompt-input'), { target: { value: 'wrong' } });
    await fireEvent.click(within(dialog).getByTestId('prompt-send'));
    api.serverViews[0]!.prompt = prompt({ promptId: 'p2' });
    api.pushServers();
    const next = await screen.findByTestId('prompt-dialog');
    expect((within(next).getByTestId('prompt-input') as HTMLInputElement).value).toBe('');
    await fireEvent.click(within(next).getByTestId('prompt-cancel'));
    expect(api.requestsOn('servers:answer-prompt')).toEqual([
      { promptId: 'p1', value: 'wrong' },
      { promptId: 'p2', value: null },
    ]);
  });
});
