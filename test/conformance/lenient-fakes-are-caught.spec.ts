// Shows that the conformance suite would catch a lenient fake: a slice of the suite is run (in a child vitest, since
// those runs must fail) against deliberately wrong variants of the fake (mutants/lenient-proxy.ts), and exactly the
// tests that check what each variant gets wrong fail, while the rest of the slice passes against the same variant.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { LENIENCIES, type Leniency } from './mutants/lenient-proxy';

const ROOT = resolve(import.meta.dirname, '../..');

/** The slice: a title fragment per test, each naming one rule of the reference. */
const SLICE = {
  health: 'GET /health answers',
  notFound: 'an unknown route is 404',
  refused400: 'sync, start and code sync are then refused with 400',
  missing422: 'a missing field is 422',
  contentType: 'a JSON body with Content-Type text/plain, or with none, is not parsed',
  failCause: 'the fail_cause of each status',
  dropAfter500: 'the keep-alive connection is dropped',
  syncVisible: 'the weight sync stays visible for the configured training step',
  noDefaults: 'a YAML without defaults: answers',
} as const;
type SliceTest = keyof typeof SLICE;

/** Which tests of the slice each lenient variant must fail; every other test of the slice must pass. */
const CAUGHT_BY: Record<Leniency, SliceTest[]> = {
  // noDefaults too: after the refused start, a second start_engine must be 400 (the engine is BOOTING).
  'ok-instead-of-4xx': ['notFound', 'refused400', 'missing422', 'contentType', 'noDefaults'],
  'json-whatever-content-type': ['contentType'],
  'generic-fail-cause': ['failCause'],
  'keeps-connection-after-500': ['dropAfter500'],
  'syncs-in-0-ms': ['syncVisible'],
  'accepts-yaml-without-defaults': ['noDefaults'],
};

interface JsonReport {
  testResults: Array<{ assertionResults: Array<{ ancestorTitles: string[]; title: string; status: string }> }>;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

async function runSliceAgainstLenientFakes(): Promise<JsonReport> {
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-lenient-'));
  try {
    const report = join(dir, 'report.json');
    const pattern = Object.values(SLICE).map(escapeRegExp).join('|');
    const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
    const args = [vitest, 'run', '--config', 'test/conformance/mutants/vitest.mutants.config.ts', '-t', pattern, '--reporter=json', `--outputFile=${report}`];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.resume();
    const code = await new Promise<number | null>((ok) => child.on('exit', (c) => ok(c)));
    // Failures are the point of this run, so vitest exits 1; anything else is a broken harness.
    expect(code, err).toBe(1);
    return JSON.parse(await readFile(report, 'utf8')) as JsonReport;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('the suite fails a lenient fake exactly on the rules it breaks, and passes the rest of the slice against it', async () => {
  const results = (await runSliceAgainstLenientFakes()).testResults.flatMap((f) => f.assertionResults).filter((r) => r.status !== 'skipped' && r.status !== 'pending');
  for (const leniency of Object.keys(LENIENCIES) as Leniency[]) {
    const ofVariant = results.filter((r) => r.ancestorTitles.some((t) => t.endsWith(`lenient fake [${leniency}]`)));
    const outcome: Record<string, string> = {};
    for (const [key, fragment] of Object.entries(SLICE)) {
      const matching = ofVariant.filter((r) => r.title.includes(fragment));
      expect(matching, `${leniency}: "${fragment}" ran once`).toHaveLength(1);
      outcome[key] = matching[0]?.status ?? 'missing';
    }
    const expected = Object.fromEntries(Object.keys(SLICE).map((key) => [key, CAUGHT_BY[leniency].includes(key as SliceTest) ? 'failed' : 'passed']));
    expect({ leniency, outcome }).toEqual({ leniency, outcome: expected });
  }
}, 120_000);
