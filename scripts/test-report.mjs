// What `npm test` reads from vitest's JSON reports (scripts/run-tests.mjs): the count CI reads, and the failures
// listed just above it.
import { readFileSync } from 'node:fs';

/** A vitest JSON report; null when it is missing or cut short (the vitest crashed while writing it). */
export function readReport(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function summariseOne(json) {
  // A file that fails to load, or whose beforeAll fails, reports no failed test (its tests show
  // as skipped) but is a failure all the same: count one per such file.
  const brokenFiles = (json.testResults ?? []).filter(
    (result) => result.status === 'failed' && !(result.assertionResults ?? []).some((t) => t.status === 'failed'),
  ).length;
  return { passed: json.numPassedTests ?? 0, failed: (json.numFailedTests ?? 0) + brokenFiles, skipped: json.numPendingTests ?? 0 };
}

/** The reports added up; null when a vitest that ran wrote none (it crashed before reporting). */
export function summarise(files) {
  const jsons = files.map(readReport);
  if (jsons.length === 0 || jsons.some((json) => json === null)) return null;
  return jsons.map(summariseOne).reduce((a, b) => ({ passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped }));
}

/**
 * Every failed test and broken file of the reports, as lines to print just above the count: CI shows only the
 * output's end, and a run's own log may be cut off there (stop 41: an e2e failure was printed before the isolated
 * run's log, and CI showed neither its name nor its error). `runOf(file)` names a report's run; `root` is cut from
 * the file names.
 */
export function failureLines(files, { runOf, root, linesPerFailure = 4 }) {
  const lines = [];
  for (const file of files) {
    for (const result of readReport(file)?.testResults ?? []) {
      const name = result.name.replace(`${root}/`, '');
      const failedTests = (result.assertionResults ?? []).filter((t) => t.status === 'failed');
      if (result.status === 'failed' && failedTests.length === 0) {
        lines.push(`FAILED ${runOf(file)}: ${name} (the file failed: ${firstLines(result.message ?? 'no message', 1)})`);
      }
      for (const t of failedTests) {
        lines.push(`FAILED ${runOf(file)}: ${name} > ${t.fullName}`);
        const message = firstLines((t.failureMessages ?? []).join('\n'), linesPerFailure);
        if (message) lines.push(...message.split('\n').map((l) => `    ${l}`));
      }
    }
  }
  return lines;
}

function firstLines(text, count) {
  // eslint-disable-next-line no-control-regex -- vitest's messages carry terminal colours
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  return plain.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '').slice(0, count).join('\n');
}
