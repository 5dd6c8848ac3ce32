import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRun } from '../../electron/services/runs/run-stats';
import type { TrainingPoint } from '../../electron/shared/schemas-training';
import { startTestApp, type TestApp } from '../support/test-app';
import { auditBothSchemes } from './axe';
import { launchChromium, openAppPage, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

/** Last night's runs as the run store keeps them on disk (what a restarted app finds). */
function storedRun(runId: string, startedAt: string, rewards: number[], learningRate: string): StoredRun {
  const start = Date.parse(startedAt);
  const points: TrainingPoint[] = rewards.map((reward, i) => ({
    step: i + 1,
    at: new Date(start + (i + 1) * 600_000).toISOString(),
    batch: 'pool',
    rewardMean: reward,
    rewardStd: 0.1,
    rewardMin: reward - 0.1,
    rewardMax: reward + 0.1,
    episodes: 8,
    seconds: 600,
    llmTokens: null,
    llmCalls: null,
    failures: null,
    secondsInStatus: { 'ENGINE.ROLLING': 540 },
  }));
  return {
    version: 1,
    runId,
    engineId: 'local',
    engineKind: 'local-docker',
    containerId: 'c0ffee000001',
    serverName: 'Qwen night run',
    profileId: null,
    profileLabel: null,
    image: 'ghcr.io/modelscope/agentjet:main',
    imageDigest: 'ghcr.io/modelscope/agentjet@sha256:0123456789abcdef',
    startedAt,
    endedAt: points.at(-1)!.at,
    endKind: 'engine-stopped',
    endCode: null,
    gpus: 4,
    gpuSource: 'sample',
    yaml: `ajet:\n  model:\n    path: /models/q\n  trainer_common:\n    learning_rate: ${learningRate}\n`,
    yamlNote: null,
    yamlPath: '/workspace/saved_experiments/x/yaml_backup.yaml',
    yamlSha256: learningRate.replace('.', '').padEnd(64, '0'),
    scripts: [],
    points,
    timeline: [],
  };
}

// Chromium against the browser host over a data folder holding two kept runs: the Runs page lists them, compares
// them and exports a card, and axe finds nothing at 800 px in English and Chinese, light and dark.
describe('Runs page end to end (Chromium + browser host), 800 px', () => {
  let dataDir: string;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    dataDir = await mkdtemp(join(tmpdir(), 'agentswarm-runs-e2e-'));
    await mkdir(join(dataDir, 'runs'), { recursive: true });
    for (const run of [storedRun('20261204T220000000Z-aaaa', '2026-12-04T22:00:00.000Z', [0.1, 0.3, 0.4, 0.6], '0.001'), storedRun('20261204T230000000Z-bbbb', '2026-12-04T23:00:00.000Z', [0.2, 0.5, 0.7], '0.0005')]) {
      await writeFile(join(dataDir, 'runs', `${run.runId}.json`), JSON.stringify(run));
    }
    // No engine: a server training on the shared dockerd (npm test runs this file beside the integration files) would
    // be recorded as a third run; the Runs page reads the data folder.
    app = await startTestApp({ staticDir: rendererDir, dataDir, dockerHost: 'unix:///nonexistent/docker.sock' });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.dispose();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  for (const language of ['en', 'zh-CN'] as const) {
    it(`lists, compares and exports with 0 axe violations (${language})`, async () => {
      await app.services.settings.update({ language });
      page = await openAppPage(browser, app.host!.openUrl, pageErrors, 'runs');
      await page.setViewportSize({ width: 800, height: 800 });
      const rows = page.getByTestId('run-row');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
      const reports: string[] = [];
      await auditBothSchemes(page, `runs list (${language})`, reports);

      for (const box of await page.getByRole('checkbox').all()) await box.check();
      await page.getByTestId('runs-compare-button').click();
      const compare = page.getByTestId('runs-compare');
      await compare.waitFor();
      expect(await compare.getByTestId('runs-compare-line').count()).toBe(2);
      expect(await compare.locator('tr[data-kind="changed"]').count()).toBe(1);
      // The heading takes focus, so a keyboard user lands on what appeared.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('runs-compare-title');
      await compare.getByRole('radio').nth(1).check();
      expect(await compare.getByTestId('runs-compare-chart').getAttribute('data-axis')).toBe('time');
      await auditBothSchemes(page, `runs compared (${language})`, reports);

      await rows.first().getByRole('button').first().click();
      const exported = page.getByTestId('runs-exported');
      await exported.waitFor();
      const path = /(\/\S+\.html)/.exec((await exported.textContent()) ?? '')?.[1];
      expect(path).toBeDefined();
      expect(await readFile(path!, 'utf8')).toContain('<svg');
      // Nothing sticks out at 800 px: the page scrolls only its tables.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
      await saveScreenshot(page, `runs-800px-${language}`);
      await page.close();
      expect(reports, reports.join('\n\n')).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 60_000);
  }
});
