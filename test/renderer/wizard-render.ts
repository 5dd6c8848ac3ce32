import { render, screen } from '@testing-library/svelte';
import { vi } from 'vitest';
import type { Page, PageContext } from '../../renderer/src/lib/pages';
import { SettingsState } from '../../renderer/src/lib/state/settings.svelte';
import { SwarmStatuses } from '../../renderer/src/lib/state/swarm-statuses.svelte';
import WizardPage from '../../renderer/src/pages/WizardPage.svelte';
import type { FakeApi } from './fake-api';

/**
 * Renders the Wizard page alone with a page context over `api` (a FakeApi with the wizard fake
 * installed), and waits until the backend's state is shown. `navigate` records where the page sent
 * the user.
 */
export async function renderWizard(api: FakeApi): Promise<{ navigate: ReturnType<typeof vi.fn<(page: Page) => void>> }> {
  const navigate = vi.fn<(page: Page) => void>();
  const context: PageContext = { api, statuses: new SwarmStatuses(api), settings: new SettingsState(api), navigate };
  render(WizardPage, { props: { context } });
  await screen.findByRole('navigation', { name: 'Wizard steps' });
  return { navigate };
}

/** The step being shown (the card under the step list). */
export function currentStep(): HTMLElement {
  return screen.getByTestId('wizard-current-step');
}
