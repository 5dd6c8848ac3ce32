import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../electron/shared/errors';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { errorTitle, getLocale, setLocale, t } from '../../renderer/src/lib/i18n';
import { en } from '../../renderer/src/lib/i18n/en';
import { zhCN } from '../../renderer/src/lib/i18n/zh-CN';
import { FakeApi } from './fake-api';

describe('dictionaries', () => {
  it('en and zh-CN have exactly the same keys, none empty', () => {
    expect(Object.keys(zhCN).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of [...Object.entries(en), ...Object.entries(zhCN)]) {
      expect(text.trim(), key).not.toBe('');
    }
  });

  it('use the same {placeholders} in both languages', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(placeholders(zhCN[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it('word error titles engine-neutrally: no engine product is named (each engine words its fixes in the detail)', () => {
    for (const dictionary of [en, zhCN]) {
      for (const code of ErrorCodes) {
        expect(dictionary[`errors.${code}`], code).not.toMatch(/docker|podman|slurm/i);
      }
    }
  });

  it('have a title for every backend error code', () => {
    for (const code of ErrorCodes) {
      expect(Object.keys(en)).toContain(`errors.${code}`);
    }
  });
});

describe('t()', () => {
  it('interpolates {name} parameters in the current language', () => {
    expect(t('engine.version', { product: 'Docker', version: '20.10.24', apiVersion: '1.41' })).toBe('Docker 20.10.24 · API 1.41');
    setLocale('zh-CN');
    expect(t('engine.title', { product: 'Docker' })).toBe('Docker 引擎（本机）');
  });

  it('names an unknown error code instead of failing', () => {
    expect(errorTitle('SOMETHING_NEW')).toBe('Error SOMETHING_NEW.');
  });
});

describe('language switching', () => {
  let api: FakeApi;

  beforeEach(() => {
    api = new FakeApi();
    setApiForTests(api);
  });

  it('switching to zh-CN in Settings changes the nav labels and saves it with settings:update', async () => {
    render(App);
    expect(screen.getByTestId('nav-servers').textContent?.trim()).toBe('Servers');
    await fireEvent.click(screen.getByTestId('nav-settings'));
    await waitFor(() => expect(api.requestsOn('settings:get')).toHaveLength(1));

    await fireEvent.change(screen.getByTestId('settings-language-select'), { target: { value: 'zh-CN' } });

    await waitFor(() => expect(api.requestsOn('settings:update')).toEqual([{ language: 'zh-CN', languageChosen: true }]));
    expect(screen.getByTestId('nav-wizard').textContent?.trim()).toBe('向导');
    expect(screen.getByTestId('nav-servers').textContent?.trim()).toBe('服务器');
    expect(screen.getByTestId('nav-jobs').textContent?.trim()).toBe('任务');
    expect(screen.getByTestId('nav-settings').textContent?.trim()).toBe('设置');
    expect(getLocale()).toBe('zh-CN');
  });

  it('starts in the language stored in backend settings', async () => {
    api.settingsValue.language = 'zh-CN';
    render(App);
    await waitFor(() => expect(screen.getByTestId('nav-servers').textContent?.trim()).toBe('服务器'));
    await waitFor(() => expect(screen.getByTestId('statusbar-swarm').textContent).toBe('AgentJet swarm 服务器：没有正在监视的服务器'));
  });

  it('follows settings:changed pushed by the backend', async () => {
    render(App);
    await waitFor(() => expect(api.listenerCount('settings:changed')).toBe(1));
    api.emit('settings:changed', { ...api.settingsValue, language: 'zh-CN' });
    await waitFor(() => expect(screen.getByTestId('nav-jobs').textContent?.trim()).toBe('任务'));
  });

  it('saves swarm defaults and refuses a bad port', async () => {
    render(App);
    await fireEvent.click(screen.getByTestId('nav-settings'));
    const port = (await screen.findByTestId('settings-swarm-port-input')) as HTMLInputElement;
    await waitFor(() => expect(port.value).toBe('10086'));

    await fireEvent.input(port, { target: { value: '99' } });
    await fireEvent.click(screen.getByTestId('settings-save-button'));
    expect(screen.getByText('The port must be a whole number from 1024 to 65535.')).toBeTruthy();
    expect(api.requestsOn('settings:update')).toHaveLength(0);

    await fireEvent.input(port, { target: { value: '10200' } });
    await fireEvent.click(screen.getByTestId('settings-save-button'));
    await waitFor(() =>
      expect(api.requestsOn('settings:update')).toEqual([
        { swarm: { image: 'ghcr.io/modelscope/agentjet:main', port: 10200 } },
      ]),
    );
    await screen.findByText('Saved.');
  });
});
