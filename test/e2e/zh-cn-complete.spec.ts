import { rm } from 'node:fs/promises';
import Docker from 'dockerode';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileInput } from '../../electron/shared/schemas-profiles';
import { makeProject, startRequest } from '../integration/support/jobs-fixtures';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';
import { launchChromium, rendererDir, requireBuiltRenderer, saveScreenshot } from './browser';

/**
 * Words that stay as they are in the Chinese UI: product and protocol names, units and
 * abbreviations a Chinese engineer reads in Latin letters too. Compared case-insensitively.
 */
const ALLOWED_WORDS = [
  // Products, projects and formats.
  'AgentJet', 'AgentSwarm', 'Desktop', 'Docker', 'Podman', 'Slurm', 'SSH', 'GPU', 'GPUs', 'CPU', 'LLM', 'API', 'YAML',
  'JSON', 'JSONL', 'HTML', 'Markdown', 'PNG', 'SwanLab', 'OpenAI', 'Anthropic', 'Electron', 'Chromium', 'NVIDIA', 'CUDA', 'CDI', 'Python', 'venv',
  'conda', 'OpenSSH', 'ProxyJump', 'ProxyCommand', 'HTTP', 'HTTPS', 'URL', 'TCP', 'IPC', 'NCCL', 'LoRA', 'GRPO',
  'PPO', 'ID', 'PID', 'UUID', 'ETA', 'OK', 'ENGINE', 'swarm', 'uPlot', 'Linux', 'macOS', 'Windows', 'keyring',
  'AES', 'GCM', 'scrypt', 'ssh', 'config', 'known_hosts', 'safetensors', 'Hydra', 'FastAPI', 'rootless', 'rootful',
  'sbatch', 'squeue', 'scancel', 'GRES', 'QoS', 'Apptainer', 'enroot', 'pyxis', 'Qwen', 'ECDSA', 'ED', 'RSA', 'SHA',
  // Units.
  'ms', 'GB', 'GiB', 'MB', 'MiB', 'KB', 'KiB', 'TB',
  // Terms Chinese ML engineers use in Latin letters (AgentJet's own docs do): rollout, episode,
  // token, traceback; the engine states are protocol values (ENGINE.ROLLING …).
  'rollout', 'episode', 'token', 'traceback', 'BOOTING', 'ROLLING', 'OFFLINE', 'WEIGHT', 'SYNCING', 'POST',
  // Docker/SSH/OS terms kept as they are named in their tools' docs, and key names on the keyboard.
  'socket', 'shell', 'stderr', 'stdout', 'host', 'context', 'IdentitiesOnly', 'Container', 'Toolkit', 'Base', 'PATH',
  'Page', 'Up', 'Down', 'End', 'Ctrl', 'Tab', 'Enter', 'Esc',
  // The config key a job YAML names ("model"), and the language's own name in the language menu.
  'model', 'English',
  // The two stream marks of a job log line (APP = the app's own line, ERR = stderr).
  'APP', 'ERR',
];

/**
 * KNOWN GAPS, kept visible on purpose (the issue-32 zh-CN check): English that still reaches the
 * Chinese UI, each with the reason it is not yet worded in the renderer. Every entry is a
 * substring of an offending text; remove an entry when its source is fixed (the test then proves it).
 */
const KNOWN_ENGLISH: { text: string; why: string }[] = [
  {
    text: 'cloudflared access ssh --hostname',
    why: 'the ProxyCommand hint quotes two example commands inside one sentence (en/zh-CN i18n); they should move into <code>',
  },
  {
    text: 'docker system dial-stdio',
    why: 'the Docker-over-SSH transport option names the command it runs (a command, not words)',
  },
  {
    text: 'docker kill',
    why: 'an exit code 137 names the command that sends SIGKILL (a command, not words); seen once other test runs\' servers ended on the local engine',
  },
  {
    text: '   (in /',
    why: "a job log's first app line (the command and its folder) is written into the log file once, in English; the summary words the same facts",
  },
  {
    text: 'failed (exit code',
    why: "a job log's last app line is written into the log file once, in English; the summary above words the same facts in the user's language",
  },
  {
    text: 'ncclUnhandledCudaError',
    why: 'the NCCL env button names the CUDA error it fixes, as NCCL prints it',
  },
];

interface Offender {
  where: string;
  text: string;
  words: string[];
}

/**
 * Every visible text node (and placeholder, aria-label, title, option) of the page that holds a
 * Latin-letter word not in the allow-list. Text inside <code>, <pre> and <kbd> (paths, commands)
 * and exact user data (names the test typed) do not count.
 */
async function englishOn(page: Page, where: string, userData: string[]): Promise<Offender[]> {
  const found = await page.evaluate(
    ({ allowed, userData }) => {
      const allow = new Set(allowed.map((word) => word.toLowerCase()));
      const englishWords = (raw: string): string[] => {
        let text = raw;
        for (const data of userData) text = text.split(data).join(' ');
        const words: string[] = [];
        for (const token of text.split(/[\s，。、：；（）「」《》“”]+/)) {
          // Identifiers, paths, URLs, images, env names and numbers are not words of a sentence.
          const bare = token.replace(/^[("'‘“[{«<]+|[)"'’”\]}»>,.;:!?…]+$/g, '');
          if (!/^[A-Za-z]{2,}$/.test(bare)) continue;
          if (!allow.has(bare.toLowerCase())) words.push(bare);
        }
        return words;
      };
      const verbatim = 'code, pre, kbd, script, style, noscript, [data-user-data]';
      const shown = (el: Element): boolean => el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true });
      const describe = (el: Element): string => {
        const owner = el.closest('[data-testid]');
        return owner ? owner.getAttribute('data-testid')! : el.tagName.toLowerCase();
      };
      const out: { at: string; text: string; words: string[] }[] = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        if (!el || el.closest(verbatim) || el.closest('option')) continue;
        // A job log's lines are the program's own output (user data); the app's own lines (APP)
        // are still checked.
        const logLine = el.closest('[data-testid="job-log-line"]');
        if (logLine && logLine.getAttribute('data-stream') !== 'app') continue;
        if (!shown(el)) continue;
        const text = (node.textContent ?? '').trim();
        const words = englishWords(text);
        if (words.length > 0) out.push({ at: describe(el), text, words });
      }
      for (const el of document.body.querySelectorAll('[placeholder], [aria-label], [title], option')) {
        const host = el.tagName === 'OPTION' ? el.closest('select') : el;
        if (!host || !shown(host) || el.closest(verbatim)) continue;
        const texts = el.tagName === 'OPTION' ? [el.textContent ?? ''] : ['placeholder', 'aria-label', 'title'].map((name) => el.getAttribute(name) ?? '');
        for (const text of texts) {
          const words = englishWords(text.trim());
          if (words.length > 0) out.push({ at: `${describe(el)} (${el.tagName === 'OPTION' ? 'option' : 'attribute'})`, text: text.trim(), words });
        }
      }
      return out;
    },
    { allowed: ALLOWED_WORDS, userData },
  );
  return found.map((item) => ({ where: `${where} › ${item.at}`, text: item.text, words: item.words }));
}

// The Chinese UI in Chromium against the browser host and real services: switch to zh-CN in
// Settings, visit every page of the navigation and open the panels a user reaches without a GPU
// server (add server, new profile, the vault and its add-secret dialog, the dry-run card while a
// dry run runs, a failed job's detail), and fail on any English the user would read.
describe('zh-CN is complete (Chromium + browser host)', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let project: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireBuiltRenderer();
    project = await makeProject({ 'crash.py': ['def load():', '    return {}["id"]', 'load()'].join('\n') });
    app = await startTestApp({ staticDir: rendererDir, monitorIntervalMs: 300 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    if (page) await saveScreenshot(page, 'zh-cn-complete');
    await app?.handlers['dryrun:stop']({}).catch(() => undefined);
    await browser?.close();
    await app?.dispose();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('opens in Chinese on first launch when the browser language is Chinese and nobody chose one', async () => {
    const zhBrowser = await browser.newPage({ locale: 'zh-CN', viewport: { width: 1280, height: 800 } });
    try {
      await zhBrowser.goto(app.host!.openUrl);
      await expect.poll(async () => (await zhBrowser.getByTestId('nav-servers').textContent())?.trim()).toBe('服务器');
      expect(await zhBrowser.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
      expect(app.services.settings.get().languageChosen).toBeUndefined();
    } finally {
      await zhBrowser.close();
    }
    const enBrowser = await browser.newPage({ locale: 'en-US' });
    try {
      await enBrowser.goto(app.host!.openUrl);
      await expect.poll(async () => (await enBrowser.getByTestId('nav-servers').textContent())?.trim()).toBe('Servers');
    } finally {
      await enBrowser.close();
    }
  }, 90_000);

  it('shows no English on any page or panel once switched to zh-CN', async () => {
    page = await browser.newPage({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.host!.openUrl);
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-language-select').selectOption('zh-CN');
    await expect.poll(async () => (await page.getByTestId('nav-servers').textContent())?.trim()).toBe('服务器');
    await expect.poll(() => app.services.settings.get().languageChosen).toBe(true);

    const offenders: Offender[] = [];
    const visited: string[] = [];
    // What the test itself typed or ran: names and the script's own exception text.
    // The engine's own facts are data too: the OS name dockerd reports (the doctor quotes it).
    const engineOs = ((await new Docker({ socketPath: loadTestbed().dockerSocket }).info()) as { OperatingSystem: string }).OperatingSystem;
    const userData = ['crash.py', 'zh-check-job', "KeyError: 'id'", 'zh-profile', engineOs];
    // Dialogs are parts loaded on first use: wait for one to be open before reading it, and for it to be gone after
    // Escape (a loaded run once pressed Escape before the profile dialog had arrived; it then opened and covered the page).
    const openDialog = async (trigger: string): Promise<void> => {
      await page.getByTestId(trigger).first().click();
      await page.locator('dialog[open]').waitFor({ timeout: 30_000 });
    };
    const closeDialog = async (): Promise<void> => {
      await page.keyboard.press('Escape');
      await page.locator('dialog[open]').waitFor({ state: 'detached', timeout: 30_000 });
    };
    const check = async (where: string): Promise<void> => {
      // Let the page settle: lists load through the API after navigation.
      await page.waitForTimeout(400);
      visited.push(where);
      offenders.push(...(await englishOn(page, where, userData)));
    };

    // Every page of the navigation, from the app's own nav (a new page is checked without an edit here).
    const navIds = await page.locator('nav [data-testid^="nav-"]').evaluateAll((els) => els.map((el) => el.getAttribute('data-testid')!));
    expect(navIds.length).toBeGreaterThanOrEqual(4);
    for (const id of navIds) {
      await page.getByTestId(id).click();
      await check(`page ${id}`);
    }

    // Servers: the add-server dialog and a new profile on Local Docker.
    await page.getByTestId('nav-servers').click();
    await openDialog('server-add');
    await check('servers › add server dialog');
    await closeDialog();
    await openDialog('profile-new');
    await check('servers › new profile dialog');
    await closeDialog();

    // A profile on local Docker and its preflight doctor (the test bed's image, no GPUs).
    const testbed = loadTestbed();
    const profileInput = ProfileInput.parse({ label: 'zh-profile', engineId: 'local', image: testbed.fakeSwarmImage, port: await freePort(), networkMode: 'host', gpus: { mode: 'none' }, shm: { mode: 'size', gb: 16 } });
    await app.handlers['profiles:add'](profileInput);
    const card = page.getByTestId('profile-card').filter({ hasText: 'zh-profile' });
    await card.getByTestId('profile-doctor').click();
    await card.locator('[data-testid="doctor-panel"]:not([data-verdict="none"])').waitFor({ timeout: 30_000 });
    await check('servers › profile doctor report');

    // Settings: the vault's set-up choice, then a session vault with the add-secret dialog.
    await page.getByTestId('nav-settings').click();
    await check('settings › vault not set up');
    await app.handlers['vault:setup']({ backend: 'session' });
    await page.getByTestId('secret-add').first().waitFor();
    await check('settings › vault (session)');
    await openDialog('secret-add');
    await check('settings › add secret dialog');
    await closeDialog();

    // A dry run that runs (its LLM is unreachable on purpose: no episode needs it here).
    await app.handlers['dryrun:start']({
      config: { port: await freePort(), llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'debug-model', secretId: null }, bootDelayMs: 300, trainingStepMs: 300, spend: { maxCallsPerEpisode: 5, maxCalls: 10, maxTokens: 10_000 } },
    });
    await page.getByTestId('nav-servers').click();
    await page.waitForTimeout(1500);
    await check('servers › dry run running');

    // Jobs: a failed run's detail (its summary, traceback and log).
    await app.handlers['jobs:start'](startRequest({ cwd: project, script: 'crash.py', label: 'zh-check-job' }));
    await page.getByTestId('nav-jobs').click();
    await page.locator('[data-testid="job-state"]').first().waitFor({ timeout: 15_000 });
    await page.waitForTimeout(1500);
    await page.getByRole('button', { name: 'zh-check-job' }).click();
    await page.getByTestId('job-detail').waitFor();
    await check('jobs › failed run detail');

    // The wizard's first step with its forms.
    await page.getByTestId('nav-wizard').click();
    await check('wizard › first step');

    const known = (offender: Offender): boolean => KNOWN_ENGLISH.some((entry) => offender.text.includes(entry.text));
    const unknown = offenders.filter((offender) => !known(offender));
    const unique = [...new Map(unknown.map((o) => [`${o.where}|${o.text}`, o])).values()];
    console.log(`zh-CN check: ${visited.length} views (${visited.join('; ')}), ${offenders.length - unknown.length} known gaps, ${unique.length} offenders`);
    for (const offender of unique) console.log(`  ENGLISH on ${offender.where}: "${offender.text}" [${offender.words.join(', ')}]`);
    expect(unique.map((o) => `${o.where}: ${o.text}`)).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
