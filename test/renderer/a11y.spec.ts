import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../electron/shared/errors';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { errorHelp, setLocale } from '../../renderer/src/lib/i18n';
import { en } from '../../renderer/src/lib/i18n/en';
import { zhCN } from '../../renderer/src/lib/i18n/zh-CN';
import { pages } from '../../renderer/src/lib/pages';
import { FakeApi, makeStatus } from './fake-api';
import { installWizardFake, makeWizardState } from './fakes/wizard';
import { rowFor } from './rows';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

describe('page table (lib/pages.ts)', () => {
  it('is what the navigation renders, in order, and every page opens from it', async () => {
    render(App);
    const navIds = within(screen.getByRole('navigation'))
      .getAllByRole('button')
      .map((b) => b.dataset.testid);
    expect(navIds).toEqual(pages.map((p) => `nav-${p.id}`));
    for (const entry of pages) {
      await fireEvent.click(screen.getByTestId(`nav-${entry.id}`));
      expect(screen.getByTestId(`nav-${entry.id}`).getAttribute('aria-current')).toBe('page');
      expect(screen.getByRole('heading', { level: 1 })).toBeTruthy();
    }
  });

  it('lets a page navigate through its context (Wizard → Settings)', async () => {
    // A user with an LLM endpoint chosen: step 1 shows the picker and its link to Settings (a first one is typed inline).
    const llm = { secretId: 'openai-main', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', test: null };
    installWizardFake(api, { state: makeWizardState({ llm }) });
    render(App);
    await fireEvent.click(screen.getByTestId('nav-wizard'));
    await fireEvent.click(await screen.findByRole('button', { name: 'Manage LLM endpoints in Settings' }));
    expect(screen.getByTestId('nav-settings').getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Settings');
  });
});

describe('error explanations', () => {
  it('exist for every ErrorCode in en and zh-CN, and zh-CN is translated', () => {
    for (const code of ErrorCodes) {
      const key = `errorHelp.${code}` as keyof typeof en;
      expect(en[key], key).toBeTruthy();
      expect(zhCN[key], key).toMatch(/[\u4e00-\u9fff]/);
      expect(zhCN[key], key).not.toBe(en[key]);
    }
  });

  it('are shown under the title in the current language, the backend detail marked as English', async () => {
    api.settingsValue.language = 'zh-CN';
    api.failNext('swarm:start', { code: 'CONTAINER_START_FAILED', message: 'could not select device driver "nvidia"' });
    render(App);
    await waitFor(() => expect(screen.getByTestId('swarm-start-button').textContent?.trim()).toBe('启动'));
    await fireEvent.click(screen.getByTestId('swarm-start-button'));
    const banner = await screen.findByTestId('error-banner');
    expect(within(banner).getByTestId('error-help').textContent).toBe(zhCN['errorHelp.CONTAINER_START_FAILED']);
    expect(within(banner).getByText('could not select device driver "nvidia"').getAttribute('lang')).toBe('en');
    setLocale('en');
    expect(errorHelp('NOT_A_CODE')).toBeNull();
  });
});

describe('Servers page semantics', () => {
  it('gives the container table real column headers and polite live regions for status', async () => {
    const container = api.makeContainer({ port: 10091 });
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);
    const table = screen.getByRole('table', { name: 'Swarm server containers' });
    const headers = within(table).getAllByRole('columnheader');
    expect(headers.map((h) => h.textContent)).toEqual(['Name', 'URL for training code', 'Container', 'Training status', 'Actions']);
    for (const header of headers) {
      expect(header.getAttribute('scope')).toBe('col');
      expect(header.closest('[aria-hidden="true"]')).toBeNull();
    }
    expect(within(row).getByTestId('swarm-url').textContent).toBe('http://127.0.0.1:10091');
    expect(within(row).getByTestId('swarm-container-state').closest('[aria-live="polite"]')).not.toBeNull();
    expect(within(row).getByTestId('swarm-engine-status').closest('[aria-live="polite"]')).not.toBeNull();
    expect(screen.getByTestId('statusbar-swarm').getAttribute('role')).toBe('status');
    expect(screen.getByTestId('engine-status').getAttribute('role')).toBe('status');
    await waitFor(() => expect(screen.getByTestId('engine-status').textContent).toContain('Reachable'));
  });

  it('shows the URL training code must use, and what "Use all GPUs" needs', async () => {
    render(App);
    await waitFor(() => expect(screen.getByTestId('swarm-url-hint').textContent).toBe('Your training code will connect to http://127.0.0.1:10086.'));
    const gpus = screen.getByTestId('swarm-gpus-checkbox');
    const hint = document.getElementById(gpus.getAttribute('aria-describedby') ?? '');
    expect(hint?.textContent).toContain('NVIDIA Container Toolkit on the Docker host');
  });

  it('shows a Docker engine problem once: on the engine card, not again in the start form and the list', async () => {
    const problem = { code: 'ENGINE_UNREACHABLE' as const, message: 'connect ENOENT /var/run/docker.sock' };
    api.health = { id: 'local', reachable: false, version: null, apiVersion: null, error: problem };
    api.failNext('swarm:list', problem);
    render(App);
    await within(await screen.findByTestId('engine-card')).findByTestId('error-banner');
    await screen.findByTestId('containers-waiting-for-engine');

    api.failNext('swarm:start', problem);
    await fireEvent.click(screen.getByTestId('swarm-start-button'));
    await waitFor(() => expect(screen.getByTestId('swarm-start-outcome').textContent).toContain('Not started'));
    expect(screen.getAllByTestId('error-banner')).toHaveLength(1);
    expect(screen.getAllByRole('alert')).toHaveLength(1);
  });
});

describe('keyboard and focus', () => {
  it('focuses the remove confirmation, closes it on Escape and returns focus to Remove; Cancel does the same', async () => {
    const container = api.makeContainer({ state: 'running' });
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);
    const remove = within(row).getByTestId('swarm-remove-button');

    await fireEvent.click(remove);
    const confirm = await within(row).findByTestId('swarm-remove-confirm');
    await waitFor(() => expect(document.activeElement).toBe(confirm));
    expect(remove.getAttribute('aria-expanded')).toBe('true');
    expect(confirm.getAttribute('role')).toBe('group');
    expect(confirm.getAttribute('aria-labelledby') && document.getElementById(confirm.getAttribute('aria-labelledby')!)?.textContent).toBe(
      'Remove this running container?',
    );

    await fireEvent.keyDown(within(row).getByTestId('swarm-remove-confirm-button'), { key: 'Escape' });
    await waitFor(() => expect(within(row).queryByTestId('swarm-remove-confirm')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(remove));

    await fireEvent.click(remove);
    await fireEvent.click(await within(row).findByTestId('swarm-remove-cancel-button'));
    await waitFor(() => expect(within(row).queryByTestId('swarm-remove-confirm')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(remove));
    expect(api.requestsOn('swarm:remove')).toHaveLength(0);
  });

  it('moves focus from Stop to Remove when Stop disappears, and keeps Stop focusable while busy', async () => {
    const container = api.makeContainer({ state: 'running' });
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);
    const stop = within(row).getByTestId('swarm-stop-button') as HTMLButtonElement;
    const release = api.hold('swarm:stop');
    stop.focus();

    await fireEvent.click(stop);
    await waitFor(() => expect(stop.getAttribute('aria-disabled')).toBe('true'));
    expect(stop.disabled).toBe(false);
    expect(document.activeElement).toBe(stop);
    await fireEvent.click(stop);
    release();

    await waitFor(() => expect(within(row).queryByTestId('swarm-stop-button')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(within(row).getByTestId('swarm-remove-button')));
    expect(api.requestsOn('swarm:stop')).toHaveLength(1);
  });

  it('moves focus to the list heading when the removed row takes the pressed button with it', async () => {
    const container = api.makeContainer({ state: 'exited' });
    api.containers = [container];
    render(App);
    const row = await rowFor(container.id);
    const remove = within(row).getByTestId('swarm-remove-button');
    remove.focus();
    await fireEvent.click(remove);
    await waitFor(() => expect(screen.queryAllByTestId('swarm-container-row')).toHaveLength(0));
    await waitFor(() => expect(document.activeElement?.id).toMatch(/^containers-heading/));
  });

  it('returns focus to Start when its error is dismissed', async () => {
    api.failNext('swarm:start', { code: 'PORT_IN_USE', message: 'port is already allocated' });
    render(App);
    await waitFor(() => expect(api.requestsOn('settings:get')).toHaveLength(1));
    const start = screen.getByTestId('swarm-start-button');
    await fireEvent.click(start);
    const banner = await screen.findByTestId('error-banner');
    const dismiss = within(banner).getByRole('button', { name: 'Dismiss' });
    dismiss.focus();
    await fireEvent.click(dismiss);
    await waitFor(() => expect(screen.queryByTestId('error-banner')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(start));
  });

  it('keeps Check again focusable (aria-disabled) while the engine is checked', async () => {
    const release = api.hold('engines:health');
    render(App);
    const recheck = within(await screen.findByTestId('engine-card')).getByRole('button', { name: 'Check again' }) as HTMLButtonElement;
    await waitFor(() => expect(recheck.getAttribute('aria-disabled')).toBe('true'));
    expect(recheck.disabled).toBe(false);
    release();
    await waitFor(() => expect(recheck.getAttribute('aria-disabled')).toBe('false'));
  });
});

describe('start form memory (settings swarm defaults)', () => {
  it('opens with the shared defaults (GPUs on) before settings answer', async () => {
    const release = api.hold('settings:get');
    render(App);
    expect(((await screen.findByTestId('swarm-gpus-checkbox')) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByTestId('swarm-port-input') as HTMLInputElement).value).toBe('10086');
    release();
  });

  it('saves the values of a successful start, and the next form opens with them', async () => {
    const view = render(App);
    await waitFor(() => expect(api.requestsOn('settings:get')).toHaveLength(1));
    await fireEvent.input(screen.getByTestId('swarm-port-input'), { target: { value: '10123' } });
    await fireEvent.change(screen.getByTestId('swarm-network-select'), { target: { value: 'host' } });
    await fireEvent.click(screen.getByTestId('swarm-start-button'));
    await waitFor(() => expect(api.requestsOn('settings:update')).toHaveLength(1));
    expect(api.requestsOn('settings:update')[0]).toEqual({
      swarm: { image: 'ghcr.io/modelscope/agentjet:main', port: 10123, networkMode: 'host', gpus: false, shmSizeGb: 32 },
    });
    expect(screen.getByTestId('swarm-start-outcome').textContent).toContain('http://127.0.0.1:10123');
    view.unmount();

    render(App);
    await waitFor(() => expect((screen.getByTestId('swarm-port-input') as HTMLInputElement).value).toBe('10123'));
    expect((screen.getByTestId('swarm-network-select') as HTMLSelectElement).value).toBe('host');
  });

  it('does not save values when the start fails', async () => {
    api.failNext('swarm:start', { code: 'PORT_IN_USE', message: 'taken' });
    render(App);
    await waitFor(() => expect(api.requestsOn('settings:get')).toHaveLength(1));
    await fireEvent.click(screen.getByTestId('swarm-start-button'));
    await screen.findByTestId('error-banner');
    expect(api.requestsOn('settings:update')).toHaveLength(0);
  });
});

describe('status bar', () => {
  it('keeps the training status apart from the Docker engine and names the AgentJet swarm server', async () => {
    const container = api.makeContainer();
    api.containers = [container];
    api.statusList = [makeStatus(container.id, { engineStatus: 'ENGINE.ROLLING' })];
    render(App);
    await waitFor(() => expect(screen.getByTestId('statusbar-swarm').textContent).toBe('AgentJet swarm server: Training · 127.0.0.1:10086'));
  });
});
