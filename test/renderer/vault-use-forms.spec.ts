import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { checkProfileDraft, emptyProfileDraft } from '../../renderer/src/lib/profile-form';
import { checkDraft, emptyDraft } from '../../renderer/src/lib/server-form';
import { FakeApi } from './fake-api';

let api: FakeApi;
beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

describe('forms that refer to vault secrets by id', () => {
  it('a profile sends the references of the secret env names it still lists, without the "ask at Start" ones', () => {
    const draft = { ...emptyProfileDraft(), label: 'P', secretEnv: 'SWANLAB_API_KEY, HF_TOKEN', secretRefs: { SWANLAB_API_KEY: 'swan', HF_TOKEN: null, REMOVED_KEY: 'old' } };
    expect(checkProfileDraft(draft, 'local').profile?.secretRefs).toEqual({ SWANLAB_API_KEY: 'swan' });
  });

  it('a server sends its password and passphrase references only when chosen', () => {
    const base = { ...emptyDraft(), label: 'gpu', host: 'gpu.example.org', username: 'alice' };
    expect(checkDraft({ ...base, passwordSecretId: 'gpu-pw', passphraseSecretId: null }, []).profile).toMatchObject({ passwordSecretId: 'gpu-pw' });
    expect(checkDraft(base, []).profile).not.toHaveProperty('passphraseSecretId');
  });

  it('the profile form says, next to the secret env names, that anyone with Docker access on the server can read a container\'s env', async () => {
    render(App);
    const list = await screen.findByTestId('profile-list');
    await fireEvent.click(within(list).getByTestId('profile-new'));
    const dialog = await screen.findByTestId('profile-dialog');
    expect(within(dialog).queryByTestId('profile-form-docker-env-warning')).toBeNull();
    await fireEvent.input(within(dialog).getByTestId('profile-form-secret-env'), { target: { value: 'SWANLAB_API_KEY' } });
    const warning = await waitFor(() => within(dialog).getByTestId('profile-form-docker-env-warning'));
    expect(warning.textContent).toContain('Anyone with Docker access on that server (docker inspect) can read a container’s environment.');
    // One vault picker per secret env name (the picker's insides are the vault UI's).
    expect(within(dialog).getByTestId('profile-form-secret-refs').textContent).toContain('SWANLAB_API_KEY from the vault');
  });
});
