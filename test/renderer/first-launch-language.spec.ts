import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { effectiveLanguage, getLocale, setLocale, systemLanguage } from '../../renderer/src/lib/i18n';
import { FakeApi } from './fake-api';

/** jsdom's navigator says en-US; these tests play an OS or browser set to another language. */
function pretendBrowserLanguages(languages: string[]): void {
  Object.defineProperty(navigator, 'languages', { value: languages, configurable: true });
  Object.defineProperty(navigator, 'language', { value: languages[0], configurable: true });
}

describe('first launch follows the OS or browser language', () => {
  let api: FakeApi;

  beforeEach(() => {
    api = new FakeApi();
    setApiForTests(api);
    setLocale('en');
  });

  afterEach(() => {
    // Back to jsdom's own values (the prototype's getters).
    Reflect.deleteProperty(navigator, 'languages');
    Reflect.deleteProperty(navigator, 'language');
  });

  it('maps every Chinese tag to zh-CN and everything else to English', () => {
    for (const tag of ['zh', 'zh-CN', 'zh-Hans-CN', 'zh-TW', 'ZH-cn']) expect(systemLanguage([tag]), tag).toBe('zh-CN');
    for (const tag of ['en-US', 'de-DE', 'ja']) expect(systemLanguage([tag]), tag).toBe('en');
    expect(systemLanguage([])).toBe('en');
  });

  it('uses the browser language only while the user has not chosen one', () => {
    pretendBrowserLanguages(['zh-CN', 'en-US']);
    expect(effectiveLanguage({ language: 'en' })).toBe('zh-CN');
    expect(effectiveLanguage({ language: 'en', languageChosen: true })).toBe('en');
    pretendBrowserLanguages(['en-US', 'zh-CN']);
    // The first preference decides.
    expect(effectiveLanguage({ language: 'en' })).toBe('en');
    expect(effectiveLanguage({ language: 'zh-CN' })).toBe('zh-CN');
  });

  it('opens in Chinese on a Chinese system when settings hold no choice', async () => {
    pretendBrowserLanguages(['zh-CN']);
    render(App);
    await waitFor(() => expect(screen.getByTestId('nav-servers').textContent?.trim()).toBe('服务器'));
    expect(getLocale()).toBe('zh-CN');
    expect(document.documentElement.lang).toBe('zh-CN');
  });

  it('keeps English on a Chinese system once the user chose English, and saves that choice', async () => {
    pretendBrowserLanguages(['zh-CN']);
    render(App);
    await waitFor(() => expect(getLocale()).toBe('zh-CN'));
    await fireEvent.click(screen.getByTestId('nav-settings'));
    await fireEvent.change(await screen.findByTestId('settings-language-select'), { target: { value: 'en' } });

    await waitFor(() => expect(api.requestsOn('settings:update')).toEqual([{ language: 'en', languageChosen: true }]));
    expect(screen.getByTestId('nav-servers').textContent?.trim()).toBe('Servers');
    // The next start reads the saved choice, not the system.
    api.emit('settings:changed', { ...api.settingsValue });
    await waitFor(() => expect(getLocale()).toBe('en'));
  });
});
