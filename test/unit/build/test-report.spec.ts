import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without types (what npm test reads from vitest's reports); checked here.
import { failureLines, summarise } from '../../../scripts/test-report.mjs';

/**
 * `npm test` ends with the failures and the count read from vitest's JSON reports (scripts/test-report.mjs). CI shows
 * only the output's end, so each failure must be named there with its error, a broken file too.
 */
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function reportFile(name: string, json: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

describe("npm test's report of vitest's results (scripts/test-report.mjs)", () => {
  it('lists each failed test and broken file with its run and the first lines of its error, colours removed; counts a broken file as a failure', () => {
    dir = mkdtempSync(join(tmpdir(), 'test-report-'));
    const root = '/repo';
    const e2e = reportFile('vitest-e2e.json', {
      numPassedTests: 3,
      numFailedTests: 1,
      testResults: [
        {
          name: '/repo/test/e2e/wizard.spec.ts',
          status: 'failed',
          assertionResults: [
            { status: 'passed', fullName: 'fine' },
            { status: 'failed', fullName: 'wizard > runs a debug episode', failureMessages: ['\u001b[31mAssertionError\u001b[39m: expected 1 to be 2\n\n    at a\n    at b\n    at c\n    at d'] },
          ],
        },
      ],
    });
    const unit = reportFile('vitest-isolated.json', {
      numPassedTests: 5,
      numFailedTests: 0,
      numPendingTests: 2,
      testResults: [{ name: '/repo/test/unit/x.spec.ts', status: 'failed', message: 'Error: Cannot find module ./gone\nmore', assertionResults: [{ status: 'skipped', fullName: 'x' }] }],
    });
    const runOf = (file: string) => file.replace(/^.*vitest-(.*)\.json$/, '$1');
    expect(failureLines([e2e, unit], { root, runOf })).toEqual([
      'FAILED e2e: test/e2e/wizard.spec.ts > wizard > runs a debug episode',
      '    AssertionError: expected 1 to be 2',
      '        at a',
      '        at b',
      '        at c',
      'FAILED isolated: test/unit/x.spec.ts (the file failed: Error: Cannot find module ./gone)',
    ]);
    expect(summarise([e2e, unit])).toEqual({ passed: 8, failed: 2, skipped: 2 });
  });

  it('has nothing to list when all passed, and no sum when a run wrote no report', () => {
    dir = mkdtempSync(join(tmpdir(), 'test-report-'));
    const green = reportFile('vitest-unit.json', { numPassedTests: 4, numFailedTests: 0, testResults: [{ name: '/repo/a.spec.ts', status: 'passed', assertionResults: [] }] });
    expect(failureLines([green], { root: '/repo', runOf: () => 'unit' })).toEqual([]);
    expect(summarise([green, join(dir, 'vitest-missing.json')])).toBeNull();
  });
});
