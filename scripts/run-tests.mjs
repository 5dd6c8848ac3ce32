#!/usr/bin/env node
// `npm test`: start the real-service test bed, build the app, run every vitest suite, stop what
// the test bed started, and end with one line "N passed, N failed" read from vitest's JSON report
// (vitest's own summary line is not one CI reads).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const report = join(root, 'test-results', 'vitest.json');
/** The unit, renderer and conformance suites' report when they run beside the real-service suites. */
const isolatedReport = join(root, 'test-results', 'vitest-isolated.json');
/** The Slurm integration files' report: they run beside the other integration files (see below). */
const slurmReport = join(root, 'test-results', 'vitest-slurm.json');
/** The e2e suite's report: it runs alone after the others. */
const e2eReport = join(root, 'test-results', 'vitest-e2e.json');
const reports = [report, isolatedReport, slurmReport, e2eReport];
/** Integration files that use only the test bed's Slurm node (and the login node's sshd): path contains this. */
const SLURM_FILES = 'slurm';
/**
 * Integration files that start no container on the shared daemons (an in-process fake swarm server, the dry run, the
 * job runner, sshd only): they join the Slurm lane, whose test apps sweep no containers, so the two lanes take about as
 * long (issue 35: the other integration files alone were the run's critical path). Their apps may see the other lane's
 * containers; none of these files asserts on a container list.
 */
const NO_CONTAINER_FILES = [
  // (wizard-run, also container-free, stays with the others: the Slurm lane grew with the Slurm workers and fleet files.)
  'workers-pool',
  'jobs.spec',
  'jobs-control',
  'jobs-preflight',
  'jobs-failures',
  'wizard.spec',
  'wizard-project',
  'ssh-connection',
  'ssh-jump',
  'ssh-known-hosts',
  'dry-run-relay',
  'ssh-tunnel',
].map((name) => `test/integration/${name}${name.endsWith('.spec') ? '' : '.spec'}.ts`);
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

function runAsync(command, args, logFile, extraEnv = {}) {
  return new Promise((resolvePromise) => {
    const out = logFile ? openSync(logFile, 'w') : 'inherit';
    const child = spawn(command, args, { cwd: root, env: { ...env, ...extraEnv }, stdio: ['ignore', out, out] });
    child.on('close', (code, signal) => {
      if (typeof out === 'number') closeSync(out);
      resolvePromise(code ?? (signal ? 1 : 0));
    });
  });
}

function summariseOne(file) {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  // A file that fails to load, or whose beforeAll fails, reports no failed test (its tests show
  // as skipped) but is a failure all the same: count one per such file.
  const brokenFiles = (json.testResults ?? []).filter(
    (result) => result.status === 'failed' && !(result.assertionResults ?? []).some((t) => t.status === 'failed'),
  ).length;
  return { passed: json.numPassedTests ?? 0, failed: (json.numFailedTests ?? 0) + brokenFiles, skipped: json.numPendingTests ?? 0 };
}

/**
 * Where the time went: the slowest test files of every report (wall time from vitest's JSON report), so a
 * slow CI is fixed by the file that costs it, not by dropping tests (issue 35).
 */
function printSlowestFiles(files, count = 15) {
  const rows = [];
  for (const file of files.filter((f) => existsSync(f))) {
    const lane = file.endsWith('-e2e.json') ? 'e2e' : file.endsWith('-slurm.json') ? 'slurm' : file.endsWith('-isolated.json') ? 'cpu' : 'integration';
    for (const result of JSON.parse(readFileSync(file, 'utf8')).testResults ?? []) {
      const seconds = ((result.endTime ?? 0) - (result.startTime ?? 0)) / 1000;
      if (seconds > 0) rows.push({ lane, seconds, name: result.name.replace(`${root}/`, ''), tests: (result.assertionResults ?? []).length });
    }
  }
  rows.sort((a, b) => b.seconds - a.seconds);
  console.log(`[test] the ${Math.min(count, rows.length)} slowest of ${rows.length} files (lane, seconds, tests, file):`);
  for (const row of rows.slice(0, count)) console.log(`[test]   ${row.lane.padEnd(11)} ${row.seconds.toFixed(1).padStart(6)} s ${String(row.tests).padStart(4)}  ${row.name}`);
}

/** Both reports added up; null when a vitest that ran wrote none (it crashed before reporting). */
function summarise(expected) {
  if (expected.some((file) => !existsSync(file))) return null;
  return expected.map(summariseOne).reduce((a, b) => ({ passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped }));
}

let failedSetup = 0;
const testbedUp = run('bash', ['test/testbed/testbed.sh', 'up']);
if (testbedUp !== 0) failedSetup += 1;
const build = run('npx', ['electron-vite', 'build']);
if (build !== 0) failedSetup += 1;

mkdirSync(dirname(report), { recursive: true });
for (const file of reports) rmSync(file, { force: true });

/** vitest with both reporters: the default one on `output`, the JSON one into `json`. */
function vitestArgs(json, args) {
  return ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`, ...args];
}

let vitest;
if (extraArgs.length > 0) {
  // A filtered run (files, -t, --project): one vitest as asked.
  vitest = run('npx', vitestArgs(report, extraArgs));
} else {
  // The suites that share nothing (unit, renderer, conformance) are CPU-bound; the integration suite
  // (one file at a time: its files share one dockerd, Podman and Slurm) mostly waits on daemons,
  // containers and timers. Measured: run side by side (the CPU-bound part on one worker, so the two
  // never ask for more than our two cores) the integration files took as long as alone (281 s vs
  // 291 s), while e2e beside them took twice as long (Chromium is CPU-bound too). So: the
  // CPU-bound suites beside integration, then e2e alone. The side job's output goes to a file,
  // printed when it ends, so the integration progress stays readable.
  //
  // The Slurm files are a third lane: they need the one Slurm node to themselves (one file at a
  // time among them) but share nothing with dockerd, and mostly wait on Slurm's own timers (a
  // job's start, its time limit, KillWait), so they run beside the other integration files.
  const isolatedLog = join(dirname(report), 'vitest-isolated.log');
  const slurmLog = join(dirname(report), 'vitest-slurm.log');
  const started = Date.now();
  const isolated = runAsync('npx', vitestArgs(isolatedReport, ['--project', 'unit', '--project', 'renderer', '--project', 'conformance', '--maxWorkers=1']), isolatedLog);
  // The lane's test apps leave the shared daemons' test containers alone (test/support/test-app.ts).
  const slurm = runAsync('npx', vitestArgs(slurmReport, ['--project', 'integration', SLURM_FILES, ...NO_CONTAINER_FILES]), slurmLog, { AGENTSWARM_TEST_SLURM_LANE: '1' });
  const integration = runAsync(
    'npx',
    vitestArgs(report, ['--project', 'integration', '--exclude', `**/*${SLURM_FILES}*`, ...NO_CONTAINER_FILES.flatMap((file) => ['--exclude', file])]),
    null,
  );
  const [isolatedStatus, slurmStatus, integrationStatus] = await Promise.all([isolated, slurm, integration]);
  console.log(readFileSync(isolatedLog, 'utf8'));
  console.log(readFileSync(slurmLog, 'utf8'));
  console.log(
    `[test] unit + renderer + conformance -> exit ${isolatedStatus}; integration (Slurm and no-container files) -> exit ${slurmStatus}; integration (the rest) -> exit ${integrationStatus}; all in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
  const e2eStatus = run('npx', vitestArgs(e2eReport, ['--project', 'e2e']));
  vitest = [isolatedStatus, slurmStatus, integrationStatus, e2eStatus].find((status) => status !== 0) ?? 0;
}

if (!process.env.AGENTSWARM_KEEP_TESTBED) run('bash', ['test/testbed/testbed.sh', 'down']);

printSlowestFiles(extraArgs.length > 0 ? [report] : reports);
const summary = summarise(extraArgs.length > 0 ? [report] : reports);
if (!summary) {
  console.log('[test] vitest wrote no report; counting the run as one failure');
  console.log(`0 passed, ${1 + failedSetup} failed`);
  process.exit(1);
}
const failed = summary.failed + failedSetup;
const skippedNote = summary.skipped ? `, ${summary.skipped} skipped` : '';
console.log(`${summary.passed} passed, ${failed} failed${skippedNote}`);
process.exit(failed > 0 || vitest !== 0 ? 1 : 0);
