/**
 * Regenerates the README's picture (docs/images/servers-dry-run.png): the built UI in Debian's
 * Chromium against the browser host and real services, with a dry run on this computer running,
 * in English at 1280×800. Needs the test bed's dockerd (`bash test/testbed/testbed.sh up`) and a
 * build (`npm run docs:screenshot` builds first).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, rendererDir, repoRoot, requireBuiltRenderer } from '../test/e2e/browser';
import { freePort } from '../test/support/helpers';
import { startTestApp } from '../test/support/test-app';

export const README_SCREENSHOT = join(repoRoot, 'docs', 'images', 'servers-dry-run.png');

async function main(): Promise<void> {
  requireBuiltRenderer();
  const app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
  const browser = await launchChromium({ full: true });
  try {
    await app.services.settings.update({ language: 'en', languageChosen: true });
    // The debug LLM is unreachable on purpose: the picture shows the server and its dashboard, no episode.
    await app.handlers['dryrun:start']({
      config: {
        port: await freePort(),
        llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'debug-model', secretId: null },
        bootDelayMs: 300,
        trainingStepMs: 8000,
        spend: { maxCallsPerEpisode: 20, maxCalls: 2000, maxTokens: 2_000_000 },
      },
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await page.goto(app.host!.openUrl);
    await page.getByTestId('nav-servers').click();
    await page.getByTestId('dryrun-llm').waitFor({ timeout: 15_000 });
    await page.getByTestId('dryrun-llm').scrollIntoViewIfNeeded();
    // Let the monitor's first polls reach the dashboard.
    await page.waitForTimeout(2000);
    mkdirSync(join(repoRoot, 'docs', 'images'), { recursive: true });
    await page.screenshot({ path: README_SCREENSHOT });
    console.log(`wrote ${README_SCREENSHOT}`);
  } finally {
    await app.handlers['dryrun:stop']({}).catch(() => undefined);
    await browser.close();
    // The picture is written; a cleanup that cannot reach one of the test bed's engines only warns.
    await app.dispose().catch((error: unknown) => console.warn(`cleanup: ${String(error)}`));
  }
}

await main();
