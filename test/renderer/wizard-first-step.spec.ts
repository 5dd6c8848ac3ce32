import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { clearWizardDrafts } from '../../renderer/src/lib/state/wizard-drafts.svelte';
import { FakeApi } from './fake-api';
import { installVaultFake, type VaultFake } from './fakes/vault';
import { installWizardFake } from './fakes/wizard';
import { currentStep, renderWizard } from './wizard-render';

// Issue 32, item 2: a new user's first wizard step never sends them to Settings — where secrets are kept is
// chosen right in the step (Settings' own set-up form), the first endpoint is typed there and saved and tested
// in one press, and what they typed survives leaving the page and coming back.
let api: FakeApi;
let vault: VaultFake;

beforeEach(() => {
  api = new FakeApi();
  vault = installVaultFake(api, { status: 'not-set-up', available: ['passphrase', 'session'] });
  installWizardFake(api);
  clearWizardDrafts();
  setApiForTests(api);
});

const step = () => within(currentStep());

describe('wizard step 1 for a new user', () => {
  it('sets up the vault in the step, then saves and tests the typed endpoint in one press', async () => {
    await renderWizard(api);
    const setup = await step().findByTestId('wizard-vault-setup');
    // The choice is Settings' own, with its words; the dead end is not said at all.
    expect(within(setup).getByTestId('vault-setup-form')).toBeTruthy();
    expect(currentStep().textContent).not.toContain('no place to be kept');

    const fields = step().getByTestId('wizard-llm-new');
    await fireEvent.input(within(fields).getByTestId('secret-form-base-url'), { target: { value: 'http://127.0.0.1:8000/v1' } });
    await fireEvent.input(within(fields).getByTestId('secret-form-model'), { target: { value: 'debug-model' } });
    await fireEvent.input(within(fields).getByTestId('secret-form-value'), { target: { value: 'sk-typed-1234' } });

    // Pressed before the vault is set up: said once, where to look.
    await fireEvent.click(step().getByTestId('wizard-llm-save-test'));
    expect((await step().findByTestId('wizard-llm-vault-first')).textContent).toContain('Choose where the key is kept');
    expect(api.requestsOn('secrets:save')).toEqual([]);

    await fireEvent.click(within(setup).getByTestId('vault-setup-choice-session'));
    await fireEvent.submit(within(setup).getByTestId('vault-setup-form'));
    await waitFor(() => expect(step().queryByTestId('wizard-vault-setup')).toBeNull());
    expect(vault.state.backend).toBe('session');

    await fireEvent.click(step().getByTestId('wizard-llm-save-test'));
    await waitFor(() => expect(api.requestsOn('wizard:set-llm')).toHaveLength(1));
    // The name left empty became "model (host)"; the key went to the vault, the wizard got its id only.
    const saved = api.requestsOn('secrets:save')[0] as { name: string; llm: { model: string } };
    expect(saved).toMatchObject({ name: 'debug-model (127.0.0.1:8000)', llm: { model: 'debug-model' } });
    expect(JSON.stringify(api.requestsOn('wizard:set-llm'))).not.toContain('sk-typed-1234');
  });

  it('keeps the typed fields when the user leaves the wizard and comes back', async () => {
    await renderWizard(api);
    const fields = await step().findByTestId('wizard-llm-new');
    await fireEvent.input(within(fields).getByTestId('secret-form-base-url'), { target: { value: 'http://llm.example:9000/v1' } });
    await fireEvent.input(within(fields).getByTestId('secret-form-model'), { target: { value: 'kept-model' } });
    cleanup();

    await renderWizard(api);
    const again = await step().findByTestId('wizard-llm-new');
    expect((within(again).getByTestId('secret-form-base-url') as HTMLInputElement).value).toBe('http://llm.example:9000/v1');
    expect((within(again).getByTestId('secret-form-model') as HTMLInputElement).value).toBe('kept-model');
    expect(screen.getAllByTestId('wizard-llm-new')).toHaveLength(1);
  });
});
