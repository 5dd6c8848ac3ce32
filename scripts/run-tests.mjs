#!/usr/bin/env node
// `npm test`: start the real-service test bed, build the app, run every vitest suite, stop what
// the test bed started, and end with one line "N passed, N failed" read from vitest's JSON report
// (vitest's own summary line is not one CI reads).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const report = join(root, 'test-results', 'vitest.json');
const extraArgs = process.argv.slice(2);

// Nothing may be downloaded by accident: Electron tooling's downloads stay on loopback and fail.
const env = {
  ...process.env,
  ELECTRON_MIRROR: process.env.ELECTRON_MIRROR ?? 'http://127.0.0.1:9/',
  ELECTRON_BUILDER_BINARIES_MIRROR: process.env.ELECTRON_BUILDER_BINARIES_MIRROR ?? 'http://127.0.0.1:9/',
  ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
};

function run(command, args, options = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit', ...options });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`[test] ${command} ${args.join(' ')} -> exit ${result.status ?? result.signal} in ${seconds}s`);
  return result.status ?? 1;
}

function summarise() {
  if (!existsSync(report)) return null;
  const json = JSON.parse(readFileSync(report, 'utf8'));
  // A file that fails to load, or whose beforeAll fails, reports no failed test (its tests show
  // as skipped) but is a failure all the same: count one per such file.
  const brokenFiles = (json.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'),
  ).length;
  return { passed: json.numPassedTests ?? 0, failed: (json.numFailedTests ?? 0) + brokenFiles, skipped: json.numPendingTests ?? 0 };
}

let failedSetup = 0;
const testbedUp = run('bash', ['test/testbed/testbed.sh', 'up']);
if (testbedUp !== 0) failedSetup += 1;
const build = run('npx', ['electron-vite', 'build']);
if (build !== 0) failedSetup += 1;

mkdirSync(dirname(report), { recursive: true });
rmSync(report, { force: true });
const vitest = run('npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...extraArgs,
]);

if (!process.env.AGENTSWARM_KEEP_TESTBED) run('bash', ['test/testbed/testbed.sh', 'down']);

const summary = summarise();
if (!summary) {
  console.log('[test] vitest wrote no report; counting the run as one failure');
  console.log(`0 passed, ${1 + failedSetup} failed`);
  process.exit(1);
}
const failed = summary.failed + failedSetup;
const skippedNote = summary.skipped ? `, ${summary.skipped} skipped` : '';
console.log(`${summary.passed} passed, ${failed} failed${skippedNote}`);
process.exit(failed > 0 || vitest !== 0 ? 1 : 0);
