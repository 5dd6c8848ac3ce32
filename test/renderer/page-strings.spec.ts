/**
 * Pages bring their own strings (lib/i18n/topics.ts, lib/pages.ts): the app starts with the shell's topic alone
 * and a page renders only once its topics are here, in the language shown; a language switch on a page shows the
 * new language only once that page's topics are here in it. test/setup.ts loads every topic for the other specs;
 * this file forgets them first, so each page really has to bring its own, and reads the rendered page for a key.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import ErrorBanner from '../../renderer/src/components/ErrorBanner.svelte';
import { errorHelp, errorTitle, getLocale, hasTopics, loadAllTopics, loadLocale, loadTopics, setLocale, t } from '../../renderer/src/lib/i18n';
import { en } from '../../renderer/src/lib/i18n/en';
import { forgetStringsForTests } from '../../renderer/src/lib/i18n/locale.svelte';
import { zhCNDoctorFindings } from '../../renderer/src/lib/i18n/zh-CN-doctor-findings';
import { zhCNErrors } from '../../renderer/src/lib/i18n/zh-CN-errors';
import { zhCNRuns } from '../../renderer/src/lib/i18n/zh-CN-runs';
import { LazyPart } from '../../renderer/src/lib/lazy-parts.svelte';
import { loadedPage, loadPage, pages } from '../../renderer/src/lib/pages';
import DoctorPanel from '../../renderer/src/pages/servers/profiles/DoctorPanel.svelte';
import { FakeApi, makeDoctorCheck, makeDoctorReport } from './fake-api';
import ShowLazyPart from './fixtures/ShowLazyPart.svelte';

const allKeys = Object.keys(en);

/** Keys shown as themselves anywhere a user reads or hears them (text, labels, titles, placeholders). */
function keysOnScreen(): string[] {
  const texts = [document.body.textContent ?? ''];
  for (const element of document.body.querySelectorAll('*')) {
    for (const attribute of ['aria-label', 'title', 'placeholder', 'alt']) {
      const value = element.getAttribute(attribute);
      if (value) texts.push(value);
    }
  }
  const all = texts.join('\n');
  return allKeys.filter((key) => new RegExp(`(^|[^\\w.])${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w.])`).test(all));
}

let api: FakeApi;

beforeEach(async () => {
  forgetStringsForTests();
  await loadLocale('en');
  setLocale('en');
  api = new FakeApi();
  setApiForTests(api);
});

afterAll(async () => {
  // Leave the module as setup.ts made it for any spec that shares it.
  await loadAllTopics();
});

describe('strings by topic', () => {
  it('starts with the shell topic alone: a page topic is not there until asked for', () => {
    expect(hasTopics(['shell'])).toBe(true);
    expect(hasTopics(['runs'])).toBe(false);
    expect(t('runs.title')).toBe('runs.title');
  });

  it('a page counts as loaded only with its strings, and its loader brings them', async () => {
    expect(loadedPage('runs')).toBeUndefined();
    await loadPage('runs');
    expect(hasTopics(['runs', 'dryrun'])).toBe(true);
    expect(loadedPage('runs')).toBeDefined();
    expect(t('runs.title')).toBe(en['runs.title']);
  });

  it('a language switch shows the new language only once the topics in use are here in it', async () => {
    await loadPage('runs');
    setLocale('zh-CN');
    // Until the Chinese topics arrive the English stays: never a mix with keys.
    if (getLocale() === 'en') expect(t('runs.title')).toBe(en['runs.title']);
    await waitFor(() => expect(getLocale()).toBe('zh-CN'));
    expect(t('runs.title')).toBe(zhCNRuns['runs.title']);
    expect(hasTopics(['shell', 'runs', 'dryrun'])).toBe(true);
  });

  it('a page asked for while a switch is under way comes in the new language too', async () => {
    setLocale('zh-CN');
    await loadPage('settings');
    await waitFor(() => expect(getLocale()).toBe('zh-CN'));
    expect(hasTopics(['updates', 'vault', 'dryrun'])).toBe(true);
  });

  it('a lazily loaded part answers only once its topics are here', async () => {
    const part = new LazyPart(() => Promise.resolve({ default: (() => undefined) as never }), ['logs']);
    expect(part.get()).toBeNull();
    await part.load();
    expect(hasTopics(['logs'])).toBe(true);
    expect(part.get()).not.toBeNull();
  });
});

describe('a lazily loaded part whose chunk did not come (the backend was away)', () => {
  it('is asked for again a few seconds later by the page that shows it, and then shows', async () => {
    let calls = 0;
    const part = new LazyPart(async () => {
      calls += 1;
      if (calls === 1) throw new TypeError('Failed to fetch dynamically imported module');
      return import('./fixtures/PartShown.svelte');
    });
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      render(ShowLazyPart, { part });
      expect(screen.getByTestId('part-missing')).toBeTruthy();
      await waitFor(() => expect(screen.getByTestId('part-shown')).toBeTruthy(), { timeout: 10_000 });
      expect(calls).toBe(2);
      expect(String((errors[0] as unknown[])[0])).toBe('a part of the page did not load');
    } finally {
      console.error = original;
    }
  }, 20_000);
});

describe('the error words (a topic fetched with the first error worded)', () => {
  it('read as nothing while on their way, never as the code or the key, then as words', async () => {
    expect(hasTopics(['errors'])).toBe(false);
    expect(errorTitle('SERVER_NOT_FOUND')).toBe('');
    expect(errorHelp('SERVER_NOT_FOUND')).toBeNull();
    expect(t('errors.SECRET_NOT_FOUND')).toBe('');
    await waitFor(() => expect(hasTopics(['errors'])).toBe(true));
    expect(errorTitle('SERVER_NOT_FOUND')).toBe(en['errors.SERVER_NOT_FOUND']);
    expect(errorHelp('SERVER_NOT_FOUND')).toBe(en['errorHelp.SERVER_NOT_FOUND']);
    expect(errorTitle('SOMETHING_NEW')).toBe('Error SOMETHING_NEW.');
  });

  it('an error banner shows its title once the words are here, and a switch brings them in the new language', async () => {
    render(ErrorBanner, { error: { code: 'SERVER_NOT_FOUND', message: 'no server "x"' } });
    const banner = screen.getByTestId('error-banner');
    expect(banner.textContent).not.toContain('errors.');
    await waitFor(() => expect(banner.querySelector('strong')?.textContent).toBe(en['errors.SERVER_NOT_FOUND']));
    setLocale('zh-CN');
    await waitFor(() => expect(getLocale()).toBe('zh-CN'));
    expect(banner.querySelector('strong')?.textContent).toBe(zhCNErrors['errors.SERVER_NOT_FOUND']);
  });
});

describe("the doctor's findings (a topic fetched with the first report shown)", () => {
  it('are not fetched with the Servers page, and a report reads as nothing while they come, never as a key or English, then as words in either language', async () => {
    await loadPage('servers');
    expect(hasTopics(['doctor-findings'])).toBe(false);
    // What the Servers page's parts bring (a lazily loaded part's own topics are not asked for here).
    await loadTopics(['doctor']);
    const detail = 'There is no folder /srv/models/qwen on this computer.';
    const fix = 'Download the model there, or correct the path.';
    const report = makeDoctorReport('p', {}, [
      makeDoctorCheck('model-dir', { status: 'fail', detail, fix, say: { key: 'modelMissing', params: { path: '/srv/models/qwen', host: '' } } }),
    ]);
    render(DoctorPanel, { report });
    const row = screen.getByTestId('doctor-check-model-dir');
    expect(row.textContent).not.toContain(detail);
    expect(row.textContent).not.toContain(fix);
    expect(keysOnScreen()).toEqual([]);
    const worded = () => row.querySelector('[data-testid="doctor-detail-worded"]')?.textContent;
    const wordedFix = () => row.querySelector('[data-testid="doctor-fix-worded"]')?.textContent;
    await waitFor(() => expect(worded()).toBe('There is no folder /srv/models/qwen on this computer.'));
    expect(hasTopics(['doctor-findings'])).toBe(true);
    expect(wordedFix()).toBe(en['doctor.sayFix.modelMissing'].replace('{path}', '/srv/models/qwen'));
    expect(keysOnScreen()).toEqual([]);

    setLocale('zh-CN');
    await waitFor(() => expect(getLocale()).toBe('zh-CN'));
    expect(worded()).toBe(zhCNDoctorFindings['doctor.say.modelMissing'].replace('{host}', '本机').replace('{path}', '/srv/models/qwen'));
    expect(wordedFix()).toBe(zhCNDoctorFindings['doctor.sayFix.modelMissing'].replace('{path}', '/srv/models/qwen'));
    expect(keysOnScreen()).toEqual([]);
  });
});

describe('each page renders with its own strings, in both languages', () => {
  for (const entry of pages) {
    it(`${entry.id}: no key on screen after it opens, nor after a switch to Chinese`, async () => {
      render(App);
      await fireEvent.click(screen.getByTestId(`nav-${entry.id}`));
      await waitFor(() => expect(document.querySelector('main h1')).not.toBeNull());
      expect(hasTopics(entry.topics)).toBe(true);
      // Let the page's first data (the fake's answers) arrive, so what it shows for it is read too.
      await new Promise((r) => setTimeout(r, 300));
      expect(keysOnScreen()).toEqual([]);

      setLocale('zh-CN');
      await waitFor(() => expect(getLocale()).toBe('zh-CN'));
      expect(hasTopics(entry.topics)).toBe(true);
      await new Promise((r) => setTimeout(r, 100));
      expect(keysOnScreen()).toEqual([]);
      expect(document.documentElement.lang).toBe('zh-CN');
    }, 30_000);
  }
});
