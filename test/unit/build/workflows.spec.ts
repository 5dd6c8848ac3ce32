import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error -- a plain .mjs script without types; the function is small and checked by this test.
import { mergeMacUpdateInfo } from '../../../scripts/merge-mac-update-info.mjs';

/**
 * The GitHub workflows (issue 35) cannot run here, so what can be checked is checked: they parse,
 * every `npm run X` names a script of package.json, every repository path they mention exists,
 * the release builds all four systems and smoke-tests before it uploads, and the docs name every
 * secret the release reads.
 */
const root = resolve(import.meta.dirname, '..', '..', '..');
const scripts = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  if?: string;
}
interface Job {
  steps: Step[];
  strategy?: { matrix?: { include?: Record<string, string>[] } };
  needs?: string | string[];
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
}

function workflow(name: string): { text: string; parsed: Workflow } {
  const text = readFileSync(join(root, '.github', 'workflows', name), 'utf8');
  return { text, parsed: parse(text) as Workflow };
}

const files = ['release.yml', 'checks.yml'] as const;

/** Every shell line of a workflow, plus the matrix values (they are spliced into run lines). */
function shellText(parsed: Workflow): string {
  const parts: string[] = [];
  for (const job of Object.values(parsed.jobs)) {
    for (const step of job.steps) if (step.run) parts.push(step.run);
    for (const row of job.strategy?.matrix?.include ?? []) parts.push(...Object.values(row));
  }
  return parts.join('\n');
}

describe.each(files)('.github/workflows/%s', (file) => {
  const { parsed } = workflow(file);

  it('parses, and every job has steps', () => {
    expect(Object.keys(parsed.jobs).length).toBeGreaterThan(0);
    for (const job of Object.values(parsed.jobs)) expect(job.steps.length).toBeGreaterThan(0);
  });

  it('runs only npm scripts that package.json has', () => {
    const named = [...shellText(parsed).matchAll(/npm run(?: -s)? ([\w:.-]+)/g)].map((m) => m[1]!);
    for (const name of named) expect(scripts, `npm run ${name}`).toContain(name);
  });

  it('mentions only repository paths that exist', () => {
    const text = shellText(parsed);
    const paths = [...text.matchAll(/(?:^|[\s"'/.])((?:\.\.\/)?(?:scripts|test|docs|\.ci)\/[\w.-]+(?:\/[\w.-]+)*)/g)].map((m) => m[1]!.replace(/^\.\.\//, ''));
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(existsSync(join(root, path)), path).toBe(true);
  });
});

describe('the release workflow', () => {
  const { text, parsed } = workflow('release.yml');
  const build = parsed.jobs['build']!;
  const stepIndex = (pattern: RegExp) => build.steps.findIndex((s) => pattern.test(`${s.name ?? ''} ${s.run ?? ''}`));

  it('runs on version tags and builds Linux, macOS x64, macOS arm64 and Windows', () => {
    expect((parsed.on['push'] as { tags: string[] }).tags).toEqual(['v*']);
    const rows = build.strategy!.matrix!.include!;
    expect(rows.map((r) => r['name'])).toEqual(['linux-x64', 'mac-x64', 'mac-arm64', 'win-x64']);
    expect(rows.map((r) => r['targets'])).toEqual(['--linux AppImage deb --x64', '--mac dmg zip --x64', '--mac dmg zip --arm64', '--win nsis --x64']);
  });

  it('tests, builds, packages, smoke-tests, sums and only then uploads', () => {
    const order = [/npm ci/, /npm run test:unit/, /electron-vite build/, /npx electron-builder/, /smoke-packaged/, /sha256sum/, /gh release upload/].map(stepIndex);
    for (const index of order) expect(index).toBeGreaterThanOrEqual(0);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain('xvfb-run -a npx tsx scripts/smoke-packaged.ts');
  });

  it('uploads to a draft release, with the update metadata, and says when a build is unsigned', () => {
    expect(parsed.jobs['draft']!.steps.some((s) => s.run?.includes('gh release create') && s.run.includes('--draft'))).toBe(true);
    expect(text).toContain('latest*.yml');
    expect(text).toContain('UNSIGNED BUILD');
    expect(text).toContain('GITHUB_STEP_SUMMARY');
  });

  it('every secret it reads is named in docs/releasing.md', () => {
    const docs = readFileSync(join(root, 'docs', 'releasing.md'), 'utf8');
    const secrets = new Set([...text.matchAll(/secrets\.(\w+)/g)].map((m) => m[1]!).filter((s) => s !== 'GITHUB_TOKEN'));
    expect(secrets.size).toBeGreaterThan(0);
    for (const secret of secrets) expect(docs, secret).toContain(secret);
  });
});

describe('the checks workflow', () => {
  it('runs .ci/run on pull requests', () => {
    const { parsed } = workflow('checks.yml');
    expect(parsed.on).toHaveProperty('pull_request');
    expect(parsed.jobs['ci']!.steps.some((s) => s.run === 'bash .ci/run')).toBe(true);
  });
});

describe('scripts/merge-mac-update-info.mjs', () => {
  const x64 = { version: '0.2.0', files: [{ url: 'a-x64-mac.zip', sha512: 'x', size: 1 }], path: 'a-x64-mac.zip', sha512: 'x', releaseDate: '2026-12-01' };
  const arm = { version: '0.2.0', files: [{ url: 'a-arm64-mac.zip', sha512: 'y', size: 2 }], path: 'a-arm64-mac.zip', sha512: 'y', releaseDate: '2026-12-01' };

  it('lists the files of both architectures under one version', () => {
    expect(mergeMacUpdateInfo([x64, arm])).toEqual({ ...x64, files: [...x64.files, ...arm.files] });
  });

  it('refuses files of two versions', () => {
    expect(() => mergeMacUpdateInfo([x64, { ...arm, version: '0.3.0' }])).toThrow('versions differ');
  });
});
