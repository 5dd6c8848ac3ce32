import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Language } from '../../electron/shared/schemas';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { freePort, poll } from '../support/helpers';
import { installFakeNvidiaSmi, type FakeNvidiaSmi } from '../support/fake-nvidia-smi';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { formatViolations, runAxe } from './axe';
import { launchChromium, rendererDir, requireBuiltRenderer, saveScreenshot, showServer } from './browser';

const WORDS: Record<Language, { keep: string; save: string; thresholds: string; range: string; autoStop: string }> = {
  en: { keep: 'Keep running', save: 'Save thresholds', thresholds: 'Alert thresholds', range: 'Enter a number from 1 to 100.', autoStop: 'Auto-stop' },
  'zh-CN': { keep: '保持运行', save: '保存阈值', thresholds: '告警阈值', range: '请输入 1 到 100 之间的数字。', autoStop: '自动停止' },
};

// The fleet home's alerts in Chromium at 800 px, in both languages and both colour schemes: an open GPUs-idle alert
// whose profile has auto-stop (its plan and Keep running shown), the thresholds form unfolded with a wrong field,
// and the profile dialog's Auto-stop field; axe-core finds nothing. Real services and dockerd, the fake swarm image
// and the labelled nvidia-smi double.
describe('the fleet alerts, thresholds and auto-stop (axe-core, 800 px) in Chromium', () => {
  const testbed = loadTestbed();
  let fake: FakeNvidiaSmi;
  let app: TestApp;
  let browser: Browser;
  let profileId: string;

  beforeAll(async () => {
    requireBuiltRenderer();
    fake = await installFakeNvidiaSmi([{ utilizationPct: 1 }, { utilizationPct: 0 }]);
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 500, gpus: { command: fake.command, pace: { intervalMs: 2000, hiddenIntervalMs: 2000, maxBackoffMs: 2000 } } });
    browser = await launchChromium();
    await app.handlers['alerts:set-thresholds']({ idleMinutes: 0 });
    // Auto-stop on, long enough (a day) that it is only planned while the pages are audited.
    const added = await app.handlers['profiles:add'](
      ProfileInput.parse({ label: 'Night run', engineId: 'local', image: testbed.fakeSwarmImage, port: await freePort(), networkMode: 'host', gpus: { mode: 'none' }, shm: { mode: 'size', gb: 1 }, autoStop: { enabled: true, minutes: 1440 } }),
    );
    profileId = added.profile.id;
    await app.handlers['profiles:start']({ profileId, secrets: {}, skipDoctor: true, replaceDrifted: false });
    await poll('the planned auto-stop', 60_000, async () => (await app.handlers['alerts:list']({})).find((a) => a.rule === 'gpus-idle' && a.autoStop?.state === 'pending'));
  }, 120_000);

  afterAll(async () => {
    await app?.handlers['profiles:stop']({ profileId }).catch(() => undefined);
    await browser?.close();
    await app?.dispose();
    await fake?.remove();
  });

  async function open(language: Language, colorScheme: 'light' | 'dark'): Promise<Page> {
    await app.services.settings.update({ language });
    const page = await browser.newPage({ viewport: { width: 800, height: 900 }, colorScheme });
    const url = app.host!.openUrl;
    await page.goto(`${url}${url.includes('#') ? '&' : '#'}page=fleet`);
    await page.getByTestId('fleet-page').waitFor();
    return page;
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const language of ['en', 'zh-CN'] as const) {
      it(`has 0 axe violations with an auto-stop planned, the thresholds form and the profile's auto-stop field open (${language}, ${colorScheme})`, async () => {
        const words = WORDS[language];
        const page = await open(language, colorScheme);
        const reports: string[] = [];
        const audit = async (where: string): Promise<void> => {
          const violations = await runAxe(page);
          if (violations.length > 0) reports.push(formatViolations(`${where} (${language}, ${colorScheme})`, violations));
        };
        try {
          const alert = page.locator('[data-testid="fleet-alert"][data-rule="gpus-idle"]');
          await alert.getByTestId('fleet-alert-auto-stop').waitFor({ timeout: 30_000 });
          // The page's language arrives as a chunk of its own: wait for its words.
          await alert.getByRole('button', { name: words.keep }).waitFor({ timeout: 15_000 });

          await page.getByTestId('fleet-thresholds').locator('summary').click();
          await page.getByRole('heading', { name: words.thresholds }).waitFor();
          await page.getByTestId('fleet-threshold-diskPct').fill('150');
          await page.getByRole('button', { name: words.save }).click();
          await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('fleet-threshold-diskPct');
          expect(await page.getByText(words.range).count()).toBe(1);
          await audit('fleet home with an auto-stop planned and the thresholds form showing an error');
          await saveScreenshot(page, `fleet-alerts-${language}-${colorScheme}`);

          await showServer(page, 'engine:local');
          await page.getByTestId('profile-list').getByTestId('profile-new').click();
          const dialog = page.getByTestId('profile-dialog');
          await dialog.getByTestId('profile-form-auto-stop').check();
          await dialog.getByTestId('profile-form-auto-stop-minutes').waitFor();
          expect(await dialog.getByRole('group', { name: words.autoStop }).count()).toBe(1);
          await audit("profile dialog with the auto-stop field on");
        } finally {
          await page.close();
        }
        expect(reports, reports.join('\n\n')).toEqual([]);
      }, 120_000);
    }
  }
});
