import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import SecretPicker from '../../renderer/src/components/SecretPicker.svelte';
import VaultSection from '../../renderer/src/pages/settings/VaultSection.svelte';
import { FakeApi } from './fake-api';
import { installVaultFake, makeSecret, type VaultFakeOptions } from './fakes/vault';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

const CANARY = 'sk-canary-7f3e9b1c2d4a6e8f';
const CANARY_2 = 'sk-canary-replaced-0a1b2c3d';

/** The value must be nowhere in the page: not in the markup, and not as any field's current value. */
function expectNowhereInPage(value: string): void {
  expect(document.body.innerHTML).not.toContain(value);
  for (const field of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')) {
    expect(field.value, field.dataset.testid).not.toContain(value);
  }
}

function renderSection(options: VaultFakeOptions = { status: 'unlocked' }) {
  const fake = installVaultFake(api, options);
  render(VaultSection, { api });
  return fake;
}

async function group(kind: string): Promise<HTMLElement> {
  return waitFor(() => {
    const found = screen.getAllByTestId('secret-group').find((g) => g.dataset.kind === kind);
    if (!found) throw new Error(`no group ${kind}`);
    return found;
  });
}

async function row(id: string): Promise<HTMLElement> {
  return waitFor(() => {
    const found = screen.getAllByTestId('secret-row').find((r) => r.dataset.secretId === id);
    if (!found) throw new Error(`no row ${id}`);
    return found;
  });
}

describe('secrets on Settings: add, test, replace, delete', () => {
  it('groups secrets by kind, each group with its Add button and how it is used', async () => {
    renderSection({ status: 'unlocked', secrets: [makeSecret(), makeSecret({ id: 'swan', name: 'SwanLab', kind: 'swanlab', llm: null })] });
    const kinds = (await screen.findAllByTestId('secret-group')).map((g) => g.dataset.kind);
    expect(kinds).toEqual(['llm', 'ssh-password', 'ssh-passphrase', 'swanlab', 'env']);
    const swan = await group('swanlab');
    expect(within(swan).getByTestId('secret-name').textContent).toBe('SwanLab');
    expect(swan.textContent).toContain('Anyone with Docker access on that server can read a container’s environment.');
    expect(within(await group('ssh-password')).getByTestId('secret-group-empty')).toBeTruthy();
    // Only LLM endpoints have a Test.
    expect(within(swan).queryByTestId('secret-test')).toBeNull();
  });

  it('adds an LLM endpoint; the key never shows in the page afterwards (canary)', async () => {
    const fake = renderSection();
    await fireEvent.click(within(await group('llm')).getByTestId('secret-add'));
    const dialog = await screen.findByTestId('secret-dialog');
    expect(within(dialog).getByRole('heading').textContent).toBe('Add LLM endpoint');
    const value = within(dialog).getByTestId('secret-form-value') as HTMLInputElement;
    expect(value.type).toBe('password');
    expect(value.value).toBe('');

    // Nothing is sent until the form is complete; focus goes to the first field that stops it.
    await fireEvent.click(within(dialog).getByTestId('secret-form-submit'));
    expect(document.activeElement).toBe(within(dialog).getByTestId('secret-form-name'));
    expect(dialog.textContent).toContain('Give it a name.');
    expect(dialog.textContent).toContain('Name the model.');
    expect(api.requestsOn('secrets:save')).toEqual([]);

    await fireEvent.input(within(dialog).getByTestId('secret-form-name'), { target: { value: 'Fake LLM' } });
    await fireEvent.input(within(dialog).getByTestId('secret-form-base-url'), { target: { value: 'http://127.0.0.1:5000/v1' } });
    await fireEvent.input(within(dialog).getByTestId('secret-form-model'), { target: { value: 'fake-model' } });
    await fireEvent.input(value, { target: { value: CANARY } });
    await fireEvent.click(within(dialog).getByTestId('secret-form-submit'));
    await waitFor(() => expect(screen.queryByTestId('secret-dialog')).toBeNull());

    expect(api.requestsOn('secrets:save')).toEqual([
      { name: 'Fake LLM', kind: 'llm', value: CANARY, llm: { baseUrl: 'http://127.0.0.1:5000/v1', model: 'fake-model' } },
    ]);
    expect(fake.values.get('fake-llm')).toBe(CANARY);
    const added = await row('fake-llm');
    expect(within(added).getByTestId('secret-llm').textContent).toBe('http://127.0.0.1:5000/v1');
    expect(within(added).getByTestId('secret-stored-in').textContent).toBe('Stored in: Passphrase');
    expect(within(added).getByTestId('secret-used-by').textContent?.trim()).toBe('Not used yet');
    expect(within(added).getByTestId('secret-test-result').textContent).toContain('Not tested yet');
    expectNowhereInPage(CANARY);
  });

  it('tests an LLM endpoint and shows status, latency and the message; a failure the same way', async () => {
    const fake = renderSection({ status: 'unlocked', secrets: [makeSecret()] });
    const box = await row('openai');
    await fireEvent.click(within(box).getByTestId('secret-test'));
    await waitFor(() => expect(within(box).getByTestId('secret-test-result').dataset.ok).toBe('true'));
    expect(within(box).getByTestId('secret-test-result').textContent).toMatch(/^Works · HTTP 200 · 42 ms · /);
    expect(within(box).getByTestId('secret-test-message').textContent).toBe('3 models, gpt-4o-mini listed');
    expect(api.requestsOn('secrets:test')).toEqual([{ id: 'openai' }]);

    fake.testAnswer = () => ({ ok: false, at: '2026-12-03T12:01:00.000Z', status: null, latencyMs: null, method: null, message: 'connect ECONNREFUSED 127.0.0.1:5999' });
    await fireEvent.click(within(box).getByTestId('secret-test'));
    await waitFor(() => expect(within(box).getByTestId('secret-test-result').dataset.ok).toBe('false'));
    expect(within(box).getByTestId('secret-test-result').textContent).toMatch(/^Failed · no answer · /);
    expect(within(box).getByTestId('secret-test-message').textContent).toBe('connect ECONNREFUSED 127.0.0.1:5999');
  });

  it('replaces a value in a write-only field that is never pre-filled, and renames keeping the value', async () => {
    const fake = renderSection({ status: 'unlocked', secrets: [makeSecret()] });
    fake.values.set('openai', CANARY);
    const box = await row('openai');
    await fireEvent.click(within(box).getByTestId('secret-replace'));
    let dialog = await screen.findByTestId('secret-dialog');
    expect(within(dialog).getByRole('heading').textContent).toBe('Replace the value of “OpenAI”');
    expect(within(dialog).queryByTestId('secret-form-name')).toBeNull();
    const value = within(dialog).getByTestId('secret-form-value') as HTMLInputElement;
    expect(value.value).toBe('');
    await fireEvent.input(value, { target: { value: CANARY_2 } });
    await fireEvent.click(within(dialog).getByTestId('secret-form-submit'));
    await waitFor(() => expect(screen.queryByTestId('secret-dialog')).toBeNull());
    expect(api.requestsOn('secrets:save')).toEqual([
      { id: 'openai', name: 'OpenAI', kind: 'llm', value: CANARY_2, llm: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
    ]);
    expect(fake.values.get('openai')).toBe(CANARY_2);
    expectNowhereInPage(CANARY_2);

    await fireEvent.click(within(box).getByTestId('secret-edit'));
    dialog = await screen.findByTestId('secret-dialog');
    expect(within(dialog).queryByTestId('secret-form-value')).toBeNull();
    expect((within(dialog).getByTestId('secret-form-model') as HTMLInputElement).value).toBe('gpt-4o-mini');
    await fireEvent.input(within(dialog).getByTestId('secret-form-name'), { target: { value: 'OpenAI work' } });
    await fireEvent.click(within(dialog).getByTestId('secret-form-submit'));
    await waitFor(() => expect(within(box).getByTestId('secret-name').textContent).toBe('OpenAI work'));
    // No value in the rename: the stored one is kept.
    expect(api.requestsOn('secrets:save')[1]).toEqual({ id: 'openai', name: 'OpenAI work', kind: 'llm', llm: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } });
    expect(fake.values.get('openai')).toBe(CANARY_2);
  });

  it('moving an endpoint to another origin asks "use the same key at <origin>" and sends that origin only once ticked', async () => {
    const fake = renderSection({ status: 'unlocked', secrets: [makeSecret()] });
    fake.values.set('openai', CANARY);
    await fireEvent.click(within(await row('openai')).getByTestId('secret-edit'));
    const dialog = await screen.findByTestId('secret-dialog');
    const baseUrl = within(dialog).getByTestId('secret-form-base-url');
    // Another path on the same origin: no question.
    await fireEvent.input(baseUrl, { target: { value: 'https://api.openai.com/v2' } });
    expect(within(dialog).queryByTestId('secret-form-reuse-key')).toBeNull();
    await fireEvent.input(baseUrl, { target: { value: 'http://127.0.0.1:8000/v1' } });
    const reuse = within(dialog).getByTestId('secret-form-reuse-key') as HTMLInputElement;
    expect(reuse.closest('label')?.textContent).toContain('Use the same key at http://127.0.0.1:8000');
    expect(reuse.checked).toBe(false);
    await fireEvent.click(within(dialog).getByTestId('secret-form-submit'));
    expect(await within(dialog).findByText('Confirm that the key may go to the new endpoint, or type it again with Replace.')).toBeTruthy();
    expect(api.requestsOn('secrets:save')).toEqual([]);
    await fireEvent.click(reuse);
    await fireEvent.click(within(dialog).getByTestId('secret-form-submit'));
    await waitFor(() => expect(screen.queryByTestId('secret-dialog')).toBeNull());
    expect(api.requestsOn('secrets:save')).toEqual([
      { id: 'openai', name: 'OpenAI', kind: 'llm', llm: { baseUrl: 'http://127.0.0.1:8000/v1', model: 'gpt-4o-mini' }, reuseKeyAt: 'http://127.0.0.1:8000' },
    ]);
  });

  it('asks before deleting and names who uses the secret; Escape cancels', async () => {
    renderSection({ status: 'unlocked', secrets: [makeSecret({ id: 'gpu-pass', name: 'gpu-1 password', kind: 'ssh-password', llm: null, usedBy: ['server gpu-1', 'dry run'] })] });
    const box = await row('gpu-pass');
    await fireEvent.click(within(box).getByTestId('secret-delete'));
    const confirm = within(box).getByTestId('secret-confirm-delete');
    expect(confirm.textContent).toContain('Delete “gpu-1 password”? It is used by server gpu-1, dry run; they stop working until you choose another secret.');
    await fireEvent.keyDown(within(confirm).getByTestId('secret-confirm-yes'), { key: 'Escape' });
    await waitFor(() => expect(within(box).queryByTestId('secret-confirm-delete')).toBeNull());
    expect(document.activeElement).toBe(within(box).getByTestId('secret-delete'));
    expect(api.requestsOn('secrets:delete')).toEqual([]);

    await fireEvent.click(within(box).getByTestId('secret-delete'));
    await fireEvent.click(within(box).getByTestId('secret-confirm-yes'));
    await waitFor(() => expect(screen.queryAllByTestId('secret-row')).toHaveLength(0));
    expect(api.requestsOn('secrets:delete')).toEqual([{ id: 'gpu-pass' }]);
  });

  it('shows the unlock prompt where a locked vault stops an action, and retries the action after unlocking', async () => {
    const fake = renderSection({ status: 'unlocked', passphrase: 'correct horse', secrets: [makeSecret()] });
    const box = await row('openai');
    // Locked from another window meanwhile.
    fake.state.status = 'locked';
    await fireEvent.click(within(box).getByTestId('secret-test'));
    const prompt = await within(box).findByTestId('vault-unlock-prompt');
    await fireEvent.input(within(prompt).getByTestId('vault-unlock-passphrase'), { target: { value: 'correct horse' } });
    await fireEvent.click(within(prompt).getByTestId('vault-unlock-submit'));
    await waitFor(() => expect(within(box).getByTestId('secret-test-result').dataset.ok).toBe('true'));
    expect(api.requestsOn('secrets:test')).toEqual([{ id: 'openai' }, { id: 'openai' }]);
    expect(within(box).queryByTestId('vault-unlock-prompt')).toBeNull();
  });
});

describe('SecretPicker', () => {
  const secrets = [
    makeSecret(),
    makeSecret({ id: 'gpu-pass', name: 'gpu-1 password', kind: 'ssh-password', llm: null }),
    makeSecret({ id: 'old-pass', name: 'old box', kind: 'ssh-password', llm: null, backend: 'obfuscated', protected: false }),
  ];

  it('lists only its kind by name (badging unprotected ones), plus none and Add new…, and reports the choice', async () => {
    installVaultFake(api, { status: 'unlocked', secrets });
    const onchange = vi.fn();
    render(SecretPicker, { api, kind: 'ssh-password', value: null, label: 'Password', onchange });
    const select = (await screen.findByLabelText('Password')) as HTMLSelectElement;
    await waitFor(() => expect(select.options).toHaveLength(4));
    expect([...select.options].map((o) => o.textContent)).toEqual(['— none —', 'gpu-1 password', 'old box (not protected)', 'Add new…']);
    expect(select.value).toBe('');
    await fireEvent.change(select, { target: { value: 'gpu-pass' } });
    expect(onchange).toHaveBeenLastCalledWith('gpu-pass');
    await fireEvent.change(select, { target: { value: '' } });
    expect(onchange).toHaveBeenLastCalledWith(null);
  });

  it('says so when the chosen secret no longer exists', async () => {
    installVaultFake(api, { status: 'unlocked', secrets });
    render(SecretPicker, { api, kind: 'ssh-password', value: 'gone', label: 'Password', onchange: () => undefined });
    expect((await screen.findByTestId('secret-picker-missing')).textContent).toBe('That secret does not exist (any more).');
    expect((screen.getByTestId('secret-picker-select') as HTMLSelectElement).value).toBe('gone');
  });

  it('"Add new…" saves a secret of its kind inline and selects it, without leaking the value', async () => {
    const fake = installVaultFake(api, { status: 'unlocked', secrets });
    const onchange = vi.fn();
    render(SecretPicker, { api, kind: 'ssh-password', value: 'gpu-pass', label: 'Password', onchange });
    const select = (await screen.findByTestId('secret-picker-select')) as HTMLSelectElement;
    await waitFor(() => expect(select.value).toBe('gpu-pass'));
    await fireEvent.change(select, { target: { value: '__add__' } });
    const add = await screen.findByTestId('secret-picker-add');
    // The select keeps showing the current choice while adding.
    expect(select.value).toBe('gpu-pass');
    expect(onchange).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(within(add).getByTestId('secret-form-name'));
    // No form inside the caller's form: Enter in a field saves (here: stops at the empty value).
    expect(add.closest('form')).toBeNull();
    await fireEvent.input(within(add).getByTestId('secret-form-name'), { target: { value: 'new box' } });
    await fireEvent.keyDown(within(add).getByTestId('secret-form-name'), { key: 'Enter' });
    expect(api.requestsOn('secrets:save')).toEqual([]);
    expect(document.activeElement).toBe(within(add).getByTestId('secret-form-value'));

    await fireEvent.input(within(add).getByTestId('secret-form-value'), { target: { value: CANARY } });
    await fireEvent.click(within(add).getByTestId('secret-picker-save'));
    await waitFor(() => expect(onchange).toHaveBeenCalledWith('new-box'));
    expect(api.requestsOn('secrets:save')).toEqual([{ name: 'new box', kind: 'ssh-password', value: CANARY, llm: null }]);
    expect(fake.values.get('new-box')).toBe(CANARY);
    expect(screen.queryByTestId('secret-picker-add')).toBeNull();
    expectNowhereInPage(CANARY);
  });

  it('"Add new…" on a locked vault asks for the passphrase, then saves', async () => {
    installVaultFake(api, { status: 'locked', passphrase: 'correct horse', secrets });
    const onchange = vi.fn();
    render(SecretPicker, { api, kind: 'llm', value: null, label: 'LLM endpoint', onchange });
    const select = await screen.findByTestId('secret-picker-select');
    await fireEvent.change(select, { target: { value: '__add__' } });
    const add = await screen.findByTestId('secret-picker-add');
    await fireEvent.input(within(add).getByTestId('secret-form-name'), { target: { value: 'Local' } });
    await fireEvent.input(within(add).getByTestId('secret-form-base-url'), { target: { value: 'http://127.0.0.1:8000/v1' } });
    await fireEvent.input(within(add).getByTestId('secret-form-model'), { target: { value: 'qwen' } });
    await fireEvent.input(within(add).getByTestId('secret-form-value'), { target: { value: CANARY } });
    await fireEvent.click(within(add).getByTestId('secret-picker-save'));
    const prompt = await within(add).findByTestId('vault-unlock-prompt');
    await fireEvent.input(within(prompt).getByTestId('vault-unlock-passphrase'), { target: { value: 'correct horse' } });
    await fireEvent.click(within(prompt).getByTestId('vault-unlock-submit'));
    await waitFor(() => expect(onchange).toHaveBeenCalledWith('local'));
    expect(api.requestsOn('secrets:save')).toHaveLength(2);
    expectNowhereInPage(CANARY);
  });
});
