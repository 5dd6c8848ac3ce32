#!/usr/bin/env node
// `npm test`: start the real-service test bed, build the app, run every vitest suite, stop what
// the test bed started, and end with one line "N passed, N failed" read from vitest's JSON report
// (vitest's own summary line is not one CI reads).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWN_RUNS, testPlan } from './test-lanes.mjs';
import { failureLines, summarise } from './test-report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const results = join(root, 'test-results');
/** A filtered run's report, and the container lane's (the file names CI readers know: vitest.json, vitest-<run>.json). */
const report = join(results, 'vitest.json');
const reportOf = (name) => (name === 'containers' ? report : join(results, `vitest-${name}.json`));
const logOf = (name) => join(results, `vitest-${name}.log`);
const timesOf = (name) => join(results, `file-times-${name}.json`);
const cpuOf = (name) => join(results, `file-cpu-${name}.jsonl`);
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

/**
 * Where the CPU went (issue 35: both cores are busy for a whole idle CI, so a faster CI needs less work, not more
 * lanes): the command runs under bash, whose `times` (after the command) gives the user + system CPU of every process
 * of the command's tree that was waited for (vitest, its workers, the Chromiums and Pythons they start; not the
 * daemons they talk to). Resolves { code, cpuSeconds }.
 */
function runAsync(command, args, logFile, extraEnv = {}) {
  const cpuFile = join(results, `cpu-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const script = 'CPU_FILE=$1; shift; "$@"; rc=$?; times > "$CPU_FILE"; exit $rc';
  return new Promise((resolvePromise) => {
    const out = logFile ? openSync(logFile, 'w') : 'inherit';
    const child = spawn('bash', ['-c', script, 'bash', cpuFile, command, ...args], { cwd: root, env: { ...env, ...extraEnv }, stdio: ['ignore', out, out] });
    child.on('close', (code, signal) => {
      if (typeof out === 'number') closeSync(out);
      resolvePromise({ code: code ?? (signal ? 1 : 0), cpuSeconds: childrenCpuSeconds(cpuFile) });
    });
  });
}

/** The children's line of bash's `times` ("0m12.500s 0m1.250s"), user + system in seconds; NaN when it is missing. */
function childrenCpuSeconds(file) {
  try {
    const line = readFileSync(file, 'utf8').trim().split('\n')[1] ?? '';
    rmSync(file, { force: true });
    return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
  } catch {
    return Number.NaN;
  }
}

/** The whole machine's busy CPU seconds so far (every core, from /proc/stat: all but idle and iowait). */
function machineBusySeconds() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Where the time went (issue 35): what every file cost (import, set-up, tests and hooks: scripts/file-times-reporter.mjs),
 * with the run it was in, into test-results/file-timings.tsv; each run's files added up; the slowest files printed. A
 * slow CI is fixed by the file that costs it, not by dropping tests.
 */
function printSlowestFiles(runs, count = 15) {
  const rows = [];
  for (const run of runs) {
    let times = [];
    try {
      times = JSON.parse(readFileSync(timesOf(run), 'utf8'));
    } catch {
      console.log(`[test] no file times from the ${run} run`);
    }
    const cpu = fileCpu(run);
    for (const t of times) {
      rows.push({ run, seconds: t.seconds, importSeconds: t.importSeconds, cpuSeconds: cpu.get(t.file) ?? Number.NaN, name: t.file.replace(`${root}/`, ''), tests: t.tests });
    }
  }
  rows.sort((a, b) => b.seconds - a.seconds);
  const tsv = rows.map((r) => `${r.run}\t${r.seconds.toFixed(1)}\t${r.importSeconds.toFixed(1)}\t${r.cpuSeconds.toFixed(1)}\t${r.tests}\t${r.name}`);
  writeFileSync(join(results, 'file-timings.tsv'), ['run\tseconds\timport_seconds\tcpu_seconds\ttests\tfile', ...tsv].join('\n') + '\n');
  const perRun = new Map();
  for (const row of rows) perRun.set(row.run, (perRun.get(row.run) ?? 0) + row.seconds);
  console.log(`[test] files' seconds added up per run: ${[...perRun].map(([run, s]) => `${run} ${s.toFixed(0)}`).join(', ')} (every file: test-results/file-timings.tsv)`);
  console.log(`[test] the ${Math.min(count, rows.length)} slowest of ${rows.length} files (run, seconds with import and hooks, CPU seconds, tests, file):`);
  const line = (row) => `[test]   ${row.run.padEnd(13)} ${row.seconds.toFixed(1).padStart(6)} s ${row.cpuSeconds.toFixed(1).padStart(6)} CPU s ${String(row.tests).padStart(4)}  ${row.name}`;
  for (const row of rows.slice(0, count)) console.log(line(row));
  const byCpu = rows.filter((r) => Number.isFinite(r.cpuSeconds)).sort((a, b) => b.cpuSeconds - a.cpuSeconds);
  const cpuTotal = byCpu.reduce((sum, r) => sum + r.cpuSeconds, 0);
  console.log(`[test] the ${Math.min(count, byCpu.length)} costliest files in CPU (of ${cpuTotal.toFixed(0)} CPU s in test files; the same columns):`);
  for (const row of byCpu.slice(0, count)) console.log(line(row));
}

/** A run's CPU per file (test/support/file-cpu.ts); empty when it wrote none. */
function fileCpu(run) {
  const byFile = new Map();
  try {
    for (const line of readFileSync(cpuOf(run), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const { file, cpuSeconds } = JSON.parse(line);
      byFile.set(file, (byFile.get(file) ?? 0) + cpuSeconds);
    }
  } catch {
    // No CPU figures (an older vitest config, or the run crashed): the columns say NaN.
  }
  return byFile;
}

mkdirSync(results, { recursive: true });
let failedSetup = 0;
// The build needs only node_modules: it runs while the test bed comes up (mostly apt, image builds and daemons
// starting), its output printed after the test bed's.
const buildLog = join(results, 'build.log');
const building = (async () => {
  const started = Date.now();
  const { code: status, cpuSeconds } = await runAsync('npx', ['electron-vite', 'build'], buildLog);
  return { status, seconds: ((Date.now() - started) / 1000).toFixed(1), cpuSeconds };
})();
const testbedUp = run('bash', ['test/testbed/testbed.sh', 'up']);
if (testbedUp !== 0) failedSetup += 1;
const { status: build, seconds: buildSeconds, cpuSeconds: buildCpu } = await building;
console.log(readFileSync(buildLog, 'utf8'));
console.log(`[test] npx electron-vite build (beside the test bed's start) -> exit ${build} in ${buildSeconds}s, ${buildCpu.toFixed(0)} CPU s`);
if (build !== 0) failedSetup += 1;

for (const file of readdirSync(results)) if (/^(vitest|file-times|file-cpu).*\.(json|jsonl|log)$/.test(file)) rmSync(join(results, file), { force: true });

/** vitest with its reporters: the default one on the output, the JSON one into `json`, each file's cost (printSlowestFiles). */
function vitestArgs(json, args) {
  return ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`, '--reporter=./scripts/file-times-reporter.mjs', ...args];
}

let vitest;
/** The reports this run wrote (summed at the end), and the vitest runs' names (their file times). */
const reports = [];
const runNames = [];
if (extraArgs.length > 0) {
  // A filtered run (files, -t, --project): one vitest as asked.
  vitest = run('npx', vitestArgs(report, extraArgs), { env: { ...env, AGENTSWARM_FILE_TIMES: timesOf('run'), AGENTSWARM_FILE_CPU: cpuOf('run') } });
} else {
  // The suites that share nothing (unit, renderer, conformance) are CPU-bound; the integration suite
  // (one file at a time: its files share one dockerd, Podman and Slurm) mostly waits on daemons,
  // containers and timers. Measured: run side by side (the CPU-bound part on one worker, so the two
  // never ask for more than our two cores) the integration files took as long as alone (281 s vs
  // 291 s), while e2e beside them took twice as long (Chromium is CPU-bound too). So: the
  // CPU-bound suites beside integration, e2e after them; which file runs where: scripts/test-lanes.mjs.
  const rendererCopy = join(results, 'renderer-for-e2e');
  rmSync(rendererCopy, { recursive: true, force: true });
  if (build === 0) cpSync(join(root, 'out', 'renderer'), rendererCopy, { recursive: true });
  const plan = testPlan(rendererCopy);
  const started = Date.now();
  const busyAtStart = machineBusySeconds();
  const at = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  const ran = [];
  async function runOne(group) {
    const begun = at();
    const command = ['npx', ...vitestArgs(reportOf(group.name), group.args)];
    // A run off the critical path yields the cores to the lanes that wait on daemons (test-lanes.mjs: `nice`).
    if (group.nice) command.unshift('nice', '-n', String(group.nice));
    const { code: status, cpuSeconds } = await runAsync(command[0], command.slice(1), group.terminal ? null : logOf(group.name), { ...group.env, AGENTSWARM_FILE_TIMES: timesOf(group.name), AGENTSWARM_FILE_CPU: cpuOf(group.name) });
    ran.push({ group, status, line: `${group.name} -> exit ${status} (${begun} to ${at()}, ${cpuSeconds.toFixed(0)} CPU s)` });
    return status;
  }
  const floating = [...plan.floating];
  /** Each lane's own runs done: a run may wait for another lane's (`waitFor`: they share a daemon's user). */
  const ownDoneOf = {};
  const markOwnDone = {};
  for (const name of Object.keys(plan.lanes)) ownDoneOf[name] = new Promise((resolvePromise) => (markOwnDone[name] = resolvePromise));
  /**
   * A lane's own runs one after another (each runs, whatever the one before did; one with `waitFor` once that lane's
   * own runs are done), then its `then` runs, then floating runs while any are left. `ownDone` once its own runs are done.
   */
  function lane(name, { own, then = [] }) {
    const status = (async () => {
      const statuses = [];
      for (const group of own) {
        if (group.waitFor) await ownDoneOf[group.waitFor];
        statuses.push(await runOne(group));
      }
      markOwnDone[name]();
      for (const group of then) statuses.push(await runOne(group));
      for (let next = floating.shift(); next; next = floating.shift()) statuses.push(await runOne(next));
      return statuses.find((s) => s !== 0) ?? 0;
    })();
    return { ownDone: ownDoneOf[name], status };
  }
  const lanes = Object.fromEntries(Object.entries(plan.lanes).map(([name, spec]) => [name, lane(name, spec)]));
  const alone = (async () => {
    await Promise.all([lanes.containers.ownDone, lanes.timers.ownDone, lanes.e2e.ownDone]);
    console.log(`[test] the container, timer and e2e lanes' own runs are done (${at()}): the e2e file of a new user`);
    return runOne(plan.alone);
  })();
  const statuses = await Promise.all([...Object.values(lanes).map((started) => started.status), alone]);
  // The failing runs' logs last: CI shows only the output's end, and a failure must be in it (stop 41's e2e failure
  // was printed before the isolated run's log and cut off).
  const logsInOrder = [...ran.filter((r) => r.status === 0), ...ran.filter((r) => r.status !== 0)];
  for (const { group } of logsInOrder) if (!group.terminal && existsSync(logOf(group.name))) console.log(readFileSync(logOf(group.name), 'utf8'));
  console.log(`[test] vitest runs (exit, from and to the lanes' start): ${ran.map((r) => r.line).join('; ')}; all in ${at()}, the machine ${(machineBusySeconds() - busyAtStart).toFixed(0)} CPU s busy`);
  reports.push(...ran.map(({ group }) => reportOf(group.name)));
  runNames.push(...ran.map(({ group }) => group.name));
  vitest = statuses.find((status) => status !== 0) ?? 0;
}

// The lanes' own test runs label their containers 0.0.0-test.<run> (test/support/test-app.ts). `testbed.sh down` sweeps
// every test label; with AGENTSWARM_KEEP_TESTBED it does not run, so what a failed test of those runs left behind on
// the shared dockerd is removed here.
if (extraArgs.length === 0 && process.env.AGENTSWARM_KEEP_TESTBED) {
  const filters = OWN_RUNS.map((word) => `--filter label=io.agentswarm.app-version=0.0.0-test.${word}`);
  for (const filter of filters) run('bash', ['-c', `docker ps -aq ${filter} | xargs -r docker rm -f >/dev/null || true`]);
}
if (!process.env.AGENTSWARM_KEEP_TESTBED) run('bash', ['test/testbed/testbed.sh', 'down']);

printSlowestFiles(extraArgs.length > 0 ? ['run'] : runNames);
const failures = failureLines(extraArgs.length > 0 ? [report] : reports, {
  root,
  runOf: (file) => (file === report ? (extraArgs.length > 0 ? 'run' : 'containers') : file.replace(/^.*vitest-(.*)\.json$/, '$1')),
});
if (failures.length > 0) console.log(failures.map((line) => `[test] ${line}`).join('\n'));
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
