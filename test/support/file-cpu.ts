// What each test file cost in CPU (issue 35: an idle CI keeps both cores busy, so it gets faster only by doing less
// work): a setup file of every project. From before the file's import to its last hook, this process's own CPU and that of
// its children it waited for (the Chromiums, Pythons and CLIs a file starts), appended as one JSON line to the file
// AGENTSWARM_FILE_CPU names (scripts/run-tests.mjs puts it beside the file timings). Without that variable it does
// nothing.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

const out = process.env.AGENTSWARM_FILE_CPU;

/** CPU seconds of this process and its waited-for children (/proc/self/stat's cutime and cstime, in 1/100 s). */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command's closing parenthesis, field 3 (state) is index 0: cutime is field 16, cstime field 17.
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // Not Linux: only this process's own CPU.
  }
  return (own.user + own.system) / 1e6 + children;
}

if (out) {
  // Taken when this setup file runs, before the test file is imported: its import counts.
  const startedAt = cpuSeconds();
  afterAll(() => {
    const file = expect.getState().testPath;
    appendFileSync(out, `${JSON.stringify({ file, cpuSeconds: cpuSeconds() - startedAt })}\n`);
  });
}
