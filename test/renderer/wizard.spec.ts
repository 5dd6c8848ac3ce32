import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi } from './fake-api';
import { installVaultFake, makeSecret, type VaultFake } from './fakes/vault';
import { installWizardFake, makeJobView, makeWizardState, type WizardFake } from './fakes/wizard';
import { currentStep, renderWizard } from './wizard-render';

let api: FakeApi;
let vault: VaultFake;
let wizard: WizardFake;

beforeEach(() => {
  api = new FakeApi();
  vault = installVaultFake(api, { status: 'unlocked', secrets: [makeSecret(), makeSecret({ id: 'local-llm', name: 'Local model', llm: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen' } })] });
  setApiForTests(api);
});

/** Text as a user reads it: whitespace collapsed. */
const text = (element: Element | null): string => (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
/** The accessible description: the text of the elements aria-describedby names. */
const description = (element: Element): string =>
  (element.getAttribute('aria-describedby') ?? '')
    .split(/\s+/)
    .map((id) => text(document.getElementById(id)))
    .join(' ')
    .trim();
const stepButton = (name: string): HTMLElement => within(screen.getByRole('navigation', { name: 'Wizard steps' })).getByRole('button', { name });

describe('wizard step list', () => {
  beforeEach(() => {
    wizard = installWizardFake(api, { done: ['llm', 'code'] });
    // The backend's facts as data (issue 32): the renderer words them; the English `fact` is not shown.
    wizard.state.steps[0]!.fact = 'answered in 120 ms: pong';
    wizard.state = { ...wizard.state, steps: wizard.state.steps.map((s) => (s.id === 'code' ? { ...s, status: 'stale' } : s)) };
  });

  it('names each step by its label alone, in order, in a nav; status, fact and needs are its description', async () => {
    await renderWizard(api);
    const nav = screen.getByRole('navigation', { name: 'Wizard steps' });
    const buttons = within(nav).getAllByRole('button');
    expect(buttons.map((b) => b.textContent?.trim())).toEqual(['Debug LLM', 'Agent project', 'Training code', 'Swarm server', 'Debug episode', 'Train']);
    expect(buttons.map((b) => b.dataset.testid)).toEqual(['llm', 'project', 'code', 'swarm', 'debug', 'train'].map((id) => `wizard-step-${id}`));

    const llm = stepButton('Debug LLM');
    expect(description(llm)).toBe('done fake-debug-model answered in 120 ms');
    expect(description(stepButton('Agent project'))).toBe('to do needs: Debug LLM');
    expect(description(stepButton('Training code'))).toBe(
      'out of date agent_roll.py and agent_roll_one_episode_debug.py written and compiled needs: Agent project',
    );
    expect(screen.queryByText('answered in 120 ms: pong')).toBeNull();
    expect(description(stepButton('Debug episode'))).toBe('to do needs: Training code, Swarm server');
    expect(stepButton('Train').getAttribute('data-status')).toBe('todo');
  });

  it('marks the current step with aria-current="step" and shows it', async () => {
    await renderWizard(api);
    expect(stepButton('Debug LLM').getAttribute('aria-current')).toBe('step');
    expect(stepButton('Agent project').getAttribute('aria-current')).toBeNull();
    expect(within(currentStep()).getByRole('heading', { level: 2 }).textContent).toBe('Debug LLM');
  });

  it('opens any step again through wizard:goto, and shows what a locked step needs', async () => {
    await renderWizard(api);
    await fireEvent.click(stepButton('Debug episode'));
    await waitFor(() => expect(stepButton('Debug episode').getAttribute('aria-current')).toBe('step'));
    expect(api.requestsOn('wizard:goto')).toEqual([{ step: 'debug' }]);
    expect(currentStep().dataset.step).toBe('debug');
    expect(within(currentStep()).getByTestId('wizard-step-missing').textContent).toContain('This step needs Swarm server done first');

    await fireEvent.click(stepButton('Training code'));
    await waitFor(() => expect(currentStep().dataset.step).toBe('code'));
    expect(within(currentStep()).getByTestId('wizard-step-stale')).toBeTruthy();
  });

  it('follows the backend: a step changes only when wizard:changed says so', async () => {
    await renderWizard(api);
    wizard.done = ['llm', 'project'];
    wizard.state = { ...wizard.state, current: 'project' };
    wizard.push();
    await waitFor(() => expect(stepButton('Agent project').getAttribute('data-status')).toBe('done'));
    expect(stepButton('Agent project').getAttribute('aria-current')).toBe('step');
    expect(description(stepButton('Training code'))).toMatch(/needs: Agent project/);
  });

  it('works by keyboard: the steps are native buttons in the tab order, and a done step offers the next one', async () => {
    await renderWizard(api);
    for (const button of within(screen.getByRole('navigation', { name: 'Wizard steps' })).getAllByRole('button')) {
      expect(button.tagName).toBe('BUTTON');
      expect(button.getAttribute('type')).toBe('button');
      expect(button.tabIndex).toBe(0);
    }
    const next = within(currentStep()).getByRole('button', { name: 'Next: Agent project' });
    next.focus();
    await fireEvent.click(next);
    await waitFor(() => expect(currentStep().dataset.step).toBe('project'));
    // The button that had focus is gone: focus is on the new step's heading, not on <body>.
    await waitFor(() => expect(document.activeElement).toBe(within(currentStep()).getByRole('heading', { level: 2 })));
  });

  it('shows why going to a step failed', async () => {
    api.failNext('wizard:goto', { code: 'INTERNAL', message: 'The wizard file could not be written.' });
    await renderWizard(api);
    await fireEvent.click(stepButton('Train'));
    const banner = await within(currentStep()).findByTestId('error-banner');
    expect(banner.textContent).toContain('The wizard file could not be written.');
    expect(currentStep().dataset.step).toBe('llm');
  });

  it('starts over only after a confirmation', async () => {
    await renderWizard(api);
    await fireEvent.click(screen.getByRole('button', { name: 'Start over' }));
    expect(api.requestsOn('wizard:reset')).toEqual([]);
    await fireEvent.click(screen.getByRole('button', { name: 'Forget the progress' }));
    await waitFor(() => expect(stepButton('Debug LLM').getAttribute('data-status')).toBe('todo'));
    expect(api.requestsOn('wizard:reset')).toHaveLength(1);
  });
});

describe('wizard resume', () => {
  it('opens at the step wizard:state names, with its facts and the jobs it names', async () => {
    const dataset = makeJobView({ id: 'job-dataset', kind: 'dataset-test', cwd: '/home/me/agent/tutorial/opencode_build_abc123', state: 'succeeded', result: { reward: null, count: 3, items: ['a', 'b', 'c'], raw: {} } });
    wizard = installWizardFake(api, {
      done: ['llm'],
      state: makeWizardState(
        {
          current: 'project',
          project: {
            mode: 'scaffold',
            projectDir: '/home/me/agent',
            buildId: 'abc123',
            buildDir: '/home/me/agent/tutorial/opencode_build_abc123',
            collectorFile: '/home/me/agent/tutorial/opencode_build_abc123/get_training_dataset_item_list.py',
            episodeFile: '/home/me/agent/tutorial/opencode_build_abc123/run_episode_once.py',
            rewardStyle: 'native',
            python: '/home/me/agent/.venv/bin/python',
            dataset: { jobId: 'job-dataset', count: 3, first: ['a', 'b', 'c'], at: '2026-12-04T10:00:00.000Z' },
            episode: null,
          },
        },
        ['llm'],
      ),
    });
    wizard.jobs.set(dataset.id, dataset);
    await renderWizard(api);
    expect(stepButton('Agent project').getAttribute('aria-current')).toBe('step');
    expect(currentStep().dataset.step).toBe('project');
    expect(text(await within(currentStep()).findByTestId('wizard-dataset-count'))).toBe('3 items');
    expect(api.requestsOn('jobs:get')).toEqual([{ jobId: 'job-dataset' }]);
    expect((within(currentStep()).getByRole('textbox', { name: 'Project folder (absolute path)' }) as HTMLInputElement).value).toBe('/home/me/agent');
    expect((within(currentStep()).getByRole('combobox', { name: 'Python interpreter' }) as HTMLSelectElement).value).toBe('/home/me/agent/.venv/bin/python');
  });

  it('says so when the progress cannot be read', async () => {
    installWizardFake(api);
    api.failNext('wizard:state', { code: 'INTERNAL', message: 'wizard.json is unreadable.' });
    const { render } = await import('@testing-library/svelte');
    const { default: WizardPage } = await import('../../renderer/src/pages/WizardPage.svelte');
    render(WizardPage, { props: { context: { api, statuses: null as never, settings: null as never, navigate: () => {} } } });
    expect(text(await screen.findByTestId('wizard-load-failed'))).toContain('Could not read the wizard’s progress.');
    expect(screen.getByTestId('error-banner').textContent).toContain('wizard.json is unreadable.');
  });
});

describe('step 0: the debug LLM', () => {
  beforeEach(() => {
    wizard = installWizardFake(api);
  });

  const picker = (): HTMLSelectElement => screen.getByRole('combobox', { name: 'Debug LLM endpoint' });

  it('tests the chosen vault endpoint through wizard:set-llm and shows the answer and its latency', async () => {
    await renderWizard(api);
    await waitFor(() => expect(within(picker()).getByRole('option', { name: 'OpenAI' })).toBeTruthy());
    await fireEvent.change(picker(), { target: { value: 'openai' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Test the LLM' }));
    const result = await screen.findByTestId('wizard-llm-result');
    expect(api.requestsOn('wizard:set-llm')).toEqual([{ secretId: 'openai' }]);
    expect(text(result)).toContain('Answered in 120 ms: fake-debug-model answered "pong"');
    expect(text(result)).toContain('gpt-4o-mini at https://api.openai.com/v1');
    expect(result.dataset.ok).toBe('true');
    await waitFor(() => expect(stepButton('Debug LLM').getAttribute('data-status')).toBe('done'));
  });

  it('shows a failed test as the backend recorded it, and the step stays to do', async () => {
    wizard.llmTest = { ok: false, latencyMs: null, message: '401 Unauthorized: the key was refused' };
    await renderWizard(api);
    await waitFor(() => expect(within(picker()).getByRole('option', { name: 'OpenAI' })).toBeTruthy());
    await fireEvent.change(picker(), { target: { value: 'openai' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Test the LLM' }));
    const result = await screen.findByTestId('wizard-llm-result');
    expect(text(result)).toContain('Did not answer: 401 Unauthorized: the key was refused');
    expect(result.dataset.ok).toBe('false');
    expect(stepButton('Debug LLM').getAttribute('data-status')).toBe('todo');
  });

  it('asks for an endpoint before testing, and sends nothing', async () => {
    await renderWizard(api);
    await fireEvent.click(screen.getByRole('button', { name: 'Test the LLM' }));
    expect(text(screen.getByTestId('wizard-llm-choose'))).toContain('Choose an LLM endpoint');
    expect(document.activeElement).toBe(picker());
    expect(api.requestsOn('wizard:set-llm')).toEqual([]);
  });

  it('shows a refused endpoint with its fix', async () => {
    api.failNext('wizard:set-llm', { code: 'VALIDATION_FAILED', message: '"OpenAI" is not an LLM endpoint with a base URL and model. Choose an LLM endpoint, or edit this one to add them.' });
    await renderWizard(api);
    await waitFor(() => expect(within(picker()).getByRole('option', { name: 'OpenAI' })).toBeTruthy());
    await fireEvent.change(picker(), { target: { value: 'openai' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Test the LLM' }));
    const banner = await screen.findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('VALIDATION_FAILED');
    expect(text(banner)).toContain('edit this one to add them');
    await fireEvent.click(within(banner).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('error-banner')).toBeNull();
  });

  it('offers to unlock a locked vault, then tests again', async () => {
    vault.passphrase = 'correct horse';
    vault.state.status = 'locked';
    api.failNext('wizard:set-llm', { code: 'VAULT_LOCKED', message: 'The vault is locked.' });
    await renderWizard(api);
    await waitFor(() => expect(within(picker()).getByRole('option', { name: 'OpenAI' })).toBeTruthy());
    await fireEvent.change(picker(), { target: { value: 'openai' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Test the LLM' }));
    const passphrase = await screen.findByLabelText(/passphrase/i);
    await fireEvent.input(passphrase, { target: { value: 'correct horse' } });
    await fireEvent.click(screen.getByRole('button', { name: /unlock/i }));
    await screen.findByTestId('wizard-llm-result');
    expect(api.requestsOn('wizard:set-llm')).toHaveLength(2);
  });

  it('keeps the endpoint the backend has, and links to the endpoints in Settings', async () => {
    wizard.state = { ...wizard.state, llm: { secretId: 'local-llm', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen', test: null } };
    const { navigate } = await renderWizard(api);
    await waitFor(() => expect(picker().value).toBe('local-llm'));
    await fireEvent.click(screen.getByRole('button', { name: 'Manage LLM endpoints in Settings' }));
    expect(navigate).toHaveBeenCalledWith('settings');
  });
});
